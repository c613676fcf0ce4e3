"""Model selection: ``MODEL`` / ``SUMMARY_MODEL`` strings to chat models, or the offline planner.

``provider:model`` strings go through ``init_chat_model`` (``deepseek:deepseek-v4-pro``,
``openai:gpt-4.1``, any OpenAI-compatible endpoint via ``OPENAI_BASE_URL``). With no
key for the configured provider, or ``MODEL=offline``, every agent runs on the
offline planner (:mod:`graphs.offline`), announced once in the log.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any, Literal

from graphs.settings import GraphSettings, get_settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from graphs.offline import PolicyName

__all__ = ["announce_model_choice", "is_offline", "main_model", "resolve_model", "summary_model"]

logger = logging.getLogger(__name__)

# The variable each known provider reads its key from; an unknown provider is
# trusted to find its own credentials (init_chat_model raises if it can't).
_KEY_ENV = {
    "deepseek": "DEEPSEEK_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google_genai": "GOOGLE_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistralai": "MISTRAL_API_KEY",
}
_OFFLINE_NAMES = {"offline", "offline:planner", "offline-planner"}
_announced = False


def _split(model: str) -> tuple[str, str]:
    provider, sep, name = model.partition(":")
    if not sep:
        msg = f"MODEL/SUMMARY_MODEL must be 'provider:model', got {model!r}"
        raise ValueError(msg)
    return provider.strip().lower(), name.strip()


def _has_key(provider: str, settings: GraphSettings) -> bool:
    if provider == "deepseek":
        return settings.deepseek_api_key is not None and bool(
            settings.deepseek_api_key.get_secret_value()
        )
    if provider == "openai":
        # A local OpenAI-compatible server (vLLM, Ollama) may need no key at all.
        has_key = settings.openai_api_key is not None and bool(
            settings.openai_api_key.get_secret_value()
        )
        return has_key or settings.openai_base_url is not None
    env = _KEY_ENV.get(provider)
    return True if env is None else bool(os.environ.get(env))


def is_offline(settings: GraphSettings | None = None) -> bool:
    """Whether the main model resolves to the offline planner under ``settings``."""
    settings = settings or get_settings()
    if settings.model.strip().lower() in _OFFLINE_NAMES:
        return True
    provider, _ = _split(settings.model)
    return not _has_key(provider, settings)


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
    spec = settings.model if which == "main" else settings.summary_model
    provider, name = _split(spec)
    if not _has_key(provider, settings):
        # The main model is configured but the summary one is not: fall back to the main one.
        provider, name = _split(settings.model)
    kwargs: dict[str, Any] = {"temperature": settings.model_temperature}
    if provider == "deepseek":
        if settings.deepseek_api_key is not None:
            kwargs["api_key"] = settings.deepseek_api_key.get_secret_value()
        if settings.deepseek_base_url:
            kwargs["api_base"] = settings.deepseek_base_url
    elif provider == "openai":
        kwargs["api_key"] = (
            settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
        )
        if settings.openai_base_url:
            kwargs["base_url"] = settings.openai_base_url
            # OpenAI-compatible servers speak chat completions, not the Responses API.
            kwargs["use_responses_api"] = False
    from langchain.chat_models import init_chat_model

    return init_chat_model(f"{provider}:{name}", **kwargs)


def main_model(policy: PolicyName, settings: GraphSettings | None = None) -> BaseChatModel:
    """The model an agent reasons with (``MODEL``)."""
    return resolve_model("main", policy=policy, settings=settings)


def summary_model(
    policy: PolicyName = "summary", settings: GraphSettings | None = None
) -> BaseChatModel:
    """The cheaper model for summaries and memory extraction (``SUMMARY_MODEL``)."""
    return resolve_model("summary", policy=policy, settings=settings)
