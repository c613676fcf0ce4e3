"""Memory-extraction policy: which known suppliers a procurement exchange mentioned, and its query.

Protocol (the MemoryUpdate middleware writes the prompt): the newest message holds a
``KNOWN_SUPPLIERS:`` line with a JSON list of ``{code, name_zh, name_en}`` (from the
ERP) and a ``CONVERSATION:`` block. The answer is JSON
``{"suppliers": [names...], "query": "..." | null}``; small talk gives empty results.
"""

from __future__ import annotations

import json
import re

from graphs.messages import message_text, parse_json
from graphs.names import display_name, match_names
from graphs.offline.history import View
from graphs.offline.intent import read
from graphs.offline.policies.base import Decision

__all__ = ["decide"]

_KNOWN = re.compile(r"KNOWN_SUPPLIERS:\s*(\[.*?\])\s*$", re.M | re.S)
_CONVERSATION = re.compile(r"CONVERSATION:\s*(.*)\Z", re.S)
_USER_LINE = re.compile(r"^(?:human|user)\s*[:：]\s*(.+)$", re.I | re.M)


def decide(view: View) -> Decision:
    """Suppliers (by the ERP's names) and the buyer's query, as JSON."""
    text = message_text(view.last) if view.last is not None else ""
    known_match = _KNOWN.search(text)
    known = parse_json(known_match.group(1)) if known_match else None
    records = [r for r in known or [] if isinstance(r, dict)]
    conv_match = _CONVERSATION.search(text)
    conversation = conv_match.group(1) if conv_match else text
    users = _USER_LINE.findall(conversation)
    query = users[0].strip() if users else None
    meaningful = query is not None and read(query).intent not in ("small_talk", "out_of_scope")
    suppliers: list[str] = []
    if meaningful:
        for m in match_names(conversation, records, ("code", "name_zh", "name_en")):
            name = display_name(m.record)
            if name not in suppliers:
                suppliers.append(name)
    result = {"suppliers": suppliers, "query": query if meaningful else None}
    return Decision(json.dumps(result, ensure_ascii=False), note="memory")
