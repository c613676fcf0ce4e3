"""runstack's decisions that need no process: how a served config is written, when a
``langgraph dev`` counts as moved, what environment keeps the graphs offline, which
services ``run_services`` refuses, and how thread messages are read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runstack.agent_server import MODEL_KEYS, absolute_config, moved_port, offline_env
from runstack.services import SERVICES, run_services, service, wiring
from runstack.threads import TASK_ID, interrupts, message_text


def test_absolute_config_roots_every_relative_path_and_drops_the_env_file(
    tmp_path: Path,
) -> None:
    root = tmp_path / "checkout"
    source = {
        "dependencies": ["."],
        "graphs": {"a": "./graphs/a.py:make_graph", "b": "/elsewhere/b.py:graph"},
        "env": ".env",
        "http": {"app": "./server/http_app.py:app", "enable_custom_route_auth": True},
        "auth": {"path": "./server/auth.py:auth"},
    }
    written = json.loads(absolute_config(source, tmp_path, root=root).read_text())
    assert written == {
        "dependencies": [str(root)],
        "graphs": {"a": f"{root}/graphs/a.py:make_graph", "b": "/elsewhere/b.py:graph"},
        "http": {"app": f"{root}/server/http_app.py:app", "enable_custom_route_auth": True},
        "auth": {"path": f"{root}/server/auth.py:auth"},
    }
    assert source["env"] == ".env"  # the caller's dict is left as it was


def test_a_port_move_is_read_from_the_log() -> None:
    log = "INFO starting\nWARNING Port 2024 is already in use, using port 41234 instead\n"
    assert moved_port(log) == "41234"
    assert moved_port("INFO Uvicorn running on http://127.0.0.1:2024\n") is None


def test_offline_env_drops_model_keys() -> None:
    env = offline_env({"OPENAI_API_KEY": "sk-x", "DEEPSEEK_API_KEY": "d", "PATH": "/bin"})
    assert env == {"PATH": "/bin", "MODEL": "offline", "LANGSMITH_TRACING": "false"}
    assert not set(MODEL_KEYS) & set(env)


def test_run_services_refuses_what_it_cannot_start_before_starting_anything() -> None:
    with (
        pytest.raises(ValueError, match=r"start it with runstack\.agent_server"),
        run_services(["sim-erp", "agent-server"], {}),
    ):
        pass
    with pytest.raises(KeyError, match="known: sim-erp"), run_services(["nope"], {}):
        pass
    assert service("sim-erp").module == "sim.erp"


def test_wiring_points_each_service_at_the_chosen_ports() -> None:
    env = wiring({"sim-erp": 1001, "erp-mcp": 1002, "viz-gateway": 1003})
    assert env["ERP_BASE_URL"] == "http://127.0.0.1:1001"
    assert env["ERP_MCP_URL"] == "http://127.0.0.1:1002/mcp"
    assert env["VIZ_PUBLIC_URL"] == "http://127.0.0.1:1003"
    assert {s.port_env for s in SERVICES[:3]} <= set(env)
    assert "SUPPLIER_SITES_URL" not in env


def test_thread_helpers_read_the_sdk_shapes() -> None:
    blocks = {"content": [{"type": "text", "text": "task_id: "}, {"type": "text", "text": "x"}]}
    assert message_text(blocks) == "task_id: x"
    assert message_text({"content": None}) == ""
    answer = "已启动 task_id: 0b8e4c1e-2f39-4c57-9d0e-3a1f6c2b7d41，稍后通知"
    found = TASK_ID.search(answer)
    assert found and found.group(1) == "0b8e4c1e-2f39-4c57-9d0e-3a1f6c2b7d41"
    thread = {"interrupts": {"t1": [{"id": "a"}], "t2": [{"id": "b"}, {"id": "c"}]}}
    assert [i["id"] for i in interrupts(thread)] == ["a", "b", "c"]
    assert interrupts({"interrupts": None}) == []
