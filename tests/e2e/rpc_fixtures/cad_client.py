"""A CAD client over a real WebSocket, as the reference protocol's clients are: it lends a
BOM tool (``fetch_bom_tool``) and, optionally, a tool that applies changes to its BOM, and
answers every ``agent.toolCall`` for them with ``agent.submitToolResult``.

It keeps every tool call it was asked to run, so a test sees exactly what the agent did
to the client's document, and every frame it received, so a failure shows them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.rpc_fixtures.ws import RawRpc

BOM_TOOL_NAME = "fetch_bom_tool"
APPLY_TOOL_NAME = "apply_bom_changes"
BOM_TOOL: dict[str, Any] = {
    "name": BOM_TOOL_NAME,
    "description": "Fetch the bill of materials (BOM) of a product open in the CAD client",
    "parameters": {
        "type": "object",
        "properties": {
            "product": {
                "type": "string",
                "description": "product code; leave empty for the product open now",
            }
        },
    },
}
APPLY_TOOL: dict[str, Any] = {
    "name": APPLY_TOOL_NAME,
    "description": "Apply part replacements to the BOM open in the CAD client",
    "parameters": {
        "type": "object",
        "properties": {
            "changes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "line": {"type": "integer", "description": "BOM line number"},
                        "old_part": {"type": "string", "description": "the part on the line"},
                        "new_part": {"type": "string", "description": "the part to put there"},
                    },
                    "required": ["line", "old_part", "new_part"],
                },
            }
        },
        "required": ["changes"],
    },
}

UPDATE_TOOL: dict[str, Any] = {
    "name": "update_bom",
    "description": "Update the bill of materials: put other parts on BOM positions",
    "parameters": {
        "type": "object",
        "properties": {
            "replacements": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "position": {"type": "integer", "description": "BOM position"},
                        "from_part": {"type": "string", "description": "part number now there"},
                        "to_part": {"type": "string", "description": "part number to use"},
                    },
                    "required": ["position", "from_part", "to_part"],
                },
            },
            "reason": {"type": "string", "description": "why, for the change log"},
        },
        "required": ["replacements"],
    },
}
"""Another client's apply tool: other names for the same change."""

BomAnswer = Callable[[dict[str, Any]], tuple[bool, Any]]
"""What the client answers a BOM call with: ``(success, result)`` from the call's arguments."""


@dataclass
class CadClient:
    """One session of the CAD client; ``bom`` answers the BOM tool's calls; ``apply`` is the
    tool it lends for changing its BOM (none: it lends the BOM tool alone)."""

    rpc: RawRpc
    bom: BomAnswer
    apply: dict[str, Any] | None = field(default_factory=lambda: APPLY_TOOL)
    agent_id: str = "orchestrator"
    calls: list[dict[str, Any]] = field(default_factory=list)
    replies: list[dict[str, Any]] = field(default_factory=list)
    _ids: int = 0

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools this client lends."""
        return [BOM_TOOL, self.apply] if self.apply else [BOM_TOOL]

    def calls_of(self, name: str) -> list[dict[str, Any]]:
        """The ``agent.toolCall`` params for tool ``name``, in order."""
        return [c for c in self.calls if c["tool_name"] == name]

    async def register(self) -> dict[str, Any]:
        """``agent.register`` with this client's tools; the result."""
        reply = await self.rpc.request(
            "agent.register",
            {"client_id": "cad-client-19", "agent_id": self.agent_id, "tools": self.tools},
            wait=60,
        )
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    async def chat(self, message: str, *, wait: float = 180) -> dict[str, Any]:
        """``agent.chat``; runs the client tools the agent calls meanwhile; the reply."""
        return await self._drive("agent.chat", {"message": message}, wait)

    async def resume(self, params: dict[str, Any], *, wait: float = 180) -> dict[str, Any]:
        """``agent.resume`` with ``params``; runs the client tools called meanwhile; the reply."""
        return await self._drive("agent.resume", params, wait)

    def interrupts(self) -> list[dict[str, Any]]:
        """The ``agent.interrupt`` params received so far (they stay readable)."""
        return [m["params"] for m in self.rpc.notifications("agent.interrupt")]

    def shown(self) -> list[Any]:
        """Everything the person at the client was shown: the answers' text, the cards' text
        and their arguments (structured, as they came)."""
        shown: list[Any] = []
        for reply in self.replies:
            result = reply.get("result") or {}
            shown.append(str(result.get("content") or ""))
        for card in self.interrupts():
            shown.append(str(card.get("description") or ""))
            shown.append(card.get("args"))
            shown.append(card.get("actions"))
        for m in self.rpc.notifications("agent.response"):
            shown.append(str(m["params"].get("content") or ""))
        return shown

    async def _drive(self, method: str, params: dict[str, Any], wait: float) -> dict[str, Any]:
        self._ids += 1
        rid = f"{method}-{self._ids}"
        await self.rpc.send({"jsonrpc": "2.0", "method": method, "id": rid, "params": params})

        def mine(m: Any) -> bool:
            if not isinstance(m, dict):
                return False
            return m.get("method") == "agent.toolCall" or ("method" not in m and m.get("id") == rid)

        while True:
            m = await self.rpc.wait_for(mine, wait)
            if m.get("method") != "agent.toolCall":
                self.replies.append(m)
                return dict(m)
            await self._run_tool(m["params"])

    async def _run_tool(self, call: dict[str, Any]) -> None:
        self.calls.append(call)
        name = call["tool_name"]
        if name == BOM_TOOL_NAME:
            success, result = self.bom(call.get("arguments") or {})
        elif self.apply and name == self.apply["name"]:
            lists = [v for v in (call.get("arguments") or {}).values() if isinstance(v, list)]
            success, result = True, json.dumps({"applied": sum(map(len, lists))})
        else:
            success, result = False, f"this client has no tool {name}"
        answer = {
            "call_id": call["call_id"],
            "tool_name": name,
            "success": success,
            "result": result if success else None,
        }
        if not success:
            answer["error"] = str(result)
        reply = await self.rpc.request("agent.submitToolResult", answer)
        assert reply.get("result", {}).get("status") == "accepted", reply
