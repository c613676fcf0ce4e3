"""LangSmith traces of one offline analysis, recorded by a stand-in endpoint.

``langgraph dev`` runs with ``LANGSMITH_TRACING=true`` and ``LANGSMITH_ENDPOINT`` pointing
at a tiny HTTP server here that records everything the LangSmith client sends. One
analysis must then be one readable trace, as the README says: the analyst's runs nested
in the orchestrator's trace (under its ``start_async_task`` span), the orchestrator's
wake-up run a trace of its own on the same thread (``thread_id`` metadata, which LangSmith
groups a thread by); at most 5 MB of payload in all, decompressed; no local path and no
secret in any of it.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langgraph_sdk import get_client

from runstack.processes import HOST, ROOT
from runstack.threads import FLAGSHIP_REQUEST, REPORT, follow_run, poll, start_analysis
from tests.e2e.agents_stack import Stack, langgraph_dev, services

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

API_KEY = "lsv2_dummy_0123456789abcdefghij"
SECRET = "erp-secret-token-0123456789"
"""A secret in the server's environment that no trace may carry."""
MAX_BYTES = 7 * 1024 * 1024
"""The whole trace of the flagship analysis. Untrimmed it was 60 MB; trimmed it grows with the
parts the analysis reads (each offer read is a message every later model call records, cut
to MAX_TRACE_CHARS): 4-5 MB for 24 spark plugs, 5.7 MB for the 49 of the cross-referenced
catalogue (41 offer reads)."""
INFO = {
    "version": "0.10.0",
    # JSON batches to /runs/batch (not multipart): plain JSON to read back.
    "batch_ingest_config": {
        "use_multipart_endpoint": False,
        "size_limit": 100,
        "size_limit_bytes": 20_971_520,
        "scale_up_qsize_trigger": 1000,
        "scale_up_nthreads_limit": 16,
        "scale_down_nempty_trigger": 4,
    },
}


class Recorder(ThreadingHTTPServer):
    """The stand-in LangSmith API: answers what the client asks, keeps every body."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__((HOST, 0), _Handler)
        self.bodies: list[bytes] = []
        self.other: list[tuple[str, bytes]] = []
        """What else reached it (langgraph-api's own usage beacon): not trace payloads."""
        self.runs: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"

    def keep(self, body: bytes) -> None:
        with self.lock:
            self.bodies.append(body)
            try:
                data = json.loads(body)
            except ValueError:
                return
            for op in ("post", "patch"):
                for run in data.get(op) or []:
                    self.runs.setdefault(str(run["id"]), {}).update(
                        {k: v for k, v in run.items() if v is not None}
                    )


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def log_message(self, *args: Any) -> None:
        return

    def _answer(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(INFO if self.path.startswith("/info") else {})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path.startswith("/runs"):
            self.server.keep(body)
        else:
            self.server.other.append((self.path, body))
        self._answer({})

    do_PATCH = do_POST


@pytest.fixture(scope="module")
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def traced(recorder: Recorder) -> Iterator[Stack]:
    with services() as stack:
        stack.env.update(
            {
                "LANGSMITH_TRACING": "true",
                "LANGSMITH_ENDPOINT": recorder.url,
                "LANGSMITH_API_KEY": API_KEY,
                "LANGSMITH_PROJECT": "procurement-traces",
                "ERP_API_TOKEN": SECRET,
            }
        )
        with langgraph_dev(stack) as agent:
            stack.agent = agent
            yield stack


def _trace(runs: dict[str, dict[str, Any]], trace_id: str) -> list[dict[str, Any]]:
    return [r for r in runs.values() if str(r.get("trace_id")) == trace_id]


async def test_one_analysis_is_one_linked_small_clean_trace(
    traced: Stack, recorder: Recorder
) -> None:
    user = {"user_id": "trace-buyer", "username": "Trace"}
    async with get_client(url=traced.url, timeout=120) as client:
        started = await start_analysis(client, FLAGSHIP_REQUEST, user)
        [run] = await client.runs.list(started.task_id, limit=1)
        async for _ in follow_run(client, started.task_id, run["run_id"]):
            pass
        for later in await client.runs.list(started.thread_id, limit=10):
            async for _ in follow_run(client, started.thread_id, later["run_id"]):
                pass

    def analyst_root() -> dict[str, Any] | None:
        # the analyst's graph run, finished (its end time recorded)
        for r in recorder.runs.values():
            meta = (r.get("extra") or {}).get("metadata") or {}
            if meta.get("run_id") == run["run_id"] and r.get("name") == "analyst":
                return r if r.get("end_time") else None
        return None

    async def settled() -> dict[str, Any] | None:
        return analyst_root()

    analyst = await poll(settled, 60, "the analyst's trace to arrive", every=0.5)

    # nested: the analyst's graph run is a child in the orchestrator's trace
    runs = dict(recorder.runs)
    parent = runs.get(str(analyst.get("parent_run_id")))
    assert parent is not None, "the analyst's run has no recorded parent"
    assert parent["name"] == "start_async_task"
    trace = _trace(runs, str(analyst["trace_id"]))
    [root] = [r for r in trace if not r.get("parent_run_id")]
    root_meta = (root.get("extra") or {}).get("metadata") or {}
    assert root["name"] == "orchestrator" and root_meta.get("run_id") == started.run_id
    assert any(r["name"] == "fetch_url" for r in trace)  # the analyst's steps are in it

    # the wake-up: its own trace, on the orchestrator's thread
    woken = [
        r
        for r in runs.values()
        if r.get("name") == "orchestrator"
        and not r.get("parent_run_id")
        and ((r.get("extra") or {}).get("metadata") or {}).get("thread_id") == started.thread_id
        and r["id"] != root["id"]
    ]
    assert woken, "no trace of the orchestrator's wake-up run"
    assert any(REPORT.search(json.dumps(r.get("outputs") or {})) for r in woken)

    payload = b"".join(recorder.bodies)
    assert len(payload) <= MAX_BYTES, f"{len(payload) / 1e6:.1f} MB of trace payload"
    text = payload.decode("utf-8", errors="replace")
    assert str(ROOT) not in text
    assert str(traced.data_dir) not in text
    assert SECRET not in text and API_KEY not in text
