"""Analyst policy: the five stages of the procurement-analysis skill, on the real tools.

1. ``ls /skills/procurement/`` and read the skill;
2. data (:mod:`.collect`): the ERP catalogue (``part_query`` pages) → the category the
   request names (matched against the ERP's own category names, Chinese or English) →
   part details with offers and inventory → quote URLs from ``url_mapping.yaml``
   (``grep`` + ``read_file``) → ``fetch_url`` per quote page → 12 months of orders per part;
3. the skill's analysis script, written to the sandbox with the collected data and
   run with ``execute`` → ``/data/analysis_result.json``;
4. 2-4 charts through ``generate_visualization`` (:mod:`.charts`);
5. ``/analysis/report_YYYYMMDD.md`` with numbered sources (:mod:`.report`), copied to
   ``/reports/{user_id}/``, and a structured summary as the final answer.

:mod:`.policy` picks the step that is due; :mod:`.run` holds the paths and what the
thread has established so far.
"""

from __future__ import annotations

from graphs.offline.policies.analyst.policy import decide
from graphs.offline.policies.analyst.run import MAX_PARTS, SCRIPT, URL_MAP

__all__ = ["MAX_PARTS", "SCRIPT", "URL_MAP", "decide"]
