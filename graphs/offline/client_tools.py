"""Which tool a JSON-RPC client lent the agent fits a request, and with which arguments.

A client tool is known to the planner only by its name, description and JSON schema
(it reaches ``bind_tools`` as a plain schema, never as a graph tool). The rule is
general: the request must name what the tool is about, i.e. a word of the tool's name
other than a generic verb or noun (``fetch_bom_tool`` → ``bom``), an acronym of its
description (``(BOM)``), or at least two content words or Chinese word pairs of its
description. Arguments come from the schema: string parameters take the identifiers
written in the request (``P-100``), numbers its numbers, free-text parameters the
request itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ClientToolMatch", "build_arguments", "match_client_tool"]

# Words that say nothing about *what* a tool provides.
_GENERIC_WORDS = """
    a an the of for to in on at by with from and or is are be this that it its my your our
    tool tools get fetch query list run call do make set read write search find lookup look
    load show client api data info information value values result results item items thing
    return returns given use using via current new one all any some each
"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
_CJK_GENERIC = frozenset(
    ("查询", "获取", "一下", "信息", "数据", "工具", "客户", "系统", "返回", "使用", "请求", "内容")
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b", re.ASCII)
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
# An identifier: letters and digits together, optionally joined by - _ . / (P-100, IU7, PO2025-1).
# ASCII classes: a Chinese character right before or after an id ends it (查一下P-100的BOM).
_IDENT = re.compile(
    r"(?<![\w-])(?=[\w./-]*\d)(?=[\w./-]*[A-Za-z])[A-Za-z0-9]+(?:[-_./][A-Za-z0-9]+)*", re.ASCII
)
_QUOTED = re.compile(r"[\"“「『']([^\"”」』']{1,200})[\"”」』']")
_NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?(?![\w-])", re.ASCII)
_FREE_TEXT = re.compile(r"query|question|text|message|prompt|keyword|keywords|q$|input|request")


def _split_name(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ies", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _cjk_pairs(text: str) -> set[str]:
    pairs: set[str] = set()
    for run in _CJK_RUN.findall(text):
        pairs.update(run[i : i + 2] for i in range(len(run) - 1))
    return pairs - _CJK_GENERIC


@dataclass(frozen=True)
class ClientToolMatch:
    """A client tool that fits the request, and why (the terms it shares with it)."""

    name: str
    score: int
    terms: tuple[str, ...]


def _score(request: str, name: str, description: str) -> ClientToolMatch | None:
    words = {_stem(w) for w in _WORD.findall(request)}
    key = {_stem(w) for w in _split_name(name)} - _GENERIC
    key |= {_stem(a) for a in _ACRONYM.findall(description)} - _GENERIC
    strong = sorted(t for t in key if t in words)
    content = {
        _stem(w) for w in _WORD.findall(description) if len(w) >= 4 and w.lower() not in _GENERIC
    } - key
    weak = sorted(t for t in content if t in words)
    weak += sorted(p for p in _cjk_pairs(description) if p in request)
    if not strong and len(weak) < 2:
        return None
    return ClientToolMatch(name, 3 * len(strong) + len(weak), tuple(strong + weak))


def match_client_tool(
    request: str, tools: Mapping[str, Mapping[str, Any]]
) -> ClientToolMatch | None:
    """The client tool (``name → {"description", "parameters"}``) the request asks for, if any."""
    best: ClientToolMatch | None = None
    for name, spec in tools.items():
        found = _score(request, name, str(spec.get("description") or ""))
        if found is not None and (best is None or found.score > best.score):
            best = found
    return best


def _identifiers(request: str) -> list[str]:
    """Quoted strings first, then ids made of letters and digits, each once, in order."""
    seen: list[str] = []
    found = [m.group(1).strip() for m in _QUOTED.finditer(request)]
    found += [m.group(0).rstrip("./-_") for m in _IDENT.finditer(request)]
    for ident in found:
        if ident and ident not in seen:
            seen.append(ident)
    return seen


def _ident_score(param: str, schema: Mapping[str, Any], ident: str) -> int:
    """How well ``ident`` fits a parameter: a word of its name or description starts like it."""
    prefix = re.match(r"[A-Za-z]+", ident)
    if prefix is None:
        return 0
    hint = re.split(r"[\W_]+", f"{param} {schema.get('description') or ''}".lower())
    return int(any(word.startswith(prefix.group(0).lower()) for word in hint if word))


def build_arguments(request: str, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Arguments for a tool of JSON ``schema`` from the request; and the required ones missing.

    Required parameters are always attempted; optional ones are filled only from an
    identifier or number the request actually contains.
    """
    props: Mapping[str, Any] = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if p in props]
    order = required + [p for p in props if p not in required]
    idents = _identifiers(request)
    numbers = [n for n in _NUMBER.findall(request) if not any(n in i for i in idents)]
    args: dict[str, Any] = {}
    missing: list[str] = []
    for param in order:
        spec = props[param] if isinstance(props[param], Mapping) else {}
        kind = spec.get("type", "string")
        must = param in required
        value: Any = None
        if isinstance(spec.get("enum"), list) and spec["enum"]:
            value = next((e for e in spec["enum"] if str(e).lower() in request.lower()), None)
        elif kind == "string":
            if _FREE_TEXT.search(param.lower()):
                value = request.strip() if must else None
            elif idents:
                best = max(idents, key=lambda i: _ident_score(param, spec, i))
                idents.remove(best)
                value = best
        elif kind in ("integer", "number") and numbers:
            raw = numbers.pop(0)
            value = int(float(raw)) if kind == "integer" else float(raw)
        elif kind == "boolean" and must:
            value = bool(spec.get("default", False))
        if value is None and "default" in spec and must:
            value = spec["default"]
        if value is not None:
            args[param] = value
        elif must:
            missing.append(param)
    return args, missing
