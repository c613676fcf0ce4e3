"""Analyst policy: the five stages of the procurement-analysis skill, on the real tools.

1. ``ls /skills/procurement/`` and read the skill;
2. data (:mod:`.collect`): the ERP catalogue (``part_query`` pages) → the category the
   request names (matched against the ERP's own category names, Chinese or English) →
   part details with offers and inventory → quote URLs from ``url_mapping.yaml``
   (``grep`` + ``read_file``) → ``fetch_url`` per quote page → 12 months of orders per part;
3. the skill's analysis script, written to the sandbox with the collected data and
   run with ``execute`` → ``/data/analysis_result.json``;
4. 2-4 charts through ``generate_visualization`` (:mod:`.charts`), each answering a
   question of the report, saved beside it (``save_chart``);
5. ``/analysis/report_YYYYMMDD_<task>.md`` in the request's language (:mod:`.report`,
   words in :mod:`.words`) with its scope and numbered sources, filed in
   ``/reports/{user_id}/`` with an index line, exported as HTML and PDF, and a structured
   summary with the links and the charts as the final answer (:mod:`.summary`).

An analysis that cannot be done ends its run in error (:mod:`.outcome`). :mod:`.policy`
picks the step that is due; :mod:`.run` holds the paths and what the thread has
established so far.
"""

from __future__ import annotations

from graphs.offline.policies.analyst.policy import decide
from graphs.offline.policies.analyst.run import MAX_PARTS, SCRIPT, URL_MAP

__all__ = ["MAX_PARTS", "SCRIPT", "URL_MAP", "decide"]
