"""A user's memory outside any thread: the preferences file and what fills it.

:mod:`graphs.memory.preferences` is the file's format (the machine-kept recent-activity
block inside the user's own text); :mod:`graphs.memory.suppliers` the ERP's supplier
names, learned through the ERP MCP tools; :mod:`graphs.memory.settings` their settings.
The MemoryUpdate middleware (:mod:`graphs.middleware.memory_update`) puts them to work.
"""
