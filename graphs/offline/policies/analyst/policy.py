"""The analyst's next step: which of the five stages is due, re-read from the thread."""

from __future__ import annotations

import json
import re
from typing import Any

from graphs.messages import parse_json
from graphs.offline.history import View, strip_line_numbers
from graphs.offline.policies.analyst.charts import chart_calls, chart_urls
from graphs.offline.policies.analyst.collect import AFTER_FOCUS, stage_data
from graphs.offline.policies.analyst.outcome import fail, failed_already
from graphs.offline.policies.analyst.report import render_report
from graphs.offline.policies.analyst.run import (
    INPUT,
    RESULT,
    SANDBOX_SCRIPT,
    SCRIPT,
    SKILL_MD,
    SKILLS,
    URL_MAP,
    Run,
)  # fmt: skip
from graphs.offline.policies.analyst.summary import INDEX_HEAD, INDEX_RULE, final_answer, index_row
from graphs.offline.policies.base import Decision, blocked

__all__ = ["decide"]

_NEEDED = {"part_query", "supplier_query", "order_search_details", "grep"}
_WINDOW = re.compile(r"^@@ lines \d+-\d+ of \d+(?: \| next offset (?P<next>\d+))?.*@@$")
_INDEX_OPS = frozenset({"read_file", "write_file", "edit_file"})
_INDEX_ATTEMPTS = 3  # two analyses of one user may file at once: re-read and try again
Saved = list[tuple[str, str, str]]  # (question, title, path relative to the report)
Drawn = list[tuple[tuple[str, str, str], str]]  # each chart of Saved with its image URL


def _failed_prerequisite(run: Run) -> Decision | None:
    """The failure when a call the plan needs failed, else None.

    Quote pages and charts may fail one by one (the report says so); anything else the
    plan needs failing ends the run in error rather than a retry loop.
    """
    needed = [
        r
        for r in run.view.last_turn()
        if r.name in _NEEDED
        or (r.name == "read_file" and r.args.get("file_path") in (URL_MAP, SCRIPT, RESULT))
        or (r.name == "write_file" and str(r.args.get("file_path", "")).startswith("/data/"))
    ]
    stop = blocked(needed, run.zh)
    return None if stop is None else fail(run, "data_unavailable", stop.text)


def _first_turn(run: Run) -> Decision:
    """Stage 1 with the first data reads: the skill's files and the ERP's first pages need
    nothing from each other, and each model turn costs the server a whole step (its
    middleware, a checkpoint of the thread, the stream): one turn, not two."""
    data = stage_data(run)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("ls", {"path": SKILLS}),
        ("read_file", {"file_path": SKILL_MD, "limit": 400}),
    ]
    text = run.say("阶段 1：查看可用技能。", "Stage 1: checking the skills.")
    if isinstance(data, Decision) and data.note == "catalogue":
        calls += data.calls
        text = f"{text}\n{data.text}"
    return Decision(text, calls, note="skills")


def _analysis(run: Run) -> Decision:
    """Stages 2-3: collect the data, then write and run the analysis script.

    The script is read with the first data reads made once the parts are chosen (it does
    not depend on them): no turn of its own, and late enough that the thread carries it
    through few turns."""
    step = stage_data(run)
    script = run.results("read_file", file_path=SCRIPT)
    if isinstance(step, Decision):
        if step.note in AFTER_FOCUS and not script:
            step.calls.append(("read_file", {"file_path": SCRIPT, "limit": 5000}))
        return step
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


def _result_pages(run: Run) -> tuple[str, int | None]:
    """The result file's text as read so far, and the offset to read next (None: all read).

    A large result comes back in windows (``@@ lines 1-1434 of 1456 | next offset 1434``,
    the truncation note above it): read on from the offset the header names."""
    pages: dict[int, str] = {}
    following: int | None = 0
    for r in run.results("read_file", file_path=RESULT):
        start = int(r.args.get("offset") or 0)
        lines = r.content.split("\n")
        at = next((i for i, line in enumerate(lines) if _WINDOW.match(line)), None)
        if at is None:  # an old-style or plain read: the whole text
            pages[start] = strip_line_numbers(r.content)
            following = None
            continue
        pages[start] = "\n".join(lines[at + 1 :])
        window = _WINDOW.match(lines[at])
        nxt = window.group("next") if window else None
        following = int(nxt) if nxt and start == max(pages) else None
    if not pages:
        return "", 0
    return "\n".join(pages[k] for k in sorted(pages)), following


