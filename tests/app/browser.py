"""Helpers for the real-browser tests: start the app as `make app` does, drive Debian's chromium.

The app runs in a subprocess (``streamlit run analysis_app/server.py -- --results DIR`` on a
free localhost port, killed with its process group at the end); the browser is Debian's
``/usr/bin/chromium`` driven by Playwright through ``executable_path`` (nothing is
downloaded). :func:`wait_idle` waits until the script run a click started has finished.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.app.conftest import APP_DIR

CHROMIUM = Path("/usr/bin/chromium")
PAGES = {
    "explorer": "",
    "statistics": "statistics",
    "errors": "errors",
    "languages": "languages",
    "shredded": "shredded",
    "morph": "morph",
}
NAV_LABELS = {
    "explorer": "Segmentation explorer",
    "statistics": "Statistics (Table 4)",
    "errors": "Errors",
    "languages": "Languages",
    "shredded": "Shredded words",
    "morph": "Morpheme boundaries",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_group(proc: subprocess.Popen, timeout: float) -> None:
    """Stop a process started with ``start_new_session=True`` and everything it started: SIGTERM to its group,
    SIGKILL after ``timeout`` seconds."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"the app did not answer at {url} within {timeout} s")


@contextlib.contextmanager
def running_app(results: Path | str, log_dir: Path, *, env: dict | None = None):
    """The app started with ``--results results``; yields its URL, always stops it."""
    port = free_port()
    env = {
        **os.environ,
        "TOKSTUDY_APP_UPLOAD_DIR": str(log_dir / "uploads"),
        "OMP_NUM_THREADS": "1",
        "TOKSTUDY_APP_PREWARM": "1",  # as `make app` starts it
        **(env or {}),
    }
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_DIR / "server.py"),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--",
        "--results",
        str(results),
    ]
    with open(log_dir / f"streamlit-{port}.log", "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc)
            yield url
        finally:
            stop_group(proc, timeout=10)


@contextlib.contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A fresh Playwright page in Debian's headless chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            watch_runs(page)
            page.set_default_timeout(90_000)
            yield page
        finally:
            browser.close()


#: run in every document of a page (:func:`watch_runs`): the time of the latest user input (a click, a key, a file
#: or text set) and of the latest script run seen starting, so :func:`wait_idle` can tell that the run an action
#: started has already ended (the attribute's old values are read: a run that starts and ends between two
#: callbacks of the observer is seen too).
_RUN_WATCH = """(() => {
  const seen = (window.__tsRuns = {input: -1, start: -2});
  const mark = () => { seen.input = performance.now(); };
  for (const type of ["click", "keydown", "input", "change"]) document.addEventListener(type, mark, true);
  new MutationObserver((records) => {
    if (records.some((r) => r.oldValue === "running" || r.target.getAttribute("data-test-script-state") === "running"))
      seen.start = performance.now();
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                        attributeFilter: ["data-test-script-state"]});
})();"""


def watch_runs(page) -> None:
    """Record in ``page`` when a script run starts and when the user last acted (see :func:`wait_idle`)."""
    page.add_init_script(script=_RUN_WATCH)


def wait_idle(page, *, started_within: float = 1.5, timeout: float = 90) -> None:
    """Wait until the app's script is not running (after a click: until the run it started ended).

    The run an action starts can begin and end before this looks: on a page that :func:`watch_runs`, a run seen
    starting after the last user input is that run; else (or when the action started no run) it waits up to
    ``started_within`` seconds for a run to start."""
    app = '[data-testid="stApp"]'
    with contextlib.suppress(Exception):  # the run may start and end before we look
        page.wait_for_function(
            f"() => (window.__tsRuns && window.__tsRuns.start > window.__tsRuns.input)"
            f" || document.querySelector('{app}:not([data-test-script-state=\"notRunning\"])') !== null",
            timeout=started_within * 1000,
        )
    page.wait_for_selector(f'{app}[data-test-script-state="notRunning"]', timeout=timeout * 1000)
    # widgets are drawn by lazily loaded code: a placeholder ("skeleton") stands in until then (not counted:
    # those in the hidden container of components/preload.py, which nobody sees)
    page.wait_for_function(
        "() => ![...document.querySelectorAll('[data-testid=\"stSkeleton\"]')]"
        ".some(e => !e.closest('.st-key-ts_preload'))",
        timeout=timeout * 1000,
    )
    page.wait_for_timeout(100)  # the last deltas are painted


def open_url(page, url: str) -> None:
    """Open ``url`` in ``page`` and wait until the app has drawn it (its first script run ended)."""
    page.goto(url)
    page.wait_for_selector('[data-testid="stApp"]')
    wait_idle(page)


def exceptions(page) -> list[str]:
    """The text of every exception box the app shows (a traceback on the page)."""
    return [e.inner_text() for e in page.query_selector_all('[data-testid="stException"]')]


def alerts(page, kind: str) -> list[str]:
    """Texts of the ``kind`` alerts shown: error, warning, info, success."""
    sel = {
        "error": "stAlertContentError",
        "warning": "stAlertContentWarning",
        "info": "stAlertContentInfo",
        "success": "stAlertContentSuccess",
    }[kind]
    # an alert's box can be in the page a moment before its text is painted: wait (briefly) until every box of
    # this kind has its text, so that a slow paint is not read as an empty message
    with contextlib.suppress(Exception):
        page.wait_for_function(
            f"() => [...document.querySelectorAll('[data-testid=\"{sel}\"]')].every(e => e.innerText.trim() !== '')",
            timeout=10_000,
        )
    return [e.inner_text() for e in page.query_selector_all(f'[data-testid="{sel}"]')]


def goto_page(page, name: str) -> None:
    """Click the page's entry in the sidebar navigation (what a user does), then wait for the run."""
    page.get_by_test_id("stSidebarNav").get_by_text(NAV_LABELS[name], exact=True).click()
    wait_idle(page)


def sidebar_tokenizers(page) -> list[str]:
    """The tokenizers the sidebar's multiselect shows as selected."""
    box = page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first
    return [t.inner_text().strip() for t in box.locator(".react-aria-ComboBox [data-tag] span[title]").all()]


def sidebar_dataset(page) -> str:
    """The dataset the sidebar's selectbox shows."""
    return page.get_by_test_id("stSidebar").locator('input[aria-label="Dataset"]').input_value()
