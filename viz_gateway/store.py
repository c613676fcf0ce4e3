"""Content-addressed chart store with a size cap: local disk (default) or an S3 bucket.

Files are named ``<hash>.<ext>``; all files of one hash (image, spec, SVG) are evicted
together, least recently used first, when the store grows past its cap.
:class:`ChartStore` keeps them under ``DATA_DIR/charts``; :class:`viz_gateway.s3store.S3ChartStore`
in an S3-compatible bucket shared by every gateway replica (``VIZ_STORE=s3``).
:func:`make_store` picks one from the settings. Both answer :class:`Store`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from viz_gateway.settings import VizSettings

log = logging.getLogger(__name__)

NAME_RE = re.compile(r"^([0-9a-f]{32})\.(png|svg|jpg|webp|json)$")
IMAGE_TYPES = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "jpg": "image/jpeg",
    "webp": "image/webp",
    "json": "application/json",
}


def content_hash(*parts: Any) -> str:
    """A stable 32-hex-digit hash of JSON-serialisable ``parts``."""
    raw = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


class Store(Protocol):
    """What the gateway needs of a chart store (every method may block: call it off the loop)."""

    max_bytes: int

    def find(self, key: str, exts: tuple[str, ...] = ...) -> str | None:
        """The extension of the stored image for ``key``, marking it recently used; or None."""

    def read_json(self, key: str) -> Any:
        """The JSON document stored as ``<key>.json``, or None."""

    def put(self, key: str, ext: str, data: bytes) -> Any:
        """Store ``data`` as ``<key>.<ext>``, then evict past the cap."""

    def get(self, key: str, ext: str) -> bytes | None:
        """The bytes of ``<key>.<ext>``, or None when it is not (or no longer) stored."""

    def location(self, key: str, ext: str) -> str:
        """Where ``<key>.<ext>`` lives: a host path or an ``s3://`` URL."""

    def stats(self) -> dict[str, Any]:
        """Number of charts and bytes held, and the cap."""


def make_store(settings: VizSettings) -> Store:
    """The store ``settings.store`` names (the S3 one needs ``boto3``: the ``s3`` extra)."""
    max_bytes = int(settings.cache_max_mb * 1024 * 1024)
    if settings.store == "s3":
        from viz_gateway.s3store import S3ChartStore

        return S3ChartStore.from_settings(settings, max_bytes)
    return ChartStore(settings.charts_dir, max_bytes)


class ChartStore:
    """Images and specs by hash on local disk, least recently used evicted past ``max_bytes``."""

    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._index: dict[str, list[float]] | None = None  # hash -> [last used, bytes]
        self.total = 0

    def _load(self) -> dict[str, list[float]]:
        if self._index is None:
            self.root.mkdir(parents=True, exist_ok=True)
            index: dict[str, list[float]] = {}
            for entry in os.scandir(self.root):
                m = NAME_RE.match(entry.name)
                if not m:
                    continue
                st = entry.stat()
                slot = index.setdefault(m.group(1), [0.0, 0.0])
                slot[0] = max(slot[0], st.st_mtime)
                slot[1] += st.st_size
            self._index = index
            self.total = int(sum(v[1] for v in index.values()))
        return self._index

    def path(self, key: str, ext: str) -> Path:
        """Where ``<key>.<ext>`` lives (whether or not it exists)."""
        return self.root / f"{key}.{ext}"

    def find(self, key: str, exts: tuple[str, ...] = ("png", "jpg", "webp", "svg")) -> str | None:
        """The extension of the stored image for ``key``, marking it recently used; or None."""
        with self._lock:
            index = self._load()
            if key not in index:
                return None
            for ext in exts:
                p = self.path(key, ext)
                if p.exists():
                    now = time.time()
                    index[key][0] = now
                    with contextlib.suppress(OSError):
                        os.utime(p, (now, now))
                    return ext
        return None

    def read_json(self, key: str) -> Any:
        """The JSON document stored as ``<key>.json``, or None."""
        try:
            return json.loads(self.path(key, "json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def get(self, key: str, ext: str) -> bytes | None:
        """The bytes of ``<key>.<ext>``, or None."""
        try:
            return self.path(key, ext).read_bytes()
        except OSError:
            return None

    def location(self, key: str, ext: str) -> str:
        """The host path of ``<key>.<ext>``."""
        return str(self.path(key, ext))

    def put(self, key: str, ext: str, data: bytes) -> Path:
        """Store ``data`` atomically as ``<key>.<ext>``, then evict past the cap."""
        with self._lock:
            index = self._load()
            target = self.path(key, ext)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(data)
            old = target.stat().st_size if target.exists() else 0
            os.replace(tmp, target)
            slot = index.setdefault(key, [0.0, 0.0])
            slot[0] = time.time()
            slot[1] += len(data) - old
            self.total += len(data) - old
            self._evict(keep=key)
            return target

    def _evict(self, keep: str) -> None:
        assert self._index is not None
        if self.total <= self.max_bytes:
            return
        for key, (_, size) in sorted(self._index.items(), key=lambda kv: kv[1][0]):
            if self.total <= self.max_bytes:
                break
            if key == keep:
                continue
            for ext in IMAGE_TYPES:
                with contextlib.suppress(FileNotFoundError):
                    self.path(key, ext).unlink()
            del self._index[key]
            self.total -= int(size)
            log.debug("evicted chart %s (%d bytes)", key, size)

    def stats(self) -> dict[str, Any]:
        """Number of charts and bytes held, and the cap."""
        with self._lock:
            index = self._load()
            return {
                "backend": "local",
                "charts": len(index),
                "bytes": self.total,
                "max_bytes": self.max_bytes,
            }


__all__ = ["IMAGE_TYPES", "NAME_RE", "ChartStore", "Store", "content_hash", "make_store"]
