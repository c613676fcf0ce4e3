"""core.models: the model choice the graphs and the JSON-RPC adapter share."""

from __future__ import annotations

import pytest
from langchain_core.language_models import BaseChatModel

from core.models import ModelSettings, chat_model, is_offline


def test_model_offline_forces_the_planner() -> None:
    settings = ModelSettings(MODEL="offline", DEEPSEEK_API_KEY="sk-test")  # type: ignore[call-arg]
    assert is_offline(settings)


def test_malformed_model_string_is_a_configuration_error() -> None:
    settings = ModelSettings(MODEL="gpt4", DEEPSEEK_API_KEY="sk-test")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="provider:model"):
        is_offline(settings)


def test_no_key_is_offline_and_a_key_is_not() -> None:
    bare = ModelSettings(MODEL="deepseek:deepseek-v4-pro")  # type: ignore[call-arg]
    bare.deepseek_api_key = None
    assert is_offline(bare)
    keyed = ModelSettings(MODEL="deepseek:deepseek-v4-pro", DEEPSEEK_API_KEY="sk-test")  # type: ignore[call-arg]
    assert not is_offline(keyed)


def test_a_summary_model_without_a_key_falls_back_to_the_main_one() -> None:
    settings = ModelSettings(  # type: ignore[call-arg]
        MODEL="openai:qwen-plus",
        SUMMARY_MODEL="deepseek:deepseek-v4-flash",
        OPENAI_BASE_URL="http://127.0.0.1:1/v1",
    )
    settings.deepseek_api_key = None
    model = chat_model("summary", settings)
    assert isinstance(model, BaseChatModel) and type(model).__name__ == "ChatOpenAI"
