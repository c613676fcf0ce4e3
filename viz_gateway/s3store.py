"""Chart images in an S3-compatible bucket, shared by every gateway replica (``VIZ_STORE=s3``).

Same naming as the local store (``<prefix><hash>.<ext>``), so a chart made by one replica
is found and served by any other: a miss in this replica's index asks the bucket before
the chart is drawn again. The size cap (``VIZ_CACHE_MAX_MB``) is kept per replica, least
recently used first, from an index built by listing the bucket at first use and updated
by this replica's own reads and writes; with several replicas the bucket can briefly hold
more than the cap (add a lifecycle rule for a hard ceiling). Every method blocks (boto3):
the gateway calls them off the event loop.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from viz_gateway.store import IMAGE_TYPES, NAME_RE

if TYPE_CHECKING:
    from viz_gateway.settings import VizSettings

__all__ = ["S3ChartStore"]

log = logging.getLogger(__name__)

_IMAGE_EXTS = ("png", "jpg", "webp", "svg")


def _missing(exc: Exception) -> bool:
    code = str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))
    return code in ("404", "NoSuchKey", "NotFound")


class S3ChartStore:
    """Images and specs by hash in ``bucket`` under ``prefix``, capped at ``max_bytes``."""

    def __init__(self, bucket: str, prefix: str, max_bytes: int, *, client: Any) -> None:
        """``client``: a boto3 S3 client (or anything with its methods)."""
        self.bucket = bucket
        self.prefix = prefix
        self.max_bytes = max_bytes
        self._s3 = client
        self._lock = threading.Lock()
        self._index: dict[str, dict[str, Any]] | None = None  # hash -> {"used", "sizes"}
        self.total = 0

    @classmethod
    def from_settings(cls, settings: VizSettings, max_bytes: int) -> S3ChartStore:
        """The store of ``VIZ_S3_*``; ``ValueError`` naming the setting when one is missing."""
        if not settings.s3_bucket:
            msg = "VIZ_STORE=s3 needs VIZ_S3_BUCKET (and VIZ_S3_ENDPOINT_URL for non-AWS S3)"
            raise ValueError(msg)
        try:
            import boto3
        except ImportError as exc:
            msg = "VIZ_STORE=s3 needs boto3: pip install 'procurement-agents[s3]'"
            raise ValueError(msg) from exc
        client = boto3.client(
            "s3",
            endpoint_url=settings.s3_endpoint_url or None,
            region_name=settings.s3_region or None,
        )
        return cls(settings.s3_bucket, settings.s3_prefix, max_bytes, client=client)

    def _name(self, key: str, ext: str) -> str:
        return f"{self.prefix}{key}.{ext}"

    def _add(self, index: dict[str, dict[str, Any]], name: str, size: int, used: float) -> None:
        m = NAME_RE.match(name.removeprefix(self.prefix))
        if not m:
            return
        slot = index.setdefault(m.group(1), {"used": 0.0, "sizes": {}})
        slot["used"] = max(slot["used"], used)
        self.total += size - slot["sizes"].get(m.group(2), 0)
        slot["sizes"][m.group(2)] = size

    def _listed(self, prefix: str) -> list[dict[str, Any]]:
        objects: list[dict[str, Any]] = []
        for page in self._s3.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=prefix
        ):
            objects.extend(page.get("Contents") or [])
        return objects

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._index is None:
            index: dict[str, dict[str, Any]] = {}
            self.total = 0
            for obj in self._listed(self.prefix):
                self._add(index, obj["Key"], int(obj["Size"]), obj["LastModified"].timestamp())
            self._index = index
        return self._index

    def _refresh(self, key: str) -> None:
        """Learn what the bucket holds for ``key`` (another replica may have made it)."""
        index = self._load()
        for obj in self._listed(f"{self.prefix}{key}."):
            self._add(index, obj["Key"], int(obj["Size"]), time.time())

    def find(self, key: str, exts: tuple[str, ...] = _IMAGE_EXTS) -> str | None:
        """The extension of the stored image for ``key``, marking it recently used; or None."""
        with self._lock:
            index = self._load()
            if key not in index:
                self._refresh(key)
            slot = index.get(key)
            if slot is None:
                return None
            for ext in exts:
                if ext in slot["sizes"]:
                    slot["used"] = time.time()
                    return ext
        return None

    def get(self, key: str, ext: str) -> bytes | None:
        """The bytes of ``<key>.<ext>``, or None when it is not (or no longer) stored."""
        try:
            body = self._s3.get_object(Bucket=self.bucket, Key=self._name(key, ext))["Body"]
            return bytes(body.read())
        except Exception as exc:
            if _missing(exc):
                return None
            raise

    def read_json(self, key: str) -> Any:
        """The JSON document stored as ``<key>.json``, or None."""
        data = self.get(key, "json")
        if data is None:
            return None
        try:
            return json.loads(data)
        except ValueError:
            return None

    def put(self, key: str, ext: str, data: bytes) -> str:
        """Store ``data`` as ``<key>.<ext>``, then evict past the cap; its location."""
        content_type = IMAGE_TYPES.get(ext, "application/octet-stream")
        name = self._name(key, ext)
        self._s3.put_object(Bucket=self.bucket, Key=name, Body=data, ContentType=content_type)
        with self._lock:
            self._add(self._load(), name, len(data), time.time())
            self._evict(keep=key)
        return self.location(key, ext)

    def _evict(self, keep: str) -> None:
        index = self._index
        assert index is not None
        if self.total <= self.max_bytes:
            return
        for key, slot in sorted(index.items(), key=lambda kv: kv[1]["used"]):
            if self.total <= self.max_bytes:
                break
            if key == keep:
                continue
            names = [{"Key": self._name(key, ext)} for ext in slot["sizes"]]
            self._s3.delete_objects(Bucket=self.bucket, Delete={"Objects": names, "Quiet": True})
            self.total -= sum(slot["sizes"].values())
            del index[key]
            log.debug("evicted chart %s from s3://%s", key, self.bucket)

    def location(self, key: str, ext: str) -> str:
        """``s3://bucket/prefix<key>.<ext>``."""
        return f"s3://{self.bucket}/{self._name(key, ext)}"

    def stats(self) -> dict[str, Any]:
        """Number of charts and bytes this replica knows of, and the cap."""
        with self._lock:
            index = self._load()
            return {
                "backend": "s3",
                "bucket": self.bucket,
                "charts": len(index),
                "bytes": self.total,
                "max_bytes": self.max_bytes,
            }
