"""The analyst's offline policy through its five stages, on a scripted ERP, shops and sandbox.

The sandbox's ``execute`` runs the skill's real analysis script (in-process) on the file
the planner wrote, so the test checks the numbers end to end.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from graphs.offline.policies.analyst import SCRIPT, URL_MAP
from graphs.offline.policies.analyst.summary import INDEX_HEAD
from tests.unit.test_offline_world import OFFERS, PARTS, SUPPLIERS, World, converse, offer

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_PATH = ROOT / "skills" / SCRIPT.removeprefix("/skills/")

ACME_PAGE = """Title: Acme Sprocket 428

| Quantity | Unit price (CNY) |
| --- | --- |
| 10+ | ¥23.10 |
| 100+ | ¥21.90 |

- Availability: In stock (500 pcs)
- Stock: 500 pcs
- Lead time: 7 days
- Currency: CNY
- Last updated: 2026-11-20
"""

ZENITH_PAGE = """Title: 艾克米 链轮 428

| 订购数量 | 单价（元，含税） |
| --- | --- |
| 5-49 个 | ￥26.00 |
| ≥50 个 | ￥24.50 |

库存：0 个（缺货）

交货期：12 天

币种：人民币 CNY
"""

URLS = {
    "ACME": "http://shops.test/acme/p/SK-ACME-428",
    "ZENITH": "http://shops.test/zenith/item/SK-ACME-428.html",
}

# The map was generated for shops at another address than where they run now: the
# analyst must move the URLs to the address its system prompt gives.
MAPPED_BASE = "http://127.0.0.1:8300"
MAPPING = (
    f"base_url: {MAPPED_BASE}\n"
    "parts:\n"
    "  SK-ACME-428:\n"
    "    model: '428'\n"
    "    category: SK\n"
    "    quotes:\n"
    f"      ACME: {URLS['ACME'].replace('http://shops.test', MAPPED_BASE)}\n"
    f"      ZENITH: {URLS['ZENITH'].replace('http://shops.test', MAPPED_BASE)}\n"
    "  SK-ACME-520:\n"
    "    model: '520'\n"
    "    quotes: {}\n"
)


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location("analyze", SCRIPT_PATH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Sandbox:
    """Files written by the planner, a script runner and a chart server."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.analyze = load_script()
        self.charts: list[dict[str, Any]] = []

    def handlers(self) -> dict[str, Any]:
        return {
            "ls": lambda a: str(["/skills/procurement/procurement-analysis/",
                                 "/skills/procurement/supplier-price-urls/"]),
            "read_file": self.read,
            "write_file": self.write,
            "grep": self.grep,
            "fetch_url": self.fetch,
            "order_search_details": lambda a: {"items": [
                {"order_no": "PO1", "supplier_id": 7, "status": "closed",
                 "order_date": "2026-06-10", "lines": [{"part_id": 101, "quantity": 100,
                                                        "unit_price_minor": 2450}]},
                {"order_no": "PO2", "supplier_id": 7, "status": "closed",
                 "order_date": "2026-10-10", "lines": [{"part_id": 101, "quantity": 300,
                                                        "unit_price_minor": 2550}]},
            ], "total": 2, "page": 1, "size": 100, "has_more": False},
            "execute": self.execute,
            "generate_visualization": self.chart,
            "edit_file": self.edit,
            "save_chart": self.save_chart,
            "export_report": self.export,
            "download_artifact": lambda a: f"{a['path']} (10 bytes): /artifacts/t-1{a['path']}",
        }  # fmt: skip

    def edit(self, args: dict[str, Any]) -> str:
        path = args["file_path"]
        if path not in self.files or self.files[path].count(args["old_string"]) != 1:
            return f"Error: String not found in file: {path}"
        self.files[path] = self.files[path].replace(args["old_string"], args["new_string"])
        return f"Successfully replaced 1 instance(s) of the string in '{path}'"

    def save_chart(self, args: dict[str, Any]) -> str:
        for path in args["paths"]:
            self.files[path] = f"PNG of {args['url']}"
        return "Saved the chart (10 bytes) to " + ", ".join(args["paths"])

    def export(self, args: dict[str, Any]) -> str:
        stem = args["path"].removesuffix(".md")
        name = stem.rsplit("/", 1)[-1]
        for folder_stem in (stem, args["copy_to"] + name):
            self.files[folder_stem + ".html"] = "<html>"
            self.files[folder_stem + ".pdf"] = "%PDF"
        return (f"Exported:\n{stem}.html (6 bytes): /artifacts/t-1{stem}.html\n"
                f"{stem}.pdf (4 bytes): /artifacts/t-1{stem}.pdf")  # fmt: skip

    def fetch(self, args: dict[str, Any]) -> str:
        pages = {URLS["ACME"]: ACME_PAGE, URLS["ZENITH"]: ZENITH_PAGE}
        return pages.get(args["url"], f"Error: fetch_url could not reach {args['url']}")

    def grep(self, args: dict[str, Any]) -> str:
        if args["pattern"] not in MAPPING:
            return "No matches found"
        return f"{URL_MAP}:\n  2: {args['pattern']}"

    def read(self, args: dict[str, Any]) -> str:
        path = args["file_path"]
        if path == SCRIPT:
            text = SCRIPT_PATH.read_text(encoding="utf-8")
        elif path == URL_MAP:
            text = "\n".join(MAPPING.splitlines()[int(args.get("offset", 0)) :])
        elif path == "/data/analysis_result.json" and path in self.files:
            return self.window(self.files[path], int(args.get("offset", 0)))
        elif path in self.files:
            text = self.files[path]
        else:
            return f"Error: File '{path}' not found"
        n = text.count("\n") + 1
        return f"@@ lines 1-{n} of {n} @@\n{text}"

    @staticmethod
    def window(text: str, offset: int, size: int = 60) -> str:
        """A read cut by size, as deepagents answers it: the note, then the window's header."""
        lines = text.split("\n")
        shown = lines[offset : offset + size]
        end = offset + len(shown)
        if end >= len(lines):
            return f"@@ lines {offset + 1}-{end} of {len(lines)} @@\n" + "\n".join(shown)
        note = "[Output was truncated due to size limits.]"
        header = f"@@ lines {offset + 1}-{end} of {len(lines)} | next offset {end} | truncated @@"
        return f"{note}\n{header}\n" + "\n".join(shown)

    def write(self, args: dict[str, Any]) -> str:
        path = args["file_path"]
        if path.startswith("/reports/") and path in self.files:  # the archive never replaces
            return f"Error: {path} already exists and this folder never replaces a file"
        self.files[path] = args["content"]
        return f"Updated file {path}"

    def execute(self, args: dict[str, Any]) -> str:
        assert "python3" in args["command"]
        assert self.files["/data/analyze.py"].startswith('"""')  # the script, header stripped
        data = json.loads(self.files["/data/analysis_input.json"])
        result = self.analyze.analyse(data)
        # Pretty-printed like the script writes it: long enough to be read in windows.
        self.files["/data/analysis_result.json"] = json.dumps(result, ensure_ascii=False, indent=2)
        return "wrote /data/analysis_result.json\n[Command succeeded with exit code 0]"

    def chart(self, args: dict[str, Any]) -> str:
        self.charts.append(args)
        return f"Chart ready: http://charts.test/charts/{len(self.charts)}.png"


