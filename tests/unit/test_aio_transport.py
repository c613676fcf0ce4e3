"""httpx over aiohttp (``core/aio_transport.py``), as the MCP clients and the ERP MCP
server use it: against real sockets, what arrives at the server is what the request
said, answers come back whole or streamed, and every fault a server can cause raises the
httpx error the callers' retry policies expect (a refused connection is not a time-out:
a write is sent again only after the first, the ERP is "down" only after the first).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest

from core.aio_transport import AiohttpTransport, aiohttp_client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    """One HTTP/1.1 request off the wire: its request line, headers, body."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    line, *fields = head.split("\r\n")[:-2]
    headers = {k.strip().lower(): v.strip() for k, v in (f.split(":", 1) for f in fields)}
    body = await reader.readexactly(int(headers.get("content-length", 0)))
    return line, headers, body


@contextlib.asynccontextmanager
async def server(handler: Handler) -> AsyncIterator[tuple[str, list[int]]]:
    """``handler`` serving each connection on a loopback port; the base URL and a list
    that counts the connections opened."""
    opened: list[int] = []
    writers: list[asyncio.StreamWriter] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        opened.append(1)
        writers.append(writer)
        try:
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    listener = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", opened
    finally:
        for writer in writers:
            writer.close()
        listener.close()
        await listener.wait_closed()


def answer(status: str, body: bytes, *headers: str) -> bytes:
    extra = "".join(f"{h}\r\n" for h in headers)
    return f"HTTP/1.1 {status}\r\ncontent-length: {len(body)}\r\n{extra}\r\n".encode() + body


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers every request on the connection with what it received, as JSON."""
    while True:
        try:
            line, headers, body = await read_request(reader)
        except asyncio.IncompleteReadError:
            return
        seen = {"line": line, "headers": headers, "body": body.decode()}
        data = json.dumps(seen, ensure_ascii=False).encode()
        writer.write(answer("201 Created", data, "content-type: application/json", "x-a: 1"))
        await writer.drain()


async def test_a_request_arrives_as_written_and_its_answer_comes_back() -> None:
    async with server(echo) as (url, opened), aiohttp_client() as client:
        got = await client.post(
            f"{url}/orders/create",
            params={"category": "火花塞", "q": "a b&c"},
            json={"note": "加急", "lines": [1, 2]},
            headers={"accept": "application/json", "user-agent": "procurement/1"},
        )
        assert got.status_code == 201 and got.reason_phrase == "Created"
        assert got.headers["x-a"] == "1"
        seen = got.json()
        assert seen["line"] == (
            "POST /orders/create?category=%E7%81%AB%E8%8A%B1%E5%A1%9E&q=a+b%26c HTTP/1.1"
        )
        assert json.loads(seen["body"]) == {"note": "加急", "lines": [1, 2]}
        sent = seen["headers"]
        assert sent["content-type"] == "application/json"
        assert sent["user-agent"] == "procurement/1" and sent["accept"] == "application/json"
        assert sent["host"] == url.removeprefix("http://")
        # Nothing of aiohttp's own: no compression asked for, no second user agent.
        assert "accept-encoding" in sent  # httpx's client default, as before
        assert "aiohttp" not in json.dumps(sent).lower()
        # A second request reuses the kept-alive connection.
        again = await client.get(f"{url}/health")
        assert again.json()["line"] == "GET /health HTTP/1.1"
        assert len(opened) == 1


async def test_a_bare_request_carries_only_its_own_headers() -> None:
    # What the ERP MCP server sends: an httpx.Request on the transport, no client defaults.
    transport = AiohttpTransport()
    try:
        async with server(echo) as (url, _):
            request = httpx.Request("GET", f"{url}/parts", headers={"accept": "application/json"})
            got = await transport.handle_async_request(request)
            await got.aread()
            assert set(got.json()["headers"]) == {"host", "accept"}
    finally:
        await transport.aclose()


async def test_a_compressed_answer_is_decoded_once() -> None:
    payload = json.dumps({"items": ["NGK"] * 50}).encode()

    async def gzipped(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer("200 OK", gzip.compress(payload), "content-encoding: gzip"))
        await writer.drain()

    async with server(gzipped) as (url, _), aiohttp_client() as client:
        got = await client.get(url)
        assert got.json() == {"items": ["NGK"] * 50}


async def test_a_refused_connection_is_a_connect_error_not_a_time_out() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    transport = AiohttpTransport()
    try:
        with pytest.raises(httpx.ConnectError):
            await transport.handle_async_request(httpx.Request("GET", f"http://127.0.0.1:{port}/"))
    finally:
        await transport.aclose()


async def test_a_silent_server_is_a_read_time_out() -> None:
    hold = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await hold.wait()

    async with server(silent) as (url, _), aiohttp_client(timeout=httpx.Timeout(0.2)) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(url)
        hold.set()


async def closes_at_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_request(reader)


async def cuts_the_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n" + b"x" * 10)
    await writer.drain()


async def not_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_request(reader)
    writer.write(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
    await writer.drain()


@pytest.mark.parametrize("handler", [closes_at_once, cuts_the_body, not_http])
async def test_a_connection_lost_under_a_request_is_a_protocol_error(handler: Handler) -> None:
    async with server(handler) as (url, _), aiohttp_client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(url)


async def test_an_event_stream_arrives_as_it_is_sent_and_can_be_left_early() -> None:
    second = asyncio.Event()
    gone = asyncio.Event()

    async def events(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        chunk = b"data: one\n\n"
        writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        await writer.drain()
        await second.wait()  # the client has read the first event before this is sent
        chunk = b"data: two\n\n"
        writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        await writer.drain()
        if await reader.read(1) == b"":  # the client hung up without reading to the end
            gone.set()

    async with server(events) as (url, _), aiohttp_client() as client:
        async with client.stream("GET", url) as response:
            lines = response.aiter_lines()
            assert await anext(lines) == "data: one"
            second.set()
            assert await anext(lines) == ""
            assert await anext(lines) == "data: two"
        await asyncio.wait_for(gone.wait(), 5)


async def test_a_closed_transport_opens_again_on_the_next_request() -> None:
    async with server(echo) as (url, opened):
        transport = AiohttpTransport()
        async with httpx.AsyncClient(transport=transport) as client:
            assert (await client.get(url)).status_code == 201
        # What an MCP session does when it is replaced: a new client, or the same transport.
        async with httpx.AsyncClient(transport=transport) as client:
            assert (await client.get(url)).status_code == 201
        assert len(opened) == 2
