"""The main job of ``scripts/run``: a scripted tour of the ERP through its MCP server.

It talks to the running stack exactly as an agent does: MCP over streamable HTTP to
``mcp_erp``, which proxies the ERP's REST API. Each step prints a progress line with
the elapsed time. (The agents issue replaces this with the flagship analysis demo.)
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from typing import Any

from fastmcp import Client

from scripts.stack import _read_state

_T0 = time.monotonic()


def _say(msg: str) -> None:
    print(f"[demo {time.monotonic() - _T0:6.2f}s] {msg}", flush=True)


def _data(result: Any) -> Any:
    if result.structured_content is not None:
        sc = result.structured_content
        return sc.get("result", sc) if isinstance(sc, dict) and len(sc) == 1 else sc
    text = "".join(getattr(c, "text", "") for c in result.content)
    return json.loads(text) if text else None


async def tour(mcp_url: str) -> None:
    """Walk the ERP: suppliers, parts, offers, stock warnings, then one draft order."""
    async with Client(mcp_url) as client:
        tools = await client.list_tools()
        _say(f"connected to {mcp_url}: {len(tools)} tools ({', '.join(t.name for t in tools)})")

        sup = _data(await client.call_tool("supplier_query", {"name": "NGK"}))
        ngk = sup["items"][0]
        _say(f"supplier_query NGK → {ngk['code']} {ngk['name_zh']} ({ngk['status']})")

        parts = _data(await client.call_tool("part_search", {"name": "火花塞", "limit": 5}))
        _say(
            f"part_search 火花塞 → {parts['total']} matches; first: "
            + ", ".join(p["sku"] for p in parts["items"][:5])
        )

        offers = _data(
            await client.call_tool("part_by_supplier", {"supplier_id": ngk["id"], "size": 5})
        )
        _say(
            f"part_by_supplier {ngk['code']} → {offers['total']} parts; e.g. "
            + "; ".join(
                f"{p['sku']} {p['offer']['price']} {p['offer']['currency']} "
                f"MOQ {p['offer']['min_order_qty']}"
                for p in offers["items"][:3]
            )
        )

        warn = _data(await client.call_tool("inventory_warning", {"size": 5}))
        _say(
            f"inventory_warning → {warn['total']} parts below safety stock; worst: "
            + ", ".join(f"{w['sku']} (short {w['shortage']})" for w in warn["items"][:3])
        )

        first = offers["items"][0]
        key = f"demo-{uuid.uuid4().hex[:12]}"
        order = _data(
            await client.call_tool(
                "order_create",
                {
                    "idempotency_key": key,
                    "supplier_id": ngk["id"],
                    "lines": [
                        {"part_id": first["id"], "quantity": first["offer"]["min_order_qty"]}
                    ],
                    "note": "scripts/run demo order",
                },
            )
        )
        _say(
            f"order_create → {order['order_no']} {order['status']} total {order['total']} "
            f"{order['currency']} (version {order['version']})"
        )

        again = _data(
            await client.call_tool(
                "order_create",
                {
                    "idempotency_key": key,
                    "supplier_id": ngk["id"],
                    "lines": [
                        {"part_id": first["id"], "quantity": first["offer"]["min_order_qty"]}
                    ],
                    "note": "scripts/run demo order",
                },
            )
        )
        _say(f"order_create again with the same key → {again['order_no']} (no duplicate)")

        found = _data(
            await client.call_tool("order_search_details", {"order_no": order["order_no"]})
        )
        _say(
            f"order_search_details {order['order_no']} → {found['total']} order, "
            f"{len(found['items'][0]['lines'])} line(s)"
        )

        upd = _data(
            await client.call_tool(
                "order_update",
                {
                    "order_id": order["order_no"],
                    "expected_version": order["version"],
                    "status": "cancelled",
                },
            )
        )
        _say(f"order_update → {upd['order_no']} {upd['status']} (version {upd['version']})")
    _say("tour finished")


def main() -> int:
    state = _read_state()
    if not state or "erp-mcp" not in state.get("services", {}):
        print("[demo] the stack is not running: start it with scripts/stack up", file=sys.stderr)
        return 1
    mcp_url = state["services"]["erp-mcp"]["links"]["MCP"]
    asyncio.run(tour(mcp_url))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