EXTRA_TOOLS = ("edit_file", "save_chart", "export_report", "download_artifact")
TASK = "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"
SYSTEM = (
    "供应商网站当前地址：http://shops.test。\nCurrent user: user_id=alice; username=Alice. "
    f"This run's task_id={TASK} (its thread; name your files after it)."
)


def run(
    request: str,
    sandbox: Sandbox | None = None,
    *,
    world: World | None = None,
    schemas: dict[str, dict[str, Any]] | None = None,
) -> tuple[World, Sandbox, list[Any]]:
    sandbox = sandbox or Sandbox()
    world = world or World()
    world.extra = {**sandbox.handlers(), **world.extra}
    messages = converse(
        "analyst",
        request,
        world,
        system=SYSTEM,
        max_turns=40,
        tools_extra=EXTRA_TOOLS,
        schemas=schemas,
    )
    return world, sandbox, messages


def detail_turns(messages: list[Any]) -> list[list[dict[str, Any]]]:
    """The arguments of each turn's part detail reads (by part_id or part_ids)."""
    turns = []
    for m in messages:
        if isinstance(m, AIMessage):
            reads = [c["args"] for c in m.tool_calls if c["name"] == "part_query"
                     and {"part_id", "part_ids"} & set(c["args"])]  # fmt: skip
            if reads:
                turns.append(reads)
    return turns


