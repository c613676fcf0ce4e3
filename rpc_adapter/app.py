"""The adapter's Starlette app: ``/v1/ws`` (and legacy ``/ws``), ``/``, ``/health``,
``/ready`` and ``POST /api/batch-replace``.

Mounted in the Agent Server through ``langgraph.json``
(``"http": {"app": "./rpc_adapter/app.py:app"}``) it reaches the graphs with the
SDK's in-process client; standalone (``python -m rpc_adapter``) it uses
``LANGGRAPH_URL``. Checks (token, Origin, Host) are done per route, never as
app-wide middleware: mounted, this app's middleware would wrap the whole Agent
Server, including the SDK's own in-process calls.

The adapter's own token (``RPC_TOKEN``) never has to travel in ``Authorization``: with
the Agent Server's auth on, that header carries the user's token for the server's auth
handler. A client sends it as the ``X-RPC-Token`` header (desktop clients), as a
``rpc-token.<token>`` WebSocket subprotocol beside ``jsonrpc-2.0`` (browsers, which cannot
set headers on a WebSocket), or as ``?token=`` (may end up in access logs); a bearer
token that equals ``RPC_TOKEN`` is accepted too, for servers without auth.

Sessions are kept in the Agent Server's Store as well (:mod:`rpc_adapter.session_store`;
``RPC_SESSION_STORE=false`` keeps them in memory only): a socket that names a session this
instance does not hold (another replica had it, or this one restarted) takes it over from
there. A malformed ``session_id``, or one opened by another user or token, gets a JSON-RPC
error frame and the socket is closed (1008), with nothing of that session sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Callable
from importlib import metadata

from langgraph_sdk.client import LangGraphClient
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from core.agent_client import agent_client
from core.http_guard import host_allowed, host_only, origin_host
from core.models import ModelSettings, chat_model, is_offline
from rpc_adapter.agents import AgentService
from rpc_adapter.batch_replace import BatchReplaceRequest, ModelRewriter, batch_replace
from rpc_adapter.connection import Connection
from rpc_adapter.methods import Methods
from rpc_adapter.protocol import PROTOCOL_VERSION, RpcError, dumps, error_response
from rpc_adapter.session_store import SessionStore, principal_of
from rpc_adapter.sessions import SessionManager
from rpc_adapter.settings import RpcSettings

__all__ = ["app", "create_app"]

logger = logging.getLogger("rpc_adapter")

SERVICE_NAME = "procurement-rpc-adapter"
TOKEN_HEADER = "x-rpc-token"
SUBPROTOCOL = "jsonrpc-2.0"
TOKEN_SUBPROTOCOL = "rpc-token."


def _version() -> str:
    try:
        return metadata.version("procurement-agents")
    except metadata.PackageNotFoundError:
        return "0.1.0"


class Guard:
    """Token, Origin and (standalone only) Host checks for one request or socket."""

    def __init__(self, settings: RpcSettings, *, check_host: bool) -> None:
        self.token = settings.token
        self.origins = {o.lower().rstrip("/") for o in settings.allowed_origins}
        self.hosts = {h.lower() for h in settings.allowed_hosts} if check_host else {"*"}

    def refusal(self, conn: HTTPConnection) -> str | None:
        """Why this connection is refused, or None when it may proceed."""
        if "*" not in self.hosts:
            host = host_only(conn.headers.get("host", ""))
            if host and not host_allowed(host, self.hosts):
                return "host not allowed"
        origin = conn.headers.get("origin")
        if origin and origin != "null" and "*" not in self.origins:
            # The allow-list may name whole origins (http://app.example:3000) or hosts.
            o = origin.lower().rstrip("/")
            if o not in self.origins and not host_allowed(origin_host(o), self.origins):
                return "origin not allowed"
        if self.token and not any(
            hmac.compare_digest(given.encode(), self.token.encode())
            for given in offered_tokens(conn)
        ):
            return "missing or wrong token"
        return None


def _subprotocols(conn: HTTPConnection) -> list[str]:
    raw = conn.headers.get("sec-websocket-protocol", "")
    return [p.strip() for p in raw.split(",") if p.strip()]


def offered_tokens(conn: HTTPConnection) -> list[str]:
    """Every place a client may put the adapter's token, in the order checked: the
    ``X-RPC-Token`` header, a ``rpc-token.<token>`` subprotocol, ``?token=``, and a bearer
    token (which, with the Agent Server's auth on, is the user's and simply won't match)."""
    found = [conn.headers.get(TOKEN_HEADER, "").strip()]
    found += [
        p[len(TOKEN_SUBPROTOCOL) :] for p in _subprotocols(conn) if p.startswith(TOKEN_SUBPROTOCOL)
    ]
    found.append(conn.query_params.get("token", "").strip())
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        found.append(auth[7:].strip())
    return [t for t in found if t]


def accepted_subprotocol(conn: HTTPConnection) -> str | None:
    """``jsonrpc-2.0`` when the client offered it (a browser that sent its token as a
    subprotocol must get one of its offers back, or it drops the connection)."""
    return SUBPROTOCOL if SUBPROTOCOL in _subprotocols(conn) else None


def _model_rewriter() -> ModelRewriter | None:
    """A model for ambiguous batch-replace tasks when one is configured; None offline."""
    try:
        settings = ModelSettings()
        if is_offline(settings):
            return None
        model = chat_model("summary", settings)
    except Exception:
        logger.warning("batch-replace: no model available; ambiguous tasks stay unchanged")
        return None

    async def rewrite(old: str, new: str, task: str) -> str | None:
        prompt = (
            "A part number was rewritten from the example OLD to NEW. Apply the same rewrite "
            "to TASK. Answer with the rewritten TASK only, or with TASK unchanged if the "
            f"rewrite does not apply.\nOLD: {old}\nNEW: {new}\nTASK: {task}"
        )
        reply = await model.ainvoke(prompt)
        text = reply.content if isinstance(reply.content, str) else str(reply.content)
        return text.strip().splitlines()[0] if text.strip() else None

    return rewrite


def authenticated_user_id(connection: HTTPConnection) -> str | None:
    """The identity the Agent Server's auth handler gave this connection (mounted with
    ``enable_custom_route_auth``), or None when auth is off or the caller is anonymous."""
    user = connection.scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    try:
        identity = user.identity
    except (AttributeError, NotImplementedError):  # a plain Starlette user has none
        return None
    if not isinstance(identity, str) or not identity.strip():
        return None
    return identity.strip()


def _sdk_client_factory(
    settings: RpcSettings, langgraph_url: str | None
) -> Callable[[], LangGraphClient]:
    """The LangGraph SDK client: in-process when ``langgraph_url`` is None (mounted)."""
    # In-process (url None) the SDK skips the server's auth; over HTTP it needs a token
    # when the server's auth is on.
    token = settings.langgraph_token.get_secret_value() if settings.langgraph_token else ""
    headers = {"Authorization": f"Bearer {token}"} if token and langgraph_url else None

    def client_factory() -> LangGraphClient:
        return agent_client(langgraph_url, api_key=None, headers=headers)

    return client_factory


class _Endpoints:
    """The adapter's routes and lifespan, over one service, one session store, one guard."""

    def __init__(self, settings: RpcSettings, service: AgentService, guard: Guard) -> None:
        self.settings = settings
        self.service = service
        store = (
            SessionStore(lambda: service.client, ttl=settings.session_ttl)
            if settings.session_store
            else None
        )
        self.sessions = SessionManager(
            ttl=settings.session_ttl,
            max_messages=settings.max_queue_messages,
            max_bytes=settings.max_queue_bytes,
            store=store,
        )
        self.guard = guard
        self._rewriter: list[ModelRewriter | None] = []  # resolved on the first batch-replace

    async def websocket(self, websocket: WebSocket) -> None:
        """``/v1/ws`` (and ``/ws``): one JSON-RPC connection, attached to its session."""
        reason = self.guard.refusal(websocket)
        if reason is not None:
            logger.info("websocket refused: %s", reason)
            await websocket.close(code=1008, reason=reason)
            return
        user_id = authenticated_user_id(websocket)
        try:
            opened = await self.sessions.open(
                websocket.query_params.get("session_id") or None,
                principal=principal_of(user_id, self.settings.token),
                user_id=user_id,
            )
        except RpcError as exc:
            await self._refuse_session(websocket, exc)
            return
        session = opened.session
        await websocket.accept(subprotocol=accepted_subprotocol(websocket))
        logger.info("session %s %s", session.session_id, "resumed" if opened.resumed else "opened")
        methods = Methods(session, self.service, self.settings)
        if opened.restored_calls:
            methods.adopt(opened.restored_calls)
        if opened.taken_over:
            methods.follow()
        conn = Connection(
            websocket,
            session,
            methods,
            max_message_size=self.settings.max_message_size,
            max_in_flight=self.settings.max_in_flight,
            max_batch=self.settings.max_batch,
            max_queue_messages=self.settings.max_queue_messages,
            max_queue_bytes=self.settings.max_queue_bytes,
        )
        await conn.serve()

    @staticmethod
    async def _refuse_session(websocket: WebSocket, exc: RpcError) -> None:
        """Say why in a JSON-RPC error frame (id null), then close the socket (1008)."""
        reason = (exc.data or {}).get("reason") if isinstance(exc.data, dict) else None
        close_reason = {
            "foreign_session": "this session belongs to another user or token",
            "bad_session_id": "malformed session_id",
        }.get(str(reason), "session refused")
        await websocket.accept(subprotocol=accepted_subprotocol(websocket))
        with contextlib.suppress(Exception):
            await websocket.send_text(dumps(error_response(None, exc)))
            await websocket.close(code=1008, reason=close_reason)

    async def root(self, request: Request) -> JSONResponse:
        """What this service is: name, versions, the agents, the endpoints."""
        try:
            async with asyncio.timeout(2):
                agents = [a["agent_id"] for a in await self.service.list_agents()]
        except (RpcError, TimeoutError):
            agents = []
        return JSONResponse(
            {
                "name": SERVICE_NAME,
                "version": _version(),
                "protocol_version": PROTOCOL_VERSION,
                "agents": agents,
                "endpoints": {"websocket": "/v1/ws", "legacy_websocket": "/ws"},
            }
        )

    async def health(self, request: Request) -> JSONResponse:
        """Alive, how many sessions it holds and how many have a socket attached."""
        sessions = self.sessions.sessions.values()
        return JSONResponse(
            {
                "status": "ok",
                "sessions": len(sessions),
                "sockets": sum(1 for s in sessions if s.socket is not None),
            }
        )

    async def ready(self, request: Request) -> JSONResponse:
        """Ready only when the Agent Server answers."""
        if await self.service.ready():
            return JSONResponse({"ready": True})
        return JSONResponse({"ready": False, "reason": "Agent Server not answering"}, 503)

    async def batch_replace(self, request: Request) -> JSONResponse:
        """``POST /api/batch-replace``: ``{old, new, tasks}`` → ``{results}``."""
        reason = self.guard.refusal(request)
        if reason is not None:
            return JSONResponse({"error": {"code": "FORBIDDEN", "message": reason}}, 403)
        try:
            body = BatchReplaceRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            errors = [
                {"field": ".".join(str(p) for p in e["loc"]), "error": e["msg"]}
                for e in exc.errors()
            ]
            return JSONResponse(
                {"error": {"code": "VALIDATION", "message": "bad request body", "details": errors}},
                422,
            )
        if not self._rewriter:
            self._rewriter.append(_model_rewriter())
        results = await batch_replace(body, model=self._rewriter[0])
        return JSONResponse({"results": [r.to_json() for r in results]})

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """Expire idle sessions while serving; close the SDK client at the end."""
        self.sessions.start()
        try:
            yield
        finally:
            await self.sessions.stop()
            await self.service.aclose()

    def routes(self) -> list[BaseRoute]:
        """Every route of the adapter."""
        return [
            Route("/", self.root, methods=["GET"]),
            Route("/health", self.health, methods=["GET"]),
            Route("/ready", self.ready, methods=["GET"]),
            Route("/api/batch-replace", self.batch_replace, methods=["POST"]),
            WebSocketRoute("/v1/ws", self.websocket),
            WebSocketRoute("/ws", self.websocket),
        ]


def create_app(
    settings: RpcSettings | None = None,
    *,
    langgraph_url: str | None = None,
    standalone: bool = False,
    client_factory: Callable[[], LangGraphClient] | None = None,
) -> Starlette:
    """Build the adapter. ``langgraph_url`` None means the in-process client (mounted)."""
    settings = settings or RpcSettings()
    service = AgentService(
        client_factory or _sdk_client_factory(settings, langgraph_url),
        agent_timeout=settings.agent_timeout,
        tool_timeout=settings.tool_timeout,
        watch_limit=settings.background_watch,
    )
    endpoints = _Endpoints(settings, service, Guard(settings, check_host=standalone))
    app = Starlette(routes=endpoints.routes(), lifespan=endpoints.lifespan)
    app.state.service = service
    app.state.sessions = endpoints.sessions
    app.state.settings = settings
    return app


# The object langgraph.json's http.app points at: in-process SDK client, no Host check
# (the Agent Server in front decides which hosts it serves).
app = create_app()
