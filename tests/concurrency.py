"""Run the same call from several threads released at once, for race tests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def all_at_once(n: int, fn: Callable[[int], T]) -> list[T]:
    """``fn(0)`` ... ``fn(n - 1)``, each in its own thread, all released together by a
    barrier; their results in that order. The first exception a call raised is re-raised."""
    barrier = threading.Barrier(n)
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = fn(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [results[i] for i in range(n)]