def test_five_stages_produce_the_report_with_sources_and_charts() -> None:
    world, sandbox, messages = run("帮我对链轮做供应商比价分析")
    names = [n for n, _ in world.calls]
    # Stage order: skills, ERP data, quote URLs, fetches, script, charts, report.
    for earlier, later in [("ls", "part_query"), ("part_query", "grep"), ("grep", "fetch_url"),
                           ("fetch_url", "write_file"), ("write_file", "execute"),
                           ("execute", "generate_visualization")]:  # fmt: skip
        assert names.index(earlier) < names.index(later), (earlier, later)
    report_write = next(
        i
        for i, (n, a) in enumerate(world.calls)
        if n == "write_file" and a["file_path"].startswith("/analysis/")
    )
    assert names.index("generate_visualization") < report_write
    # Only the category the request named: 链轮 (SK), not 后视镜.
    # Both of its parts' details in one batched read (the tool takes part_ids).
    details = [a for n, a in world.calls if n == "part_query" and {"part_id", "part_ids"} & set(a)]
    assert details == [{"part_ids": [101, 102]}]
    result = json.loads(sandbox.files["/data/analysis_result.json"])
    part = result["parts"][0]
    assert part["sku"] == "SK-ACME-428"  # the part most suppliers offer comes first
    rows = {r["supplier_code"]: r for r in part["suppliers"]}
    assert rows["ACME"]["contract_price"] == 25.0 and rows["ZENITH"]["contract_price"] == 24.0
    assert rows["ACME"]["web"]["tiers"] == [
        {"min_qty": 10, "unit_price": 23.1},
        {"min_qty": 100, "unit_price": 21.9},
    ]
    assert rows["ZENITH"]["web"]["status"] == "out_of_stock"
    assert rows["ACME"]["history"]["avg_paid_price"] == 25.25  # (100*24.50 + 300*25.50) / 400
    assert rows["ACME"]["history"]["trend"] == "rising"
    # Named after the day and the task: a second analysis never overwrites it.
    stem = f"report_{result['generated_at'].replace('-', '')}_c2d1e0f9"
    report = sandbox.files[f"/analysis/{stem}.md"]
    assert report == sandbox.files[f"/reports/alice/{stem}.md"]
    for url in URLS.values():
        assert re.search(r"\d+\. " + re.escape(url), report)  # numbered source
    assert 2 <= len(sandbox.charts) <= 4
    # Charts are saved beside the report and in the archive, and linked relatively.
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
    assert images == [f"charts/{stem}_{n}.png" for n in range(1, len(sandbox.charts) + 1)]
    for image in images:
        assert f"/analysis/{image}" in sandbox.files and f"/reports/alice/{image}" in sandbox.files
    assert f"/reports/alice/{stem}.pdf" in sandbox.files  # exported, archived
    assert f"[{stem}.md]({stem}.md)" in sandbox.files["/reports/alice/index.md"]
    final = messages[-1]
    assert isinstance(final, AIMessage) and not final.tool_calls
    text = str(final.content)
    assert f"/reports/alice/{stem}.md" in text
    # The charts as images the client can reach, each its own paragraph.
    shown = re.findall(r"(?<=\n\n)!\[[^\]]*\]\((\S+)\)\n(?=\n)", text)
    assert shown == [f"/artifacts/t-1/analysis/{image}" for image in images]
    assert "127.0.0.1" not in text


