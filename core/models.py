"""Model selection every package may use: ``MODEL`` / ``SUMMARY_MODEL`` strings to chat models.

``provider:model`` strings go through ``init_chat_model`` (``deepseek:deepseek-v4-pro``,
``openai:gpt-4.1``, any OpenAI-compatible endpoint via ``OPENAI_BASE_URL``). Without a key
for the configured provider, or with ``MODEL=offline``, :func:`is_offline` says so; what
runs instead is the caller's business (the graphs run their offline planner, the JSON-RPC
adapter's batch-replace keeps to its deterministic rules). Nothing here connects: a chat
model is only built when asked for.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, Field, SecretStr

from core.settings import CommonSettings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["ModelSettings", "chat_model", "has_key", "is_offline", "split_model"]

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


class ModelSettings(CommonSettings):
    """Which models to use and how to reach them (DESIGN section 4, "Models").

    The model fields keep DESIGN's names (``MODEL``, ``SUMMARY_MODEL``,
    ``MODEL_TEMPERATURE``); keys and base URLs use each provider's own variable names,
    so a LangSmith deployment's secrets work unchanged.
    """

    model: str = Field(
        default="deepseek:deepseek-v4-pro",
        validation_alias=AliasChoices("MODEL", "model"),
        description="Main model as provider:model (deepseek:..., openai:..., offline).",
    )
    summary_model: str = Field(
        default="deepseek:deepseek-v4-flash",
        validation_alias=AliasChoices("SUMMARY_MODEL", "summary_model"),
        description="Cheaper model for summaries and memory extraction.",
    )
    model_temperature: float = Field(
        default=1.1,
        ge=0.0,
        le=2.0,
        validation_alias=AliasChoices("MODEL_TEMPERATURE", "model_temperature"),
    )
    deepseek_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("DEEPSEEK_API_KEY", "deepseek_api_key")
    )
    deepseek_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "DEEPSEEK_BASE_URL", "DEEPSEEK_API_BASE", "deepseek_base_url"
        ),
    )
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key")
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_BASE_URL", "OPENAI_API_BASE", "openai_base_url"),
        description="Any OpenAI-compatible endpoint (vLLM, Ollama, Qwen, Moonshot, ...).",
    )


def split_model(spec: str) -> tuple[str, str]:
    """``"provider:model"`` as ``(provider, model)``; ``ValueError`` for any other shape."""
    provider, sep, name = spec.partition(":")
    if not sep:
        msg = f"MODEL/SUMMARY_MODEL must be 'provider:model', got {spec!r}"
        raise ValueError(msg)
    return provider.strip().lower(), name.strip()


def has_key(provider: str, settings: ModelSettings) -> bool:
    """Whether ``provider`` can be reached under ``settings`` (a key, or a local endpoint)."""
    if provider == "deepseek":
        return settings.deepseek_api_key is not None and bool(
            settings.deepseek_api_key.get_secret_value()
        )
    if provider == "openai":
        # A local OpenAI-compatible server (vLLM, Ollama) may need no key at all.
        has = settings.openai_api_key is not None and bool(
            settings.openai_api_key.get_secret_value()
        )
        return has or settings.openai_base_url is not None
    env = _KEY_ENV.get(provider)
    return True if env is None else bool(os.environ.get(env))


def is_offline(settings: ModelSettings) -> bool:
    """Whether no real main model is configured (``MODEL=offline``, or no key for it).

    Raises ``ValueError`` for a ``MODEL`` that is not ``provider:model``.
    """
    if settings.model.strip().lower() in _OFFLINE_NAMES:
        return True
    provider, _ = split_model(settings.model)
    return not has_key(provider, settings)


def chat_model(which: Literal["main", "summary"], settings: ModelSettings) -> BaseChatModel:
    """The configured chat model (``MODEL`` or ``SUMMARY_MODEL``), built by ``init_chat_model``.

    A summary model whose provider has no key falls back to the main model. Call it only
    when :func:`is_offline` is false: it does not know any offline stand-in.
    """
    spec = settings.model if which == "main" else settings.summary_model
    provider, name = split_model(spec)
    if not has_key(provider, settings):
        # The main model is configured but the summary one is not: fall back to the main one.
        provider, name = split_model(settings.model)
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