def _result(run: Run) -> Decision | dict[str, Any]:
    """The script's result, or the step that reads it (or ends the run: no result)."""
    executed = run.results("execute")[-1]
    if "wrote" not in executed.content:
        return fail(
            run,
            "script_failed",
            run.say(
                f"分析脚本运行失败：\n{executed.content[:2000]}",
                f"The analysis script failed:\n{executed.content[:2000]}",
            ),
        )
    text, offset = _result_pages(run)
    if offset is not None:
        return Decision(
            run.say("阶段 4：读取分析结果。", "Stage 4: reading the analysis result."),
            [("read_file", {"file_path": RESULT, "offset": offset, "limit": 100000})],
            note="read-result",
        )
    result = parse_json(text)
    if not isinstance(result, dict) or not result.get("parts"):
        return fail(
            run,
            "script_failed",
            run.say(
                "分析脚本没有写出可读的结果（没有任何零件）。",
                "The analysis script wrote no readable result (no parts).",
            ),
        )
    return result


def _charts(run: Run, result: dict[str, Any]) -> Decision | None:
    """Stage 4's drawing turn while it is due (None: drawn, or nothing to draw). The archive
    index is read with the charts, so the report's line goes in with the report."""
    charts = chart_calls(run, result)
    if not charts or run.view.called("generate_visualization"):
        return None
    calls = [("generate_visualization", {"chart_type": t, "chart_config": c})
             for _, (t, c) in charts]  # fmt: skip
    index = _index(run, result)
    if index is not None and index[0] == "read_file":
        calls.append(index)
    return Decision(
        run.say(f"阶段 4：生成 {len(charts)} 张图表。", f"Stage 4: drawing {len(charts)} charts."),
        calls,
        note="charts",
    )


def _drawn(run: Run, result: dict[str, Any]) -> Drawn:
    """Every chart the chart server drew, numbered in call order, with its image URL:
    ``((question, title, path relative to the report), url)``: where each is saved, and
    how the report links it."""
    kinds = {c["title"]: kind for kind, (_, c) in chart_calls(run, result)}
    return [
        ((kinds.get(title, ""), title, run.paths.chart(n)), url)
        for n, (title, url) in enumerate(chart_urls(run), 1)
    ]


def _saved(run: Run, drawn: Drawn) -> Saved:
    """The ``drawn`` charts whose save worked."""
    saved = {str(r.args["url"]) for r in run.view.called("save_chart") if r.ok}
    return [chart for chart, url in drawn if url in saved]