def test_a_large_category_is_read_in_batches_of_twenty_in_one_turn() -> None:
    # 45 sprockets: the policy reads at most 40 candidates' details, then analyses the
    # ones most suppliers offer (here 428 and 520, the only ones with two offers).
    extra = [
        {**PARTS[0], "id": 300 + n, "sku": f"SK-ACME-{600 + n}", "model": str(600 + n),
         "name_zh": f"艾克米 链轮 {600 + n}", "name_en": f"Acme Sprocket {600 + n}"}
        for n in range(43)
    ]  # fmt: skip
    offers = {**OFFERS, **{p["id"]: [offer(p["id"], SUPPLIERS[0], 5000)] for p in extra}}
    offers[102] = [*OFFERS[102], offer(102, SUPPLIERS[1], 3000)]
    world = World(parts=[*PARTS, *extra], offers=offers)
    _, sandbox, messages = run("帮我对链轮做供应商比价分析", world=world)
    listed = [101, 102, *(p["id"] for p in extra)][:40]
    [batches] = detail_turns(messages)  # one turn, and no part read one by one
    assert [len(b["part_ids"]) for b in batches] == [20, 20]
    assert [i for b in batches for i in b["part_ids"]] == listed
    result = json.loads(sandbox.files["/data/analysis_result.json"])
    assert [p["sku"] for p in result["parts"]][:2] == ["SK-ACME-428", "SK-ACME-520"]
    # Every part analysed carries the offers its batched record gave.
    for part in result["parts"]:
        pid = next(p["id"] for p in world.parts if p["sku"] == part["sku"])
        assert {r["supplier_code"] for r in part["suppliers"]} == {
            o["supplier_code"] for o in offers[pid]
        }
    assert result["selection"]["candidates"] == 40 and result["selection"]["in_category"] == 45


def test_a_part_query_without_part_ids_is_read_part_by_part() -> None:
    # Another ERP client's part_query: its schema lists its parameters, no part_ids.
    schema = {k: {"type": "integer"} for k in ("part_id", "supplier_id", "page", "size")}
    schema["category"] = {"type": "string"}
    world, sandbox, _ = run("帮我对链轮做供应商比价分析", schemas={"part_query": schema})
    details = [a for n, a in world.calls if n == "part_query" and {"part_id", "part_ids"} & set(a)]
    assert details == [{"part_id": 101}, {"part_id": 102}]
    # The single answers are understood: the same numbers as from a batch.
    rows = {
        r["supplier_code"]: r
        for r in json.loads(sandbox.files["/data/analysis_result.json"])["parts"][0]["suppliers"]
    }
    assert rows["ACME"]["contract_price"] == 25.0 and rows["ZENITH"]["contract_price"] == 24.0


def test_a_part_the_batch_says_is_missing_is_left_out_not_asked_again() -> None:
    erp = World()  # answers as usual; the batch then loses 102 (deleted meanwhile)

    def without_520(args: dict[str, Any]) -> Any:
        found = json.loads(erp.answer("part_query", args)[0])
        if "part_ids" in args:
            found["items"] = [p for p in found["items"] if p["id"] != 102]
            found["missing"] = [102]
        return found

    world = World()
    world.extra = {"part_query": without_520}
    _, sandbox, messages = run("帮我对链轮做供应商比价分析", world=world)
    assert detail_turns(messages) == [[{"part_ids": [101, 102]}]]
    result = json.loads(sandbox.files["/data/analysis_result.json"])
    assert [p["sku"] for p in result["parts"]] == ["SK-ACME-428"]


def test_a_second_analysis_is_filed_beside_the_first() -> None:
    sandbox = Sandbox()
    run("帮我对链轮做供应商比价分析", sandbox)
    global SYSTEM
    first = SYSTEM
    try:
        SYSTEM = first.replace(TASK, "0f1e2d3c-4b5a-6978-8695-00000000beef")
        run("帮我对链轮做供应商比价分析", sandbox)
    finally:
        SYSTEM = first
    archived = sorted(p for p in sandbox.files if re.fullmatch(r"/reports/alice/report_\w+\.md", p))
    # Tasks started together share their ids' first digits (UUID v7): named by the last.
    assert [p.rsplit("_", 1)[-1] for p in archived] == ["0000beef.md", "c2d1e0f9.md"]
    index = sandbox.files["/reports/alice/index.md"]
    assert index.index("0000beef.md") < index.index("c2d1e0f9.md")  # newest first


def test_a_resolved_scope_reads_only_its_category() -> None:
    body = "【分析需求正文】帮我做供应商比价分析\n【分析范围】" + '{"categories": ["SK"]}'
    world, sandbox, _ = run(body)
    listed = [
        a for n, a in world.calls if n == "part_query" and not {"part_id", "part_ids"} & set(a)
    ]
    assert listed and all(a.get("category") == "SK" for a in listed)
    result = json.loads(sandbox.files["/data/analysis_result.json"])
    assert result["category"]["code"] == "SK" and result["scope"] == {"categories": ["SK"]}


