"""What the order agent knows so far: the buyer's words, their answers, the ERP's replies."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from graphs.offline.entities import Grounding, ground
from graphs.offline.history import View
from graphs.offline.intent import Intent, read
from graphs.offline.policies.base import (
    ADDED_SECTION,
    Decision,
    blocked,
    request_body,
    say,
    section,
)
from graphs.offline.text import model_tokens, today_in
from graphs.orders.language import language_of
from graphs.orders.words import Lang

__all__ = ["Facts", "ask", "paged"]

Record = dict[str, Any]
# Pages small enough that no read is moved to a file unread (TOOL_RESULT_EVICT_TOKENS).
_PAGE = 50
_MAX_ASKS = 2
_READS = ("category_list", "supplier_query", "part_search", "part_by_supplier", "part_query",
          "order_search_details", "order_summary")  # fmt: skip
_SCOPE = re.compile(r"【分析范围】\s*(\{.*?\})", re.S)


def paged(view: View, tool: str, **match: Any) -> tuple[list[Record], dict[str, Any] | None]:
    """Every item of ``tool``'s pages read with exactly ``match``, and the next page's args."""
    return view.paged(tool, _PAGE, **match)


@dataclass
class Facts:
    """The request, the buyer's answers to questions, and the ERP data read so far."""

    view: View
    body: str = ""
    zh: bool = True
    answers: dict[str, Any] = field(default_factory=dict)
    answer_text: str = ""
    intent: Intent = "order_create"

    @classmethod
    def of(cls, view: View) -> Facts:
        """Read the conversation: the delegated request, then every answer given since."""
        body = request_body(view.request)
        facts = cls(view=view, body=body, zh=(language_of(view.request) or "zh") == "zh")
        texts: list[str] = []
        for result in reversed(view.called("request_order_info")):  # the newest answer first
            data = result.data()
            if isinstance(data, dict) and isinstance(data.get("answers"), dict):
                facts.answers.update({str(k).lower(): v for k, v in data["answers"].items()})
            elif isinstance(data, dict) and "answer" in data:
                texts.append(str(data["answer"]))
            else:
                texts.append(result.content)
        added = section(view.request, ADDED_SECTION.strip("【】"))
        facts.answer_text = "\n".join([*texts, added] if added else texts)
        facts.intent = _delegated_intent(view.request) or read(body).intent
        return facts

    def read(self, tool: str, args: dict[str, Any]) -> Any:
        """The data of the newest ``tool(args)`` read made since the request (None: not made
        yet, or it failed)."""
        return self.view.latest(tool, args)

    def as_written(self, start: int, end: int) -> str:
        """``body[start:end]`` in the buyer's own characters (a note written in Traditional
        stays Traditional); the Simplified reading when the two do not line up."""
        written = request_body(self.view.written) if self.view.traditional else ""
        if len(written) == len(self.body):
            return written[start:end]
        return self.body[start:end]

    @property
    def today(self) -> Any:
        """Today, as the prompt says (else the machine's date)."""
        return today_in(self.view.system)

    @property
    def text(self) -> str:
        """The request with the buyer's answers after it (answers come later, so they win)."""
        extra = " ".join(str(v) for v in self.answers.values())
        return f"{self.body}\n{self.answer_text}\n{extra}".strip()

    @property
    def lang(self) -> Lang:
        """The buyer's language, as the order controls name it."""
        return "zh" if self.zh else "en"

    @property
    def answered(self) -> bool:
        """Whether the buyer has answered a question of this agent since the request."""
        return bool(self.answers or self.answer_text.strip())

    def say(self, chinese: str, english: str) -> str:
        """The sentence in the buyer's language."""
        return say(self.zh, chinese, english)

    def answer(self, *keys: str) -> Any:
        """The buyer's answer for the first of ``keys`` they answered."""
        for key in keys:
            if key in self.answers and self.answers[key] not in (None, ""):
                return self.answers[key]
        return None

    def failed_read(self) -> Decision | None:
        """The final answer when an ERP read of the last turn failed."""
        return blocked([r for r in self.view.last_turn() if r.name in _READS], self.zh)

    def categories(self) -> list[Record] | None:
        """The ERP's categories as the newest ``category_list`` read gave them (None: not
        read yet)."""
        listed = [d for _, d in self.view.iter_data("category_list")]
        if not listed:
            return None
        data = listed[-1]
        return [c for c in data.get("items") or [] if isinstance(c, dict)] if isinstance(
            data, dict) else []  # fmt: skip

    def master_data(self) -> tuple[Grounding, list[Record], Decision | None]:
        """What the request names (from category, supplier and part reads), the suppliers, or
        the reads still to make."""
        view = self.view
        calls: list[tuple[str, dict[str, Any]]] = []
        categories: list[Record] = []
        if view.has_tool("category_list"):
            read = self.categories()
            if read is None:
                calls.append(("category_list", {}))
            categories = read or []
        suppliers, next_page = paged(view, "supplier_query", name="")
        if next_page is not None:
            calls.append(("supplier_query", next_page))
        parts: list[Record] = []
        for token in model_tokens(self.text):
            found = [d for r, d in view.iter_data("part_search") if r.args.get("name") == token]
            if found and isinstance(found[-1], dict):
                parts += [p for p in found[-1].get("items") or [] if isinstance(p, dict)]
            elif not found and view.has_tool("part_search"):
                calls.append(("part_search", {"name": token, "limit": 20}))
        if calls:
            step = Decision(
                self.say(
                    "在 ERP 中核对供应商和零件。", "Checking the supplier and part in the ERP."
                ),
                calls,
                note="read-master-data",
            )
            return Grounding(), suppliers, step
        grounded = ground(self.text, categories=categories, suppliers=suppliers, parts=parts)
        return grounded, suppliers, None


def _delegated_intent(text: str) -> Intent | None:
    """The intent the orchestrator wrote into the delegation, if it wrote one."""
    m = _SCOPE.search(text)
    if not m:
        return None
    try:
        data = json.loads(m.group(1))
    except json.JSONDecodeError:
        return None
    intent = data.get("intent") if isinstance(data, dict) else None
    known = ("order_create", "order_change", "order_cancel", "order_lookup")
    return intent if intent in known else None


def ask(
    facts: Facts, fields: list[str], question: str, options: list[str] | None = None
) -> Decision:
    """Ask the buyer (``request_order_info``), at most twice for the same fields."""
    asked = [r for r in facts.view.called("request_order_info") if r.args.get("fields") == fields]
    if len(asked) >= _MAX_ASKS:
        return Decision(
            facts.say(
                f"仍然缺少：{', '.join(fields)}。没有做任何改动；请补全信息后再说一次。",
                f"Still missing: {', '.join(fields)}. Nothing was changed; please ask again "
                "with these details.",
            ),
            note="gave-up",
        )
    args: dict[str, Any] = {"fields": fields, "question": question}
    if options:
        args["options"] = options
    return Decision(question, [("request_order_info", args)], note="ask:" + ",".join(fields))
