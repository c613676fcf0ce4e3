"""``python -m mcp_erp``: streamable HTTP at ``/mcp``; ``--stdio`` for a stdio transport."""

from __future__ import annotations

import argparse
import sys

from pydantic import AliasChoices, ValidationError

from core.library_logs import tame_library_logs
from core.logs import setup_logging
from core.serve import serve
from mcp_erp.server import create_http_app, create_server
from mcp_erp.settings import ErpMcpSettings


def _env_name(loc: tuple[int | str, ...]) -> str:
    """The environment variable behind a settings field named in a validation error."""
    name = str(loc[0]) if loc else "?"
    field = ErpMcpSettings.model_fields.get(name)
    if field is None:
        return name  # already an alias such as ERP_BASE_URL
    alias = field.validation_alias
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return f"ERP_MCP_{name.upper()}"


def main(argv: list[str] | None = None) -> None:
    """Start the server with settings from the environment and ``.env``."""
    parser = argparse.ArgumentParser(prog="python -m mcp_erp", description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="speak MCP over stdin/stdout")
    parser.add_argument("--host", help="override ERP_MCP_HOST")
    parser.add_argument("--port", type=int, help="override ERP_MCP_PORT")
    args = parser.parse_args(argv)

    try:
        settings = ErpMcpSettings()
    except ValidationError as exc:
        problems = "; ".join(f"{_env_name(err['loc'])}: {err['msg']}" for err in exc.errors())
        print(f"erp-mcp: bad setting in the environment or .env: {problems}", file=sys.stderr)
        raise SystemExit(2) from None
    if args.host:
        settings.host = args.host
    if args.port:
        settings.port = args.port
    # stdout carries the protocol under stdio, so logs go to stderr (the console handler's default).
    log = setup_logging(
        "erp-mcp",
        level=settings.log_level,
        log_dir=settings.resolved_log_dir,
        backup_count=settings.log_backup_count,
    )
    tame_library_logs()
    if args.stdio:
        log.info("erp-mcp on stdio, ERP at %s", settings.erp_base_url)
        create_server(settings).run(transport="stdio", show_banner=False)
        return
    app = create_http_app(settings)
    log.info(
        "erp-mcp starting on http://%s:%s%s, ERP at %s",
        settings.host,
        settings.port,
        settings.path,
        settings.erp_base_url,
    )
    serve(app, host=settings.host, port=settings.port, service="erp-mcp", log_level="warning")


if __name__ == "__main__":
    main()
