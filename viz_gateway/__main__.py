"""``python -m viz_gateway`` serves HTTP (MCP at /mcp); ``--stdio`` speaks MCP on stdio."""

from __future__ import annotations

import argparse
import sys
import threading

from core.library_logs import tame_library_logs
from core.logs import setup_logging
from core.serve import KEEP_ALIVE_S, port_is_free, serve
from viz_gateway import fonts
from viz_gateway.settings import VizSettings


def main(argv: list[str] | None = None) -> None:
    """Start the gateway; exit 2 with a clear message when no CJK font is available."""
    parser = argparse.ArgumentParser(prog="python -m viz_gateway", description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="speak MCP over stdin/stdout")
    parser.add_argument("--host", help="interface to bind (VIZ_HOST)")
    parser.add_argument("--port", type=int, help="HTTP port (VIZ_PORT)")
    ns = parser.parse_args(argv)
    overrides = {k: v for k, v in (("host", ns.host), ("port", ns.port)) if v is not None}
    settings = VizSettings(**overrides)
    log = setup_logging(
        "viz-gateway",
        level=settings.log_level,
        log_dir=settings.resolved_log_dir,
        backup_count=settings.log_backup_count,
    )
    tame_library_logs()  # no traceback each time a client ends its MCP session
    try:
        font = fonts.find_cjk_font(settings.font_dir, settings.font_family)
        log.info("CJK font: %s (%s)", font.family, font.path)
    except fonts.FontError as exc:
        if not settings.upstream_url:
            print(f"viz-gateway: {exc}", file=sys.stderr)
            raise SystemExit(2) from exc
        log.warning("%s (upstream mode: local fallback rendering will fail)", exc)

    from viz_gateway.server import create_app, create_server

    if ns.stdio:
        mcp = create_server(settings)
        # Image URLs point at the HTTP side: serve it too unless something already does.
        if port_is_free(settings.host, settings.port):
            import uvicorn

            app = create_app(settings, mcp=mcp)
            server = uvicorn.Server(
                uvicorn.Config(
                    app,
                    host=settings.host,
                    port=settings.port,
                    log_level="warning",
                    timeout_keep_alive=KEEP_ALIVE_S,  # as serve() does: the client closes first
                )
            )
            threading.Thread(target=server.run, daemon=True, name="viz-http").start()
        else:
            log.warning(
                "port %s is taken: images are served by whatever listens there (%s)",
                settings.port,
                settings.base_url,
            )
        mcp.run(transport="stdio", show_banner=False)
        return
    log.info(
        "viz-gateway on http://%s:%s (MCP at /mcp, images at /charts/), %s mode",
        settings.host,
        settings.port,
        "upstream" if settings.upstream_url else "local",
    )
    serve(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        service="viz-gateway",
        log_level=settings.log_level,
    )


if __name__ == "__main__":
    main()
