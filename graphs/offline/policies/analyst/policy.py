"""The analyst's next step: which of the five stages is due, re-read from the thread."""

from __future__ import annotations

import json

from graphs.messages import parse_json
from graphs.offline.history import View, strip_line_numbers
from graphs.offline.policies.analyst.charts import chart_calls, chart_urls
from graphs.offline.policies.analyst.collect import stage_data
from graphs.offline.policies.analyst.report import render_report, summary
from graphs.offline.policies.analyst.run import (
    INPUT,
    RESULT,
    SANDBOX_SCRIPT,
    SCRIPT,
    SKILL_MD,
    SKILLS,
    Run,
)  # fmt: skip
from graphs.offline.policies.base import Decision, blocked

__all__ = ["decide"]

_NEEDED = {"part_query", "supplier_query", "order_search_details", "grep"}


def _failed_prerequisite(run: Run) -> Decision | None:
    """The final answer when a call the plan needs failed, else None.

    Quote pages and charts may fail one by one (the report says so); anything else the
    plan needs failing ends the run with the error rather than a retry loop.
    """
    needed = [
        r
        for r in run.view.last_turn()
        if r.name in _NEEDED
        or (r.name == "read_file" and r.args.get("file_path") != SKILL_MD)
        or (r.name == "write_file" and str(r.args.get("file_path", "")).startswith("/data/"))
    ]
    return blocked(needed, run.zh)


def _analysis(run: Run) -> Decision:
    """Stages 2-3: collect the data, then write and run the analysis script."""
    step = stage_data(run)
    if isinstance(step, Decision):
        return step
    script = run.results("read_file", file_path=SCRIPT)
    if not script:
        return Decision(
            run.say("阶段 3：读取分析脚本。", "Stage 3: reading the analysis script."),
            [("read_file", {"file_path": SCRIPT, "limit": 5000})],
            note="script",
        )
    if not run.results("write_file", file_path=INPUT):
        data = json.dumps(step, ensure_ascii=False)
        code = strip_line_numbers(script[-1].content) + "\n"
        return Decision(
            run.say(
                "阶段 3：把数据和脚本写入沙箱。",
                "Stage 3: writing data and script to the sandbox.",
            ),
            [
                ("write_file", {"file_path": INPUT, "content": data}),
                ("write_file", {"file_path": SANDBOX_SCRIPT, "content": code}),
            ],
            note="write-input",
        )
    return Decision(
        run.say("阶段 3：在沙箱中运行分析脚本。", "Stage 3: running the analysis in the sandbox."),
        [("execute", {"command": f"cd /data && python3 {SANDBOX_SCRIPT} {INPUT} {RESULT}"})],
        note="execute",
    )


def _output(run: Run) -> Decision:
    """Stages 4-5, once the script ran: read its result, draw the charts, write the report."""
    executed = run.results("execute")[-1]
    if "wrote" not in executed.content:
        return Decision(
            run.say(
                f"分析脚本运行失败：\n{executed.content[:2000]}",
                f"The analysis script failed:\n{executed.content[:2000]}",
            ),
            note="script-failed",
        )
    read = run.results("read_file", file_path=RESULT)
    if not read:
        return Decision(
            run.say("阶段 4：读取分析结果。", "Stage 4: reading the analysis result."),
            [("read_file", {"file_path": RESULT, "limit": 100000})],
            note="read-result",
        )
    result = parse_json(strip_line_numbers(read[-1].content))
    if not isinstance(result, dict):
        return Decision(
            run.say("无法读取分析结果。", "Could not read the analysis result."), note="bad-result"
        )
    if not run.view.called("generate_visualization"):
        charts = chart_calls(run, result)
        return Decision(
            run.say(
                f"阶段 4：生成 {len(charts)} 张图表。", f"Stage 4: drawing {len(charts)} charts."
            ),
            [("generate_visualization", {"chart_type": t, "chart_config": c}) for t, c in charts],
            note="charts",
        )
    stamp = run.today.strftime("%Y%m%d")
    report_path = f"/analysis/report_{stamp}.md"
    store_path = f"/reports/{run.user_id}/report_{stamp}.md"
    charts_made = chart_urls(run)
    if not run.results("write_file", file_path=report_path):
        report = render_report(run, result, charts_made)
        return Decision(
            run.say("阶段 5：写报告并存档。", "Stage 5: writing and filing the report."),
            [
                ("write_file", {"file_path": report_path, "content": report}),
                ("write_file", {"file_path": store_path, "content": report}),
            ],
            note="report",
        )
    failed = [r for r in run.view.called("write_file") if not r.ok]
    text = summary(run, result, charts_made, (report_path, store_path), failed)
    return Decision(text, note="done")


def decide(view: View) -> Decision:
    """Next step of the analyst."""
    run = Run(view)
    stop = _failed_prerequisite(run)
    if stop is not None:
        return stop
    if not view.called("ls"):
        return Decision(
            run.say("阶段 1：查看可用技能。", "Stage 1: checking the skills."),
            [("ls", {"path": SKILLS}), ("read_file", {"file_path": SKILL_MD, "limit": 400})],
            note="skills",
        )
    if not run.results("execute"):
        return _analysis(run)
    return _output(run)
