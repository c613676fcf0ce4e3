"""Benchmark: SkillsSync on an unchanged tree against a full upload, in the same run.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_skills_sync [-n 50]``.
It mirrors the checkout's ``skills/`` (plus ``graphs/AGENTS.md``) into a real
bubblewrap workspace under a throw-away DATA_DIR, then times N rounds of each:

- full upload: every file read and written into the workspace (the baseline, what a
  non-incremental sync does every run);
- incremental, unchanged tree: what SkillsSync does on a run where nothing changed
  (a stat per file against the cached hashes, one manifest read, no writes);
- incremental, one file changed: one upload plus the manifest.

It prints p50 per case and the full/unchanged ratio. Target (issue 6): ≥ 10x.
This is a measurement, not a test: it exits 0 unless something fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from graphs.middleware.skills_sync import AGENTS_MD, LocalTree, full_upload, sync_tree
from graphs.sandbox import SandboxSettings, make_bubblewrap_sandbox

REPO = Path(__file__).resolve().parents[2]
TARGET = 10.0


def _p50(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    """Time the three cases and print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=50, help="rounds per case")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="bench-skills-"))
    try:
        # A private copy of skills/, so the "one file changed" case can edit it.
        skills = data_dir / "skills"
        shutil.copytree(REPO / "skills", skills)
        settings = SandboxSettings(data_dir=data_dir)
        sandbox = make_bubblewrap_sandbox("bench-thread", settings=settings)
        tree = LocalTree(skills, extra={"/AGENTS.md": AGENTS_MD})
        files = tree.files()
        size = sum(p.stat().st_size for p in files.values())
        print(f"tree: {len(files)} files, {size / 1024:.1f} KiB")

        first = sync_tree(tree, sandbox)
        print(f"first sync: {len(first.added)} added")

        full_ms = _p50(lambda: full_upload(tree, sandbox), args.n)
        sync_tree(tree, sandbox)  # manifest back in step after the full uploads
        unchanged_ms = _p50(lambda: sync_tree(tree, sandbox), args.n)

        victim = next(p for v, p in sorted(files.items()) if v.endswith("SKILL.md"))
        original = victim.read_text(encoding="utf-8")
        counter = iter(range(1_000_000))

        def one_changed() -> None:
            victim.write_text(original + f"\n<!-- {next(counter)} -->\n", encoding="utf-8")
            report = sync_tree(tree, sandbox)
            assert len(report.updated) == 1, report

        changed_ms = _p50(one_changed, args.n)
        victim.write_text(original, encoding="utf-8")

        ratio = full_ms / unchanged_ms if unchanged_ms else float("inf")
        print(f"full upload          p50 {full_ms:8.2f} ms")
        print(f"incremental, same    p50 {unchanged_ms:8.2f} ms")
        print(f"incremental, 1 file  p50 {changed_ms:8.2f} ms")
        verdict = "OK" if ratio >= TARGET else "BELOW TARGET"
        print(f"full / unchanged = {ratio:.1f}x (target ≥ {TARGET:.0f}x) {verdict}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("SANDBOX_PROVIDER", "bubblewrap")
    main()