def test_english_request_for_another_category() -> None:
    _, sandbox, messages = run("Please compare the suppliers of mirrors")
    result = json.loads(sandbox.files["/data/analysis_result.json"])
    assert [p["sku"] for p in result["parts"]] == ["MR-ZEN-M8"]
    assert "Analysis complete" in str(messages[-1].content)


def test_unknown_category_lists_the_erps_categories_and_fails() -> None:
    world, sandbox, messages = run("帮我分析一下雨刷的价格")
    assert "execute" not in [n for n, _ in world.calls]
    text = str(messages[-1].content)
    assert "链轮" in text and "后视镜" in text
    # The reason is kept, and the answer carries the marker that ends the run in error.
    assert "ANALYSIS_FAILED[no_category]:" in text
    [kept] = [p for p in sandbox.files if p.startswith("/analysis/failed_")]
    assert not [p for p in sandbox.files if p.startswith("/analysis/report_")]
    assert "链轮" in sandbox.files[kept]


def test_a_failing_erp_read_stops_the_analysis_with_its_error() -> None:
    sandbox = Sandbox()
    handlers = sandbox.handlers()
    handlers["part_query"] = lambda args: "Error from erp.part_query: the ERP is unreachable"
    world = World(extra=handlers)
    messages = converse("analyst", "帮我对链轮做供应商比价分析", world, max_turns=10)
    assert [n for n, _ in world.calls].count("part_query") == 1
    assert "the ERP is unreachable" in str(messages[-1].content)
    assert "ANALYSIS_FAILED[data_unavailable]:" in str(messages[-1].content)


class RacingSandbox(Sandbox):
    """Another analysis of the same user, which also found no index, writes its own index
    just after this one's write: the later write holds only the other report's line."""

    OTHER = "| 2026-12-01 | [report_20261201_0000cafe.md](report_20261201_0000cafe.md) | x | y |"

    def write(self, args: dict[str, Any]) -> str:
        answer = super().write(args)
        path = args["file_path"]
        if path.endswith("/index.md") and not getattr(self, "raced", False):
            self.raced = True
            head = args["content"].split("| 20", 1)[0]
            self.files[path] = head + self.OTHER + "\n"
        return answer


def test_an_index_written_over_by_another_analysis_gets_the_line_back() -> None:
    sandbox = RacingSandbox()
    world, _, messages = run("帮我对链轮做供应商比价分析", sandbox)
    index = sandbox.files["/reports/alice/index.md"]
    assert "0000cafe.md" in index  # the other analysis' line is kept
    mine = re.findall(r"\[(report_\d+_c2d1e0f9\.md)\]", index)
    assert len(mine) == 1, index  # this one's line is back, once
    index_path = "/reports/alice/index.md"
    writes = [a for n, a in world.calls if n == "write_file" and a["file_path"] == index_path]
    assert len(writes) == 1  # never written over again: inserted by an edit
    assert isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls


class IndexMadeMeanwhile(Sandbox):
    """Another analysis of the same user files its report just after this one found no
    index: this one's write of a new index is refused (the archive never replaces a file)."""

    def read(self, args: dict[str, Any]) -> str:
        answer = super().read(args)
        path = args["file_path"]
        if path.endswith("/index.md") and path not in self.files:
            self.files[path] = f"{INDEX_HEAD}{RacingSandbox.OTHER}\n"
        return answer


def test_an_index_another_analysis_made_first_gets_the_line_by_an_edit() -> None:
    sandbox = IndexMadeMeanwhile()
    world, _, messages = run("帮我对链轮做供应商比价分析", sandbox)
    index = sandbox.files["/reports/alice/index.md"]
    assert index.startswith(INDEX_HEAD) and "0000cafe.md" in index  # the other line kept
    assert len(re.findall(r"\[(report_\d+_c2d1e0f9\.md)\]", index)) == 1, index
    index_calls = [n for n, a in world.calls if a.get("file_path") == "/reports/alice/index.md"]
    assert index_calls == ["read_file", "write_file", "read_file", "edit_file"]
    assert isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls
    assert "write_file" not in str(messages[-1].content)  # the refused write is no problem


