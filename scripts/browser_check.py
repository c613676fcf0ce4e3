"""Agent Chat UI in a real browser against the running stack (outside the CI suite).

    scripts/stack up --detach
    .venv/bin/pip install -c requirements.lock -e ".[browser]"   # Playwright (Python)
    apt-get install chromium                                      # Debian's browser
    .venv/bin/python -m scripts.browser_check --ui /path/to/agent-chat-ui

It builds the given checkout of langchain-ai/agent-chat-ui with npm (``npm install``,
``npm run build``), serves it on a free port pointed at the Agent Server, and drives
Debian's Chromium with Playwright (``executable_path``; ``playwright install`` is never
run) through what a buyer does:

1. an order: the approval card is shown and actionable; approving it shows the answer
   with the order number, and the ERP has that order;
2. an analysis: the answer names the background task; when the analyst has finished
   (the orchestrator's wake-up is a new run on the thread, which the UI shows on its next
   load of the thread), the final answer with the report renders cleanly;
3. on every page: no context note, no "Skills synced" note, no wake-up notification, no
   memory-extraction JSON.

Each check prints PASS / FAIL with a screenshot in ``--out``; the exit status is the
number of failed checks. The suite covers the same conventions at the API level
(tests/e2e/test_clients.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from runstack.processes import HOST, free_port
from runstack.threads import FLAGSHIP_REQUEST, REPORT
from scripts.stack import read_state

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
HIDDEN_TEXTS = (
    "当前用户 / Current user",
    "用户偏好文件 / Preferences file",
    "Skills synced",
    "技能已同步",
    "[SYSTEM NOTIFICATION",
    "<task-notification>",
    '"suppliers"',
)
"""What must never be on the page: context notes, the wake-up message, memory JSON."""
APPROVE_BUTTON = re.compile(r"^\s*(Approve|Accept|Submit|批准)\s*$", re.IGNORECASE)
ORDER_NO = re.compile(r"PO\d{11}")
# A quantity of its own each run (a multiple of the part's order step of 10): the same order
# again from the same person is held as a likely duplicate, which a rerun must not meet.
ORDER_QTY = 100 + 10 * (int(time.time()) // 60 % 90)
ORDER_REQUEST = f"给 NGK 下单 {ORDER_QTY} 个火花塞 IU7，8周内到货"


@dataclass
class Report:
    """Check results and where their screenshots are."""

    out: Path
    results: list[tuple[str, bool, str]] = field(default_factory=list)

    def check(self, page: Any, name: str, ok: bool, detail: str = "") -> bool:
        slug = re.sub(r"\W+", "-", name)
        shot = self.out / f"{len(self.results) + 1:02d}-{slug}.png"
        with contextlib.suppress(Exception):
            page.screenshot(path=str(shot), full_page=True)
        self.results.append((name, ok, detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}  [{shot.name}]", flush=True)
        return ok


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    print(f"$ {' '.join(argv)}", flush=True)
    subprocess.run(argv, cwd=cwd, env=env, check=True)


def build_ui(ui: Path, agent_url: str) -> dict[str, str]:
    """``npm install`` and ``npm run build`` in the checkout; the environment to serve it."""
    npm = shutil.which("npm")
    if npm is None:
        msg = "npm is not installed (apt-get install npm)"
        raise SystemExit(msg)
    env = {
        **os.environ,
        "NEXT_PUBLIC_API_URL": agent_url,
        "NEXT_PUBLIC_ASSISTANT_ID": "orchestrator",
        "NEXT_TELEMETRY_DISABLED": "1",
    }
    _run([npm, "install", "--no-audit", "--no-fund"], ui, env)
    _run([npm, "run", "build"], ui, env)
    return env


@contextlib.contextmanager
def serve_ui(ui: Path, env: dict[str, str]) -> Iterator[str]:
    """The built UI on a free loopback port (``next start``), stopped afterwards."""
    port = free_port()
    npx = shutil.which("npx") or "npx"
    log = (ui / ".browser-check-server.log").open("wb")
    proc = subprocess.Popen(
        [npx, "next", "start", "-H", HOST, "-p", str(port)],
        cwd=ui,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url, timeout=2).status_code < 500:
                    break
            if proc.poll() is not None:
                msg = f"the UI server exited; see {log.name}"
                raise SystemExit(msg)
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        log.close()


def _send(page: Any, text: str) -> None:
    box = page.locator("textarea").first
    box.wait_for(timeout=60_000)
    box.fill(text)
    box.press("Enter")


def _thread_id(page: Any) -> str | None:
    found = re.search(r"threadId=([0-9a-f-]{36})", page.url)
    return found.group(1) if found else None


def hidden_texts_absent(report: Report, page: Any, where: str) -> bool:
    """Fail when any internal note or the wake-up message is on the page."""
    body = page.inner_text("body")
    shown = [t for t in HIDDEN_TEXTS if t in body]
    return report.check(page, f"nothing internal shown ({where})", not shown, ", ".join(shown))


def order_flow(report: Report, page: Any, ui_url: str, erp_url: str) -> None:
    """Ask for an order, approve the card in the UI, find the order in the ERP."""
    page.goto(ui_url)
    _send(page, ORDER_REQUEST)
    button = page.get_by_role("button", name=APPROVE_BUTTON).first
    try:
        button.wait_for(timeout=120_000)
        shown = True
    except Exception:
        shown = False
    if not report.check(page, "the approval card is shown with an approve button", shown):
        return
    body = page.inner_text("body")
    report.check(
        page, "the card names the part and quantity", str(ORDER_QTY) in body and "IU7" in body
    )
    button.click()
    page.wait_for_function("() => /PO\\d{11}/.test(document.body.innerText)", timeout=120_000)
    order_no = ORDER_NO.search(page.inner_text("body"))
    found: dict[str, Any] = {}
    if order_no:
        found = httpx.get(
            f"{erp_url}/orders/search-details", params={"order_no": order_no.group(0)}, timeout=10
        ).json()
    report.check(
        page,
        "approving in the UI placed exactly one ERP order",
        found.get("total") == 1,
        order_no.group(0) if order_no else "no order number on the page",
    )
    hidden_texts_absent(report, page, "order")


def analysis_flow(report: Report, page: Any, ui_url: str, agent_url: str) -> None:
    """Ask for an analysis; once the analyst is done, the thread shows the report cleanly."""
    page.goto(ui_url)
    _send(page, FLAGSHIP_REQUEST)
    page.wait_for_function("() => /task_id/.test(document.body.innerText)", timeout=120_000)
    thread_id = _thread_id(page)
    report.check(page, "the analysis starts in the background", thread_id is not None)
    if thread_id is None:
        return
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        state = httpx.get(f"{agent_url}/threads/{thread_id}/state", timeout=30).json()
        messages = (state.get("values") or {}).get("messages") or []
        if messages and messages[-1].get("type") == "ai" and REPORT.search(str(messages[-1])):
            break
        time.sleep(2)
    # The wake-up is a new run on the thread: the UI shows it when it loads the thread.
    # ui_url already carries the query (apiUrl, assistantId): the thread is one more field.
    page.goto(
        f"{ui_url}&threadId={thread_id}" if "?" in ui_url else f"{ui_url}/?threadId={thread_id}"
    )
    try:
        page.wait_for_function(
            "() => /report_\\d{8}\\.md/.test(document.body.innerText)", timeout=60_000
        )
        shown = True
    except Exception:
        shown = False
    report.check(page, "the background result renders as the agent's answer", shown)
    hidden_texts_absent(report, page, "analysis")


def run_checks(args: argparse.Namespace, agent_url: str, erp_url: str) -> Report:
    """Build, serve and drive the UI; the results."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        msg = 'Playwright is missing: .venv/bin/pip install -c requirements.lock -e ".[browser]"'
        raise SystemExit(msg) from exc
    report = Report(Path(args.out))
    report.out.mkdir(parents=True, exist_ok=True)
    env = build_ui(Path(args.ui), agent_url) if not args.skip_build else dict(os.environ)
    with serve_ui(Path(args.ui), env) as ui_url, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=args.chromium, headless=True, args=CHROMIUM_FLAGS
        )
        page = browser.new_page()
        base = f"{ui_url}/?apiUrl={agent_url}&assistantId=orchestrator"
        try:
            order_flow(report, page, base, erp_url)
            analysis_flow(report, page, base, agent_url)
        finally:
            browser.close()
    return report


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, check the prerequisites, run the checks; the number that failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ui", required=True, help="a checkout of langchain-ai/agent-chat-ui")
    parser.add_argument("--agent-url", help="the Agent Server (default: the running stack's)")
    parser.add_argument("--erp-url", help="the ERP's REST API (default: the running stack's)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser binary")
    parser.add_argument("--out", default=".data/browser-check", help="screenshots folder")
    parser.add_argument("--skip-build", action="store_true", help="serve an existing build")
    args = parser.parse_args(argv)
    if not Path(args.chromium).is_file():
        print(f"no browser at {args.chromium}: apt-get install chromium", file=sys.stderr)
        return 2
    services = (read_state() or {}).get("services", {})
    agent_url = args.agent_url or services.get("agent-server", {}).get("url")
    erp_url = args.erp_url or services.get("sim-erp", {}).get("url")
    if not (agent_url and erp_url):
        print("the stack is not running: scripts/stack up --detach", file=sys.stderr)
        return 2
    report = run_checks(args, agent_url, erp_url)
    failed = [name for name, ok, _ in report.results if not ok]
    print(f"{len(report.results) - len(failed)} passed, {len(failed)} failed", flush=True)
    return len(failed)


if __name__ == "__main__":
    raise SystemExit(main())
