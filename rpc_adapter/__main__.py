"""``python -m rpc_adapter``: the adapter alone on ``RPC_PORT`` (8999) against ``LANGGRAPH_URL``."""

from __future__ import annotations

from core.logs import setup_logging
from core.serve import serve
from rpc_adapter.app import create_app
from rpc_adapter.settings import RpcSettings


def main() -> None:
    """Start the standalone adapter."""
    settings = RpcSettings()
    setup_logging(
        "rpc_adapter",
        level=settings.log_level,
        log_dir=settings.resolved_log_dir,
        backup_count=settings.log_backup_count,
    )
    app = create_app(settings, langgraph_url=settings.langgraph_url, standalone=True)
    serve(
        app,
        host=settings.host,
        port=settings.port,
        service="rpc_adapter",
        log_level=settings.log_level,
    )


if __name__ == "__main__":
    main()
