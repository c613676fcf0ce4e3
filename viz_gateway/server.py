"""The gateway: AntV-compatible chart tools over MCP, images served at ``/charts/<hash>.<ext>``.

``create_server`` builds the FastMCP server (for stdio and the in-memory test client);
``create_app`` wraps it in the HTTP app (streamable HTTP at ``/mcp``, ``/health``,
``/charts/``) behind the Host/Origin guard.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent, ToolAnnotations
from pydantic import PrivateAttr
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from core.http_guard import HostOriginGuard
from core.json_limits import JsonDepthGuard
from viz_gateway import fonts
from viz_gateway.schemas import MAP_TOOLS, TOOLS, short_name, with_defaults
from viz_gateway.settings import VizSettings
from viz_gateway.store import IMAGE_TYPES, NAME_RE, ChartStore, content_hash, make_store
from viz_gateway.validation import check_arguments

log = logging.getLogger("viz_gateway")

# How many recent calls and chart specs are kept in memory for repeat calls (a few MB).
RECENT_CHARTS = 512

INSTRUCTIONS = (
    "Chart tools compatible with AntV mcp-server-chart. Each tool returns the chart image's URL "
    "as text; the chart spec is in the result's _meta.chart."
)


class Gateway:
    """Validates calls, answers from the image cache, renders locally or through upstream."""

    def __init__(self, settings: VizSettings) -> None:
        from viz_gateway.workers import shared_pool

        self.settings = settings
        self.store = make_store(settings)
        self.pool = shared_pool(
            settings.render_workers,
            settings.font_dir,
            settings.font_family,
            settings.render_max_tasks,
        )
        self.renders = 0
        self._inflight: dict[str, asyncio.Future[ToolResult]] = {}
        # Repeat calls skip validation and disk: the caller's exact arguments of recent calls
        # that succeeded -> the chart key they made, and recent charts' metadata by key.
        self._recent: OrderedDict[str, str] = OrderedDict()
        self._metas: OrderedDict[str, dict[str, Any]] = OrderedDict()

    # -- helpers ------------------------------------------------------------------
    def url(self, key: str, ext: str) -> str:
        """The public URL of a stored image."""
        return f"{self.settings.base_url}/charts/{key}.{ext}"

    def _result(
        self,
        key: str,
        ext: str,
        *,
        source: str,
        cached: bool,
        note: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> ToolResult:
        url = self.url(key, ext)
        content = [TextContent(type="text", text=url)]
        if note:
            content.append(TextContent(type="text", text=note))
        structured: dict[str, Any] = {
            "url": url,
            "hash": key,
            "format": ext,
            "source": source,
            "cached": cached,
            "path": self.store.location(key, ext),
        }
        if note:
            structured["note"] = note
        stored = meta if meta is not None else self.store.read_json(key)
        chart_meta = dict(stored or {})
        if ext == "png" and chart_meta.get("specFormat") in ("vega", "vega-lite"):
            chart_meta["svgUrl"] = self.url(key, "svg")
        return ToolResult(
            content=content,
            structured_content=structured,
            meta={"chart": {**chart_meta, **structured}},
        )

    async def _meta(self, key: str) -> dict[str, Any]:
        meta = self._metas.get(key)
        if meta is None:
            meta = await asyncio.to_thread(self.store.read_json, key) or {}
            _remember(self._metas, key, meta)
        return meta

    async def _recent_hit(self, call_id: str) -> tuple[str, str] | None:
        """The key and image extension of a recent call with these exact arguments, when its
        image is still stored (the store marks it used)."""
        key = self._recent.get(call_id)
        if key is None:
            return None
        if ext := await asyncio.to_thread(self.store.find, key):
            self._recent.move_to_end(call_id)
            return key, ext
        del self._recent[call_id]
        return None

    # -- the tool call --------------------------------------------------------------
    async def call(self, tool: str, arguments: dict[str, Any] | None) -> ToolResult:
        """Run one chart tool call; every failure is a :class:`ToolError` with a clear message."""
        args = arguments or {}
        # Arguments identical to a recent successful call were valid then and are now.
        call_id = None if _large(args) else content_hash("call", tool, args)
        if call_id is not None and (hit := await self._recent_hit(call_id)):
            key, ext = hit
            meta = await self._meta(key)
            return self._result(key, ext, source="cache", cached=True, meta=meta)
        result = await self._call_checked(tool, args)
        if call_id is not None:
            _remember(self._recent, call_id, result.structured_content["hash"])  # type: ignore[index]
        return result

    async def _call_checked(self, tool: str, args: dict[str, Any]) -> ToolResult:
        """Validate, then answer from the cache or make the chart once per concurrent key."""
        if _large(args):  # validating thousands of points takes a while: off the loop
            errors = await asyncio.to_thread(
                check_arguments, tool, args, max_points=self.settings.max_points
            )
        else:
            errors = check_arguments(tool, args, max_points=self.settings.max_points)
        if errors:
            raise ToolError(f"Invalid arguments for {tool}:\n- " + "\n- ".join(errors))
        given = args
        args = with_defaults(TOOLS[tool][1], args)
        upstream = self.settings.upstream_url
        local_key = content_hash("local", tool, args, _render_version())
        up_key = content_hash("upstream", upstream, tool, args) if upstream else None
        for key in (up_key, local_key):
            if key and (ext := await asyncio.to_thread(self.store.find, key)):
                meta = await self._meta(key)
                return self._result(key, ext, source="cache", cached=True, meta=meta)
        flight_key = up_key or local_key
        running = self._inflight.get(flight_key)
        loop = asyncio.get_running_loop()
        if running is not None and running.get_loop() is loop:  # being made right now
            return await asyncio.shield(running)
        future: asyncio.Future[ToolResult] = loop.create_future()
        self._inflight[flight_key] = future
        try:
            result = await self._produce(tool, given, args, local_key, up_key)
            future.set_result(result)
            return result
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            if self._inflight.get(flight_key) is future:
                del self._inflight[flight_key]

    async def _produce(
        self,
        tool: str,
        given: dict[str, Any],
        args: dict[str, Any],
        local_key: str,
        up_key: str | None,
    ) -> ToolResult:
        """Upstream first when configured (with the caller's own arguments), else local."""
        note = None
        if self.settings.upstream_url and up_key:
            from viz_gateway.upstream import UpstreamError, fetch_chart

            try:
                image = await fetch_chart(
                    self.settings.upstream_url,
                    tool,
                    given,
                    timeout_s=self.settings.upstream_timeout,
                )
            except UpstreamError as exc:
                log.warning("upstream failed for %s: %s", tool, exc)
                note = f"Upstream chart server failed ({exc}); rendered locally instead."
            else:
                meta = {
                    "tool": tool,
                    "specFormat": "upstream",
                    "upstreamUrl": image.url,
                    "arguments": args,
                }
                await self._save(up_key, image.ext, image.data, meta)
                return self._result(up_key, image.ext, source="upstream", cached=False, meta=meta)
        if tool in MAP_TOOLS:
            why = (
                "Maps need online geodata (administrative boundaries, POI geocoding) that this "
                "gateway does not have offline"
            )
            if note:
                raise ToolError(f"{tool}: {why}, and the upstream chart server failed: {note}")
            raise ToolError(
                f"{tool}: {why}. Set VIZ_UPSTREAM_URL to a chart MCP server with map "
                "support (such as AntV's hosted mcp-server-chart), or use another "
                "chart type."
            )
        meta = await self._render_local(tool, args, local_key)
        return self._result(local_key, "png", source="local", cached=False, note=note, meta=meta)

    def _write(self, key: str, ext: str, data: bytes, meta: dict[str, Any]) -> None:
        self.store.put(key, "json", json.dumps(meta, ensure_ascii=False).encode())
        self.store.put(key, ext, data)

    async def _save(self, key: str, ext: str, data: bytes, meta: dict[str, Any]) -> None:
        """Store the image and its spec (off the loop) and keep the spec in memory."""
        await asyncio.to_thread(self._write, key, ext, data, meta)
        _remember(self._metas, key, meta)

    async def _render_local(self, tool: str, args: dict[str, Any], key: str) -> dict[str, Any]:
        from viz_gateway.diagrams import LayoutError
        from viz_gateway.workers import RenderCrashed

        timeout = self.settings.render_timeout
        try:
            fmt, spec, png = await asyncio.wait_for(self.pool.build_and_render(tool, args), timeout)
        except fonts.FontError as exc:
            raise ToolError(str(exc)) from exc
        except LayoutError as exc:
            raise ToolError(f"Cannot draw {tool}: {exc}") from exc
        except TimeoutError as exc:
            self.pool.reset()
            raise ToolError(
                f"Rendering {tool} took longer than {timeout:g} s; use less data"
            ) from exc
        except RenderCrashed as exc:
            raise ToolError(f"Rendering {tool} failed: {exc}") from exc
        except (ValueError, KeyError, TypeError, ZeroDivisionError, OverflowError) as exc:
            log.warning("layout failed for %s: %r", tool, exc)
            raise ToolError(
                f"Cannot draw {tool} from these arguments ({type(exc).__name__}: {exc}); "
                "check the data"
            ) from exc
        except Exception as exc:
            log.exception("render failed for %s", tool)
            raise ToolError(f"Rendering {tool} failed: {type(exc).__name__}") from exc
        self.renders += 1
        meta = {"tool": tool, "specFormat": fmt, "spec": spec}
        await self._save(key, "png", png, meta)
        return meta

    async def svg_for(self, key: str) -> bytes | None:
        """Render (once) and store the SVG of a locally rendered chart; None if unknown."""
        meta = await asyncio.to_thread(self.store.read_json, key)
        if not meta or meta.get("specFormat") not in ("vega", "vega-lite"):
            return None
        svg = await self.pool.render_spec(meta["specFormat"], meta["spec"], "svg")
        await asyncio.to_thread(self.store.put, key, "svg", svg)
        return svg


def _remember(cache: OrderedDict[str, Any], key: str, value: Any) -> None:
    """Put ``key`` in ``cache`` as the most recent entry, dropping the oldest past the bound."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > RECENT_CHARTS:
        cache.popitem(last=False)


def _large(args: dict[str, Any]) -> bool:
    return any(isinstance(v, list) and len(v) > 500 for v in args.values())


def _render_version() -> str:
    from viz_gateway.render import RENDERER_VERSION

    return RENDERER_VERSION


class ChartTool(Tool):
    """One AntV chart tool, with upstream's JSON schema, dispatched to the :class:`Gateway`."""

    _gateway: Gateway = PrivateAttr()

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Make the chart; return its URL as text and its spec in ``_meta.chart``."""
        return await self._gateway.call(self.name, arguments)


async def _warm_up(gateway: Gateway) -> None:
    """Read the image store's index (a directory scan) off the event loop, and start the
    render workers (fonts, JavaScript engine), both before the first real call."""
    try:
        await asyncio.to_thread(gateway.store.stats)
        await gateway.pool.warm_up()
    except Exception as exc:  # a failed warm-up only costs the first call some time
        log.warning("render warm-up failed: %s", exc)


def _lifespan(gateway: Gateway, *, warm_up: bool) -> Any:
    """The server's lifespan: warm the renderer up in the background, stop it at the end."""

    @contextlib.asynccontextmanager
    async def lifespan(_server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        task = asyncio.create_task(_warm_up(gateway)) if warm_up else None
        try:
            yield {"gateway": gateway}
        finally:
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    return lifespan


def _add_chart_tools(mcp: FastMCP, gateway: Gateway, settings: VizSettings) -> None:
    """Every chart tool of :data:`TOOLS` that ``DISABLED_TOOLS`` does not switch off."""
    disabled = set(settings.disabled_tools)
    unknown = disabled - set(TOOLS)
    if unknown:
        log.warning("DISABLED_TOOLS names unknown tools: %s", ", ".join(sorted(unknown)))
    for name, (description, schema) in TOOLS.items():
        if name in disabled:
            continue
        tool = ChartTool(
            name=name,
            description=description,
            parameters=schema,
            annotations=ToolAnnotations(
                title=name.removeprefix("generate_").replace("_", " "),
                readOnlyHint=True,
                idempotentHint=True,
                openWorldHint=bool(settings.upstream_url),
            ),
            tags={"chart", "map" if name in MAP_TOOLS else short_name(name)},
        )
        tool._gateway = gateway
        mcp.add_tool(tool)


def _not_found(message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": "NOT_FOUND", "message": message}}, status_code=404)


def _add_routes(mcp: FastMCP, gateway: Gateway, settings: VizSettings) -> None:
    """``/health``, ``/charts/`` (the store's figures) and ``/charts/<hash>.<ext>``."""

    @mcp.custom_route("/health", methods=["GET"])
    async def health(_request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "service": "viz-gateway",
                "mode": "upstream" if settings.upstream_url else "local",
                "renders": gateway.renders,
                "store": await asyncio.to_thread(gateway.store.stats),
            }
        )

    @mcp.custom_route("/charts/", methods=["GET"])
    async def charts_index(_request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(gateway.store.stats))

    @mcp.custom_route("/charts/{name}", methods=["GET", "HEAD"])
    async def chart_file(request: Request) -> Response:
        name = request.path_params["name"]
        m = NAME_RE.match(name)
        if not m or m.group(2) == "json":
            return _not_found("no such chart")
        key, ext = m.group(1), m.group(2)
        headers = {"Cache-Control": "public, max-age=31536000, immutable"}
        store = gateway.store
        if isinstance(store, ChartStore) and store.path(key, ext).exists():
            return FileResponse(store.path(key, ext), media_type=IMAGE_TYPES[ext], headers=headers)
        # Shared storage (or an SVG not drawn yet): the bytes, through the store.
        data = await asyncio.to_thread(store.get, key, ext)
        if data is None and ext == "svg":
            try:
                data = await gateway.svg_for(key)
            except Exception as exc:
                log.warning("svg for %s failed: %s", key, exc)
        if data is None:
            return _not_found(f"chart {name} is not (or no longer) stored")
        return Response(data, media_type=IMAGE_TYPES[ext], headers=headers)


def create_server(settings: VizSettings | None = None, *, warm_up: bool = True) -> FastMCP:
    """The FastMCP server with every enabled chart tool; ``server.gateway`` is its state."""
    settings = settings or VizSettings()
    gateway = Gateway(settings)
    mcp: FastMCP = FastMCP(
        "viz-gateway",
        instructions=INSTRUCTIONS,
        lifespan=_lifespan(gateway, warm_up=warm_up),
        mask_error_details=True,
    )
    _add_chart_tools(mcp, gateway, settings)
    mcp.gateway = gateway  # type: ignore[attr-defined]
    _add_routes(mcp, gateway, settings)
    return mcp


def create_app(
    settings: VizSettings | None = None, *, warm_up: bool = True, mcp: FastMCP | None = None
) -> Any:
    """The HTTP app: MCP at ``/mcp``, ``/health``, ``/charts/``, behind the Host/Origin guard
    and the request-body nesting limit.

    Pass ``mcp`` to serve an existing server's tools and images (stdio mode does).
    """
    settings = settings or VizSettings()
    mcp = mcp or create_server(settings, warm_up=warm_up)
    app = mcp.http_app(path="/mcp", json_response=True)
    guarded = HostOriginGuard(
        JsonDepthGuard(app),
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.http_allowed_origins,
    )
    guarded.mcp = mcp  # type: ignore[attr-defined]
    return guarded


__all__ = ["ChartTool", "Gateway", "create_app", "create_server"]