def test_an_index_that_kept_the_line_is_not_edited_again() -> None:
    world, sandbox, _ = run("帮我对链轮做供应商比价分析")
    index_calls = [n for n, a in world.calls if a.get("file_path") == "/reports/alice/index.md"]
    # Read with the report, written (no index yet), read back once, nothing more.
    assert index_calls == ["read_file", "write_file", "read_file"]
    assert sandbox.files["/reports/alice/index.md"].count("c2d1e0f9.md)") == 1


class ServerSandbox(Sandbox):
    """Reads as deepagents answers them within its size budget: the result whole, the
    URL map by offset and limit, ``grep`` with each match's real line number."""

    def read(self, args: dict[str, Any]) -> str:
        path = args["file_path"]
        if path == URL_MAP:
            lines = MAPPING.splitlines()
            start, limit = int(args.get("offset", 0)), int(args.get("limit", 100))
            shown = lines[start : start + limit]
            head = f"@@ lines {start + 1}-{start + len(shown)} of {len(lines)} @@"
            return "\n".join([head, *shown])
        if path == "/data/analysis_result.json" and path in self.files:
            return self.window(self.files[path], int(args.get("offset", 0)), size=100_000)
        return super().read(args)

    def grep(self, args: dict[str, Any]) -> str:
        hits = [f"  {n}: {line}" for n, line in enumerate(MAPPING.splitlines(), 1)
                if args["pattern"] in line]  # fmt: skip
        return "\n".join([f"{URL_MAP}:", *hits]) if hits else "No matches found"


class FailingSave(ServerSandbox):
    """The second chart cannot be saved."""

    def save_chart(self, args: dict[str, Any]) -> str:
        if args["url"].endswith("/2.png"):
            return "Error: save_chart could not fetch the chart"
        return super().save_chart(args)


class ChartServerDown(ServerSandbox):
    def chart(self, args: dict[str, Any]) -> str:
        return "Error: generate_visualization: the chart server is unreachable"


def turns(messages: list[Any]) -> list[list[str]]:
    """Each model turn's tool names, the final answer an empty turn."""
    return [[c["name"] for c in m.tool_calls] for m in messages if isinstance(m, AIMessage)]


def test_a_standard_analysis_takes_twelve_model_turns() -> None:
    # Each model turn costs the Agent Server a whole step (middleware, a checkpoint of the
    # thread, the stream; issue 18): calls that need nothing from each other share one.
    # Skills + catalogue, details, URL lookup + suppliers + orders + script, URL entries,
    # quote pages, input, execute, result, charts + index, saves + report, exports, and
    # the final answer: 12 model calls (17 before calls were merged).
    world, sandbox, messages = run("帮我对链轮做供应商比价分析", ServerSandbox())
    assert len(turns(messages)) == 12, turns(messages)
    assert turns(messages)[-1] == []
    # Every call of the analysis was made, each once (no call traded for a turn).
    names = [n for n, _ in world.calls]
    assert names.count("supplier_query") == 1 and names.count("execute") == 1
    assert names.count("fetch_url") == 2 and names.count("save_chart") == len(sandbox.charts)
    assert names.count("export_report") == 1
    stem = next(p for p in sandbox.files if re.fullmatch(r"/reports/alice/report_\w+\.md", p))
    assert f"{stem[:-3]}.pdf" in sandbox.files
    assert sandbox.files["/reports/alice/index.md"].count("c2d1e0f9.md)") == 1
    # The quote URLs came from the entries read at grep's line numbers, not the head.
    result = json.loads(sandbox.files["/data/analysis_result.json"])
    assert {s["url"] for s in result["sources"] if "url" in s} >= set(URLS.values())


def _written(name: str, args: dict[str, Any]) -> set[str]:
    if name in ("write_file", "edit_file"):
        return {args["file_path"]}
    if name == "save_chart":
        return set(args["paths"])
    return set()


def _read(name: str, args: dict[str, Any]) -> set[str]:
    if name == "read_file":
        return {args["file_path"]}
    if name in ("export_report", "download_artifact"):
        return {args["path"]}
    if name == "execute":
        return {"/data/analysis_input.json", "/data/analyze.py"}
    return set()


