"""Chart images in an S3 bucket (VIZ_STORE=s3): two gateway processes share it, so a chart
made by one is served by the other and a repeat call is a cache hit there; the size cap
evicts the least recently used chart from the bucket.

The bucket is moto's S3 in server mode on a free loopback port (a local stand-in for AWS
S3, MinIO and the like), reached by the gateways exactly as a real endpoint would be.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from fastmcp import Client
from moto.server import ThreadedMotoServer
from PIL import Image

from runstack.processes import ServiceHandle, free_port
from runstack.services import run_services
from viz_gateway.examples import EXAMPLES

pytestmark = pytest.mark.integration

BUCKET = "charts-test"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture(scope="module")
def s3(monkeypatch_module: pytest.MonkeyPatch) -> Iterator[str]:
    """moto's S3 on a free loopback port with the bucket made; its endpoint URL."""
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    for name, value in CREDENTIALS.items():
        monkeypatch_module.setenv(name, value)
    boto3.client("s3", endpoint_url=url).create_bucket(Bucket=BUCKET)
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@contextlib.contextmanager
def gateway(s3: str, data: Path, **env: str) -> Iterator[ServiceHandle]:
    settings = {
        "DATA_DIR": str(data),
        "VIZ_UPSTREAM_URL": "",
        "VIZ_STORE": "s3",
        "VIZ_S3_BUCKET": BUCKET,
        "VIZ_S3_ENDPOINT_URL": s3,
        **CREDENTIALS,
        **env,
    }
    data.mkdir(parents=True, exist_ok=True)
    with run_services(["viz-gateway"], settings, log_dir=data) as running:
        yield running["viz-gateway"]


def objects(s3: str) -> set[str]:
    listed = boto3.client("s3", endpoint_url=s3).list_objects_v2(Bucket=BUCKET)
    return {o["Key"] for o in listed.get("Contents") or []}


async def make(url: str, tool: str) -> Any:
    async with Client(f"{url}/mcp") as client:
        return await client.call_tool(tool, EXAMPLES[tool])


async def test_two_replicas_share_the_bucket(s3: str, tmp_path: Path) -> None:
    with gateway(s3, tmp_path / "a") as a, gateway(s3, tmp_path / "b") as b:
        made = await make(a.url, "generate_pie_chart")
        key = made.structured_content["hash"]
        assert made.structured_content["path"] == f"s3://{BUCKET}/charts/{key}.png"
        assert {f"charts/{key}.png", f"charts/{key}.json"} <= objects(s3)
        async with httpx.AsyncClient(timeout=30) as http:
            served = await http.get(f"{b.url}/charts/{key}.png")  # the other replica
            assert served.status_code == 200 and served.headers["content-type"] == "image/png"
            image = Image.open(io.BytesIO(served.content))
            image.load()
            assert image.size[0] > 100
            again = await make(b.url, "generate_pie_chart")
            assert again.structured_content["cached"] is True  # b found a's chart in the bucket
            health = (await http.get(f"{b.url}/health")).json()
            assert health["renders"] == 0 and health["store"]["backend"] == "s3"
    # Nothing was kept on either replica's disk.
    assert not list((tmp_path / "a").glob("charts/*")) and not list(
        (tmp_path / "b").glob("charts/*")
    )


async def test_the_cap_evicts_the_least_recently_used_chart(s3: str, tmp_path: Path) -> None:
    # About one chart's worth: each new chart pushes the least recently used one out.
    with gateway(s3, tmp_path / "c", VIZ_CACHE_MAX_MB="0.06", VIZ_S3_PREFIX="capped/") as c:
        keys = [
            (await make(c.url, tool)).structured_content["hash"]
            for tool in ("generate_column_chart", "generate_line_chart", "generate_bar_chart")
        ]
        held = {
            name.split("/")[1].split(".")[0] for name in objects(s3) if name.startswith("capped/")
        }
        assert keys[-1] in held and keys[0] not in held
        async with httpx.AsyncClient(timeout=10) as http:
            stats = (await http.get(f"{c.url}/charts/")).json()
        assert stats["bytes"] <= stats["max_bytes"] or stats["charts"] == 1


def test_s3_without_a_bucket_is_refused_naming_the_setting(tmp_path: Path) -> None:
    from viz_gateway.settings import VizSettings
    from viz_gateway.store import make_store

    with pytest.raises(ValueError, match="VIZ_S3_BUCKET"):
        make_store(VizSettings(data_dir=tmp_path, store="s3", s3_bucket=None))
