"""runstack.services.agent_server_auth: what the launcher's probe and the demo send."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runstack.agent_server import shipped_auth_handler
from runstack.services import agent_server_auth

SVC = "service-token-0123456789"


def _config(tmp_path: Path, **extra: object) -> Path:
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps({"graphs": {}, **extra}), encoding="utf-8")
    return path


def test_without_auth_nothing_is_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_AUTH_SERVICE_TOKENS", f"svc:{SVC}")
    assert agent_server_auth(_config(tmp_path)) == (None, {})
    assert agent_server_auth(tmp_path / "missing.json") == (None, {})
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    assert agent_server_auth(tmp_path / "bad.json") == (None, {})


def test_with_auth_the_first_service_account_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the checkout
    monkeypatch.setenv("AGENT_AUTH_TOKENS", "alice:alice-token-0123456789")
    monkeypatch.setenv("AGENT_AUTH_SERVICE_TOKENS", f"svc:{SVC},other:other-token-0123456789")
    handler = shipped_auth_handler()
    config = _config(tmp_path, auth={"path": handler})
    assert agent_server_auth(config) == (handler, {"Authorization": f"Bearer {SVC}"})
    monkeypatch.delenv("AGENT_AUTH_SERVICE_TOKENS")
    assert agent_server_auth(config) == (handler, {})
    monkeypatch.setenv("AGENT_AUTH_SERVICE_TOKENS", "svc:short")
    assert agent_server_auth(config) == (handler, {})


def test_a_handler_of_ones_own_gets_no_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the shipped handler's accounts are known to the launcher; another handler (or
    # one that cannot be imported) is announced, and nothing is sent to it.
    monkeypatch.setenv("AGENT_AUTH_SERVICE_TOKENS", f"svc:{SVC}")
    for path in ("./core/settings.py:auth", "./nowhere/auth.py:auth", "/abs/auth.py:auth"):
        assert agent_server_auth(_config(tmp_path, auth={"path": path})) == (path, {})