def _index(run: Run, result: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The next call for the report's line in the archive index (None: done, or given up).

    The index is read with the charts (or, with none drawn, with the report), and the
    line goes in with the report. An edit inserts the line into what the
    index holds when it runs (the Store route applies one edit at a time); a write made
    the index afresh, and two analyses of one user that both found no index would each
    write their own, the later one without the earlier line: a write is read back once,
    and a line missing from it is inserted again."""
    index = run.paths.index
    read = ("read_file", {"file_path": index})
    ops = [r for r in run.view.results
           if r.name in _INDEX_OPS and r.args.get("file_path") == index]  # fmt: skip
    tries = [r for r in ops if r.name != "read_file"]
    done = next((t for t in reversed(tries) if t.ok), None)
    if done is not None:
        if done.name == "edit_file":
            return None
        after = ops[ops.index(done) + 1 :]
        if not after:
            return read
        if not after[0].ok or f"[{run.paths.stem}.md]" in after[0].content:
            return None
    if len(tries) >= _INDEX_ATTEMPTS:
        return None
    if not ops or ops[-1].name != "read_file":
        return read
    row = index_row(run, result)
    if ops[-1].ok and INDEX_RULE in ops[-1].content:
        return ("edit_file", {"file_path": index, "old_string": INDEX_RULE,
                              "new_string": f"{INDEX_RULE}\n{row}"})  # fmt: skip
    if done is not None:
        return None  # never write over an index this run wrote already
    return ("write_file", {"file_path": index, "content": INDEX_HEAD + row + "\n"})


def _report(run: Run, result: dict[str, Any]) -> Decision | Saved:
    """Stages 4-5 after the drawing, in two turns (each model turn costs the server a whole
    step): the charts saved beside the report and in the archive, the report, its archive
    copy and its index line; then the HTML and PDF exports (which answer with their links),
    the links of the report and its charts, and the index read back after a write. Returns
    the saved charts once all is done.

    The report is written with the saves, naming every drawn chart: a save that fails gets
    the report written again without it, before the exports read it (one message's calls
    run concurrently: nothing reads a file written in the same turn)."""
    paths = run.paths
    drawn = _drawn(run, result)
    calls: list[tuple[str, dict[str, Any]]] = []
    written = run.results("write_file", file_path=paths.report)
    if not written:
        if drawn and not run.view.called("save_chart"):
            calls += [
                ("save_chart", {"url": url, "paths": [f"/analysis/{path}",
                                                      f"{paths.archive}{path}"]})
                for (*_, path), url in drawn
            ]  # fmt: skip
        report = render_report(run, result, [chart for chart, _ in drawn])
        calls += [
            ("write_file", {"file_path": paths.report, "content": report}),
            ("write_file", {"file_path": paths.archived, "content": report}),
        ]
        index = _index(run, result)
        if index is not None:
            calls.append(index)
        return Decision(
            run.say("阶段 5：保存图表，写报告并存档。",
                    "Stage 5: saving the charts, writing and filing the report."),
            calls,
            note="report",
        )  # fmt: skip
    saved = _saved(run, drawn)
    if len(saved) != len(drawn):
        report = render_report(run, result, saved)
        if written[-1].args.get("content") != report:
            return Decision(
                run.say("阶段 5：有图表未能保存，重写报告。",
                        "Stage 5: a chart could not be saved; rewriting the report."),
                [("write_file", {"file_path": paths.report, "content": report}),
                 _rearchive(run, report)],
                note="report",
            )  # fmt: skip
    index = _index(run, result)
    if index is not None:
        calls.append(index)
    if run.view.has_tool("export_report") and not run.view.called("export_report"):
        calls.append(("export_report", {"path": paths.report, "copy_to": paths.archive}))
    if run.view.has_tool("download_artifact") and not run.view.called("download_artifact"):
        files = [paths.report, *(f"/analysis/{p}" for *_, p in saved)]
        calls += [("download_artifact", {"path": f}) for f in files]
    if not calls:
        return saved
    if index is not None and calls == [index]:
        return Decision(
            run.say("阶段 5：核对存档索引。", "Stage 5: checking the archive index.")
            if index[0] == "read_file"
            else run.say("阶段 5：更新存档索引。", "Stage 5: updating the archive index."),
            calls,
            note="index",
        )
    return Decision(
        run.say("阶段 5：导出 HTML 和 PDF，生成下载链接，核对存档索引。",
                "Stage 5: exporting HTML and PDF, making the links, checking the index."),
        calls,
        note="export",
    )  # fmt: skip


def _rearchive(run: Run, report: str) -> tuple[str, dict[str, Any]]:
    """The call that puts ``report`` in the archive in place of the copy filed with it:
    the archive never replaces a file (two analyses share its index), so a filed copy is
    edited whole."""
    path = run.paths.archived
    filed = [r for r in run.results("write_file", file_path=path) if r.ok]
    if not filed:
        return ("write_file", {"file_path": path, "content": report})
    old = str(filed[-1].args.get("content", ""))
    return ("edit_file", {"file_path": path, "old_string": old, "new_string": report})


def _problems(run: Run) -> list[str]:
    """What went wrong on the way without stopping the analysis (the answer says so)."""
    tools = ("write_file", "save_chart", "export_report", "generate_visualization")
    # A new index refused because another analysis made one first is no problem once the
    # line went in by an edit.
    edited = any(r.ok for r in run.results("edit_file", file_path=run.paths.index))
    return [
        f"{r.name}: {r.content[:200]}"
        for name in tools
        for r in run.view.called(name)
        if not r.ok or (name == "export_report" and "Error:" in r.content)
        if not (edited and r.args.get("file_path") == run.paths.index)
    ]


def _output(run: Run) -> Decision:
    """Stages 4-5, once the script ran."""
    result = _result(run)
    if isinstance(result, Decision):
        return result
    step = _charts(run, result) or _report(run, result)
    if isinstance(step, Decision):
        return step
    return Decision(final_answer(run, result, step, _problems(run)), note="done")


def decide(view: View) -> Decision:
    """Next step of the analyst."""
    run = Run(view)
    stopped = failed_already(run)
    if stopped is not None:
        return stopped
    stop = _failed_prerequisite(run)
    if stop is not None:
        return stop
    if not view.called("ls"):
        return _first_turn(run)
    if not run.results("execute"):
        return _analysis(run)
    return _output(run)
