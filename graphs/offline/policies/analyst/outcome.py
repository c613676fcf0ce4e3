"""An analysis that cannot be done: say why, keep the reason, and end the run in error.

Two steps, so the reason survives the failed run: first the reason goes to the buyer's
language in the thread and to ``/analysis/failed_YYYYMMDD_<task>.md`` in the workspace;
then the final answer carries the failure marker, which
:class:`graphs.middleware.analysis_outcome.AnalysisOutcome` turns into an exception: the
run ends with an error status and the parent is told it failed, never "finished".
"""

from __future__ import annotations

import re

from graphs.middleware.analysis_outcome import FailureKind, failure_line
from graphs.offline.policies.analyst.run import Run
from graphs.offline.policies.base import Decision

__all__ = ["fail", "failed_already"]

_KIND = re.compile(r"<!-- kind: ([a-z_]+) -->")


def fail(run: Run, kind: FailureKind, reason: str) -> Decision:
    """Step one: say why and keep the reason in the workspace (the next step ends the run)."""
    note = f"<!-- kind: {kind} -->\n# {run.say('分析未完成', 'Analysis not done')}\n\n{reason}\n"
    return Decision(
        reason,
        [("write_file", {"file_path": run.paths.failure, "content": note})],
        note=f"failing:{kind}",
    )


def failed_already(run: Run) -> Decision | None:
    """Step two, once the reason is kept: the final answer that ends the run in error."""
    for r in run.view.called("write_file"):
        if r.args.get("file_path") != run.paths.failure:
            continue
        content = str(r.args.get("content", ""))
        found = _KIND.search(content)
        kind: FailureKind = found.group(1) if found else "other"  # type: ignore[assignment]
        reason = content.split("\n\n", 1)[-1].strip()
        return Decision(f"{reason}\n\n{failure_line(kind, reason)}", note=f"failed:{kind}")
    return None