def test_no_call_needs_a_file_written_in_its_own_turn() -> None:
    # The tool node runs one message's calls concurrently: a file read, exported, linked
    # or run in the turn that writes it would be read before it exists.
    for request, sandbox in [
        ("帮我对链轮做供应商比价分析", ServerSandbox()),
        ("Please compare the suppliers of mirrors", ServerSandbox()),
        ("帮我对链轮做供应商比价分析", FailingSave()),
        ("Please compare the suppliers of sprockets", ChartServerDown()),
        ("帮我对链轮做供应商比价分析", RacingSandbox()),
    ]:
        _, _, messages = run(request, sandbox)
        for m in messages:
            if isinstance(m, AIMessage) and m.tool_calls:
                calls = [(c["name"], c["args"]) for c in m.tool_calls]
                for i, (name, args) in enumerate(calls):
                    others = [_written(n, a) for j, (n, a) in enumerate(calls) if j != i]
                    clash = set().union(*others) & (_read(name, args) | _written(name, args))
                    assert not clash, (request, [n for n, _ in calls])


def test_a_chart_that_could_not_be_saved_is_left_out_of_the_exported_report() -> None:
    world, sandbox, messages = run("帮我对链轮做供应商比价分析", FailingSave())
    stem = next(p for p in sandbox.files if re.fullmatch(r"/analysis/report_\w+\.md", p))[:-3]
    report = sandbox.files[f"{stem}.md"]
    assert report == sandbox.files[stem.replace("/analysis/", "/reports/alice/") + ".md"]
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
    assert len(images) == len(sandbox.charts) - 1 and not any(i.endswith("_2.png") for i in images)
    for image in images:
        assert f"/analysis/{image}" in sandbox.files
    # The exports read the report as it was last written: after the rewrite.
    names = [n for n, a in world.calls]
    last_write = max(i for i, (n, a) in enumerate(world.calls)
                     if n == "write_file" and a["file_path"] == f"{stem}.md")  # fmt: skip
    assert names.index("export_report") > last_write
    text = str(messages[-1].content)
    assert "save_chart could not fetch the chart" in text
    assert "_2.png" not in text


def test_with_the_chart_server_down_the_report_is_still_written_and_filed() -> None:
    world, sandbox, messages = run("Please compare the suppliers of sprockets", ChartServerDown())
    assert "save_chart" not in [n for n, _ in world.calls]
    stem = next(p for p in sandbox.files if re.fullmatch(r"/reports/alice/report_\w+\.md", p))
    assert f"{stem[:-3]}.pdf" in sandbox.files
    assert sandbox.files["/reports/alice/index.md"].count("c2d1e0f9.md)") == 1
    assert "No charts (chart server unavailable)." in str(messages[-1].content)


def _scoped(scope: dict[str, Any]) -> tuple[World, Sandbox, dict[str, Any], str]:
    body = "【分析需求正文】帮我做链轮的供应商比价分析\n【分析范围】" + json.dumps(scope)
    world, sandbox, _ = run(body)
    result = json.loads(sandbox.files["/data/analysis_input.json"])  # what was compared
    [report] = [t for p, t in sandbox.files.items() if re.fullmatch(r"/analysis/report_\w+\.md", p)]
    return world, sandbox, result, report


def test_a_supplier_left_out_is_not_compared_or_fetched() -> None:
    world, _, result, report = _scoped({"categories": ["SK"], "excluded": ["ZENITH"]})
    codes = {o["supplier_code"] for p in result["parts"] for o in p["offers"]}
    assert codes == {"ACME"}, result["parts"]
    fetched = [a["url"] for n, a in world.calls if n == "fetch_url"]
    assert URLS["ACME"] in fetched and URLS["ZENITH"] not in fetched
    assert "不含 ZENITH" in report, report


def test_domestic_suppliers_only() -> None:
    _, _, result, report = _scoped({"categories": ["SK"], "origin": "domestic"})
    codes = {o["supplier_code"] for p in result["parts"] for o in p["offers"]}
    assert codes == {"ZENITH"}, result["parts"]  # the one in CN
    assert "只看国内供应商" in report, report


def test_several_parts_named_are_the_ones_analysed() -> None:
    result = _scoped({"categories": ["SK"], "parts": ["SK-ACME-520"]})[2]
    assert [p["sku"] for p in result["parts"]] == ["SK-ACME-520"]
    two = _scoped({"categories": ["SK"], "parts": ["SK-ACME-428", "SK-ACME-520"]})[2]
    assert sorted(p["sku"] for p in two["parts"]) == ["SK-ACME-428", "SK-ACME-520"]
