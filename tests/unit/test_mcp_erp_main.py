"""``python -m mcp_erp`` refuses bad settings with the variables' names, not a traceback."""

from __future__ import annotations

import pytest

from mcp_erp.__main__ import main


def test_bad_settings_name_their_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ERP_MCP_PORT", "eighty")
    monkeypatch.setenv("ERP_MCP_READ_ATTEMPTS", "0")
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("erp-mcp: bad setting in the environment or .env: ")
    assert "ERP_MCP_PORT: Input should be a valid integer" in err
    assert "ERP_MCP_READ_ATTEMPTS: Input should be greater than or equal to 1" in err
    assert "Traceback" not in err
