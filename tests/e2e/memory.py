"""Reading a user's memory (``/memories/<user_id>/preferences.md``) from the Store, as the
end-to-end tests check it: through the SDK's Store API."""

from __future__ import annotations

from typing import Any

from langgraph_sdk.client import LangGraphClient

from runstack.threads import poll

MEMORIES = ["files", "memories"]
"""The Store namespace of ``/memories/`` (keys are ``/<user_id>/<file>``)."""


async def preferences(client: LangGraphClient, user: str) -> str | None:
    """``user``'s preferences file in the Store, or ``None``."""
    try:
        item: Any = await client.store.get_item(MEMORIES, key=f"/{user}/preferences.md")
    except Exception:  # the SDK raises NotFound for a missing item
        return None
    if not item:
        return None
    return str(item["value"]["content"])


async def wait_for_memory(client: LangGraphClient, user: str, needle: str) -> str:
    """``user``'s preferences once they contain ``needle`` (memory is written after the run)."""

    last: list[str | None] = [None]

    async def holding() -> str | None:
        last[0] = await preferences(client, user)
        return last[0] if last[0] and needle in last[0] else None

    try:
        return await poll(holding, 30, f"{needle!r} in {user}'s preferences")
    except TimeoutError:
        raise AssertionError(
            f"{needle!r} never reached {user}'s preferences: {last[0]!r}"
        ) from None
