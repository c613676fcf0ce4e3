"""The graphs' models: :mod:`core.models`' choice, or the offline planner when it has none.

``MODEL`` / ``SUMMARY_MODEL`` are read and turned into chat models by :mod:`core.models`
(shared with the JSON-RPC adapter). What only the graphs add is the fallback: with no key
for the configured provider, or ``MODEL=offline``, every agent runs on the offline planner
(:mod:`graphs.offline`), announced once in the log.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

from core.models import chat_model, is_offline
from graphs.messages import INTERNAL_TAGS
from graphs.settings import GraphSettings, get_settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from graphs.offline import PolicyName

__all__ = [
    "announce_model_choice",
    "main_model",
    "resolve_model",
    "summary_model",
]


logger = logging.getLogger(__name__)

_announced = False


def announce_model_choice(settings: GraphSettings | None = None) -> None:
    """Say once, at start-up, which model the graphs will run on (reads settings only)."""
    settings = settings or get_settings()
    try:
        offline = is_offline(settings)
    except ValueError:
        logger.exception("MODEL is misconfigured")
        raise
    if offline:
        _announce(settings)
    else:
        logger.info(
            "Agents run on MODEL=%s (summaries: %s)", settings.model, settings.summary_model
        )


def _announce(settings: GraphSettings) -> None:
    global _announced
    if _announced:
        return
    _announced = True
    logger.warning(
        "OFFLINE PLANNER: no model key for MODEL=%s; the agents run on the deterministic "
        "offline planner (fixed policies, every message labelled). Set DEEPSEEK_API_KEY or "
        "OPENAI_API_KEY (and MODEL) to use a real model.",
        settings.model,
    )


def resolve_model(
    which: Literal["main", "summary"],
    *,
    policy: PolicyName,
    settings: GraphSettings | None = None,
) -> BaseChatModel:
    """The chat model for one agent; ``policy`` names the offline policy used without a key."""
    settings = settings or get_settings()
    if is_offline(settings):
        from graphs.offline import OfflinePlanner

        _announce(settings)
        return OfflinePlanner(policy=policy)
    return chat_model(which, settings)


def main_model(policy: PolicyName, settings: GraphSettings | None = None) -> BaseChatModel:
    """The model an agent reasons with (``MODEL``)."""
    return resolve_model("main", policy=policy, settings=settings)


def summary_model(
    policy: PolicyName = "summary", settings: GraphSettings | None = None
) -> BaseChatModel:
    """The cheaper model for summaries and memory extraction (``SUMMARY_MODEL``).

    Its calls are internal: tagged so that no ``messages`` stream carries them to a client.
    """
    model = resolve_model("summary", policy=policy, settings=settings)
    model.tags = [*(model.tags or []), *(t for t in INTERNAL_TAGS if t not in (model.tags or []))]
    return model
