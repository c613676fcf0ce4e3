"""Forward a chart call to an upstream chart MCP server and download the image it returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_URL_RE = re.compile(r"https?://[^\s\"'<>)\]]+")
MAX_IMAGE_BYTES = 20 * 1024 * 1024


class UpstreamError(RuntimeError):
    """The upstream server failed, answered with an error, or returned no usable image."""


@dataclass(frozen=True)
class UpstreamImage:
    """An image fetched from upstream: its bytes, file extension and original URL."""

    data: bytes
    ext: str
    url: str


def sniff(data: bytes) -> str | None:
    """The image extension of ``data`` from its magic bytes, or None if it is no image."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    head = data[:512].lstrip().lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:2048]):
        return "svg"
    return None


async def fetch_chart(
    url: str, tool: str, args: dict[str, Any], *, timeout_s: float
) -> UpstreamImage:
    """Call ``tool`` on the MCP server at ``url`` and download the image URL it answers with."""
    import httpx
    from fastmcp import Client
    from fastmcp.exceptions import ToolError

    try:
        async with Client(url, timeout=timeout_s) as client:
            result = await client.call_tool(tool, args, raise_on_error=True)
    except ToolError as exc:
        raise UpstreamError(f"upstream {tool} failed: {exc}") from exc
    except Exception as exc:
        raise UpstreamError(f"upstream {url} unreachable: {type(exc).__name__}: {exc}") from exc
    text = " ".join(getattr(block, "text", "") for block in result.content)
    match = _URL_RE.search(text)
    if not match:
        raise UpstreamError(f"upstream {tool} returned no image URL: {text[:200]!r}")
    image_url = match.group(0)
    try:
        async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=True) as http:
            response = await http.get(image_url)
            response.raise_for_status()
    except httpx.HTTPError as exc:
        raise UpstreamError(f"downloading {image_url} failed: {exc}") from exc
    data = response.content
    if len(data) > MAX_IMAGE_BYTES:
        raise UpstreamError(f"upstream image {image_url} is larger than {MAX_IMAGE_BYTES} bytes")
    ext = sniff(data)
    if ext is None:
        raise UpstreamError(f"upstream URL {image_url} did not return an image")
    return UpstreamImage(data=data, ext=ext, url=image_url)


__all__ = ["MAX_IMAGE_BYTES", "UpstreamError", "UpstreamImage", "fetch_chart", "sniff"]
