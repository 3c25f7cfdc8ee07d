"""How fast the app renders: in a real browser per page (``--browser``), and the explorer's own path.

``--browser`` (what BENCHMARKS.md reports): the app started as `make app` does, on a results
folder with 3 SentencePiece tokenizers and one model's predictions for CoNLL-2003 test (the
whole split), driven by Debian's chromium through Playwright. Each page is clicked in the
sidebar navigation and timed from the click until the script run it started has ended and
every element is drawn (no placeholder left): the issue's "script idle after the click".
Columns:

- *cold*: the page's first visit in a fresh app process, by a click like every later visit. The
  explorer is the start page, so for its cold visit the browser opens the app on another page's
  URL (``/statistics``), waits until that is drawn, then clicks "Segmentation explorer". Three
  settings: *ready* (the click comes after the server's own preparation of every page's default
  view has finished: ``analysis_app/services/background.py``; the time that took is printed), *at
  once* (clicked as soon as the first page is drawn, the preparation still under way),
  *unprepared* (``TOKSTUDY_APP_PREWARM=0``: the page computes everything itself); ``--quick``
  leaves out the last.
- *warm*: later visits of the same page in the same session (median and max of 5).
- After each cold figure: when the server's script run started after the click and how long it took
  (``TOKSTUDY_APP_TIMING=1``); the rest of the figure is the browser's (drawing, loading its code).
- The Errors page fits its odds ratios beside the page (``analysis_app/services/background.py``):
  on a cold visit that has to fit them, the page is drawn (and timed) with a placeholder in their
  place, and the time from the click until the odds-ratio table has replaced it is printed too.
- *first page load* (the start page's row only): the browser opening the app's URL in a fresh
  app process, timed from ``page.goto`` until the start page is drawn and the script idle; this
  includes loading Streamlit's whole frontend and opening its websocket, which no click does.
  Measured in each of the cold settings (printed below the table); the table shows *ready*.

Without ``--browser``: the explorer's render path alone, as before:

Times (1) the explorer's render path itself (``build_view`` = one batch ``segment`` call per
tokenizer + ``render_html``), median over many runs, and (2) a full Streamlit script rerun
of the explorer page through ``AppTest`` after changing the text (widget handling, the
sidebar, cache lookups, element serialisation; no browser round trip).

Usage (needs the shared corpora for training the three tokenizers):

    TOKSTUDY_DATA=/work/shared/data OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_app.py [--browser]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import runinfo  # noqa: E402 (a sibling script module)


def train_tokenizers(out: Path) -> list[Path]:
    """The three SentencePiece unigram tokenizers of the app tests (``tests/app/conftest.py``), ALBERT ids."""
    from tests.fixtures_sentencepiece import train_unigram
    from tokstudy.data.registry import load_dataset

    train = load_dataset("conll2003", "train")
    sentences = [" ".join(s.words) for s in train.sentences[:6000]]
    paths = []
    for v in (600, 1200, 2400):
        d = out / "tokenizers" / f"spm-{v}"
        d.mkdir(parents=True)
        train_unigram(sentences, d / "spiece", v, albert=True, character_coverage=1.0, num_threads=1)
        paths.append(d)
    return paths


def fifty_words() -> tuple[list[str], list[str]]:
    from tokstudy.data.registry import load_dataset

    test = load_dataset("conll2003", "test")
    words, tags = [], []
    for s in test:
        words.extend(s.words)
        tags.extend(s.tags)
        if len(words) >= 50:
            return words[:50], tags[:50]
    raise RuntimeError("CoNLL-2003 test has fewer than 50 words")


def main() -> None:
    from analysis_app.services.explorer import build_view, render_html
    from tokstudy.tokenization.loading import load_tokenizer

    tmp = Path(tempfile.mkdtemp(prefix="bench_app_"))
    dirs = train_tokenizers(tmp)
    segs = [load_tokenizer(d) for d in dirs]
    words, tags = fifty_words()
    preds = {"model": tags}

    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        html = render_html(build_view(words, tags, segs, preds))
        times.append(time.perf_counter() - t0)
    print(
        "render path (build_view + render_html), 50 words x 3 tokenizers: "
        f"median {statistics.median(times) * 1e3:.2f} ms, "
        f"p95 {sorted(times)[int(0.95 * len(times))] * 1e3:.2f} ms, html {len(html)} chars"
    )

    from streamlit.testing.v1 import AppTest

    os.environ["TOKSTUDY_APP_RESULTS"] = str(tmp)
    os.environ["TOKSTUDY_APP_UPLOAD_DIR"] = str(tmp / "uploads")
    at = AppTest.from_file(str(ROOT / "analysis_app" / "app.py"), default_timeout=60).run()
    text = " ".join(words)
    reruns = []
    for i in range(20):
        at.text_area(key="ts_ex_text").set_value(text + (" ." if i % 2 else ""))
        t0 = time.perf_counter()
        at.run()
        reruns.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    n_rows = at.html[0].proto.body.count("<tr") - 1
    print(
        f"full explorer page rerun (AppTest, text changed), {n_rows} words x 3 tokenizers: "
        f"median {statistics.median(reruns) * 1e3:.1f} ms, max {max(reruns) * 1e3:.1f} ms"
    )


def write_predictions_for_test(root: Path, tokenizer_dir: Path) -> None:
    """One model's predictions for the whole of CoNLL-2003 test, erring more on words split more."""
    from tests.app.synthetic import write_synthetic_predictions
    from tokstudy.data.registry import load_dataset
    from tokstudy.tokenization.loading import load_tokenizer

    test = load_dataset("conll2003", "test")
    write_synthetic_predictions(root, "model-spm-600", test, load_tokenizer(tokenizer_dir))


_WATCH = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__ts = {states: []};
  if (window.__tsObserver) window.__tsObserver.disconnect();  // one observer, not one more per click
  window.__tsObserver = new MutationObserver(
    () => window.__ts.states.push([app.getAttribute('data-test-script-state'), performance.now()]));
  window.__tsObserver.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  window.__ts.t0 = performance.now();
}"""
_DONE = """(title) => {
  const s = window.__ts.states;
  const app = document.querySelector('[data-testid="stApp"]');
  // a placeholder still drawn, other than in the hidden container of components/preload.py
  const shown = e => !e.closest('.st-key-ts_preload');
  if ([...document.querySelectorAll('[data-testid="stSkeleton"]')].some(shown)) return null;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  const ran = s.findIndex(x => x[0] === 'running');
  if (ran >= 0) {
    const end = s.slice(ran).find(x => x[0] === 'notRunning');
    return end ? Math.max(end[1], performance.now()) - window.__ts.t0 : null;
  }
  // a run fast enough that the frontend never showed 'running': done once the page's title is drawn
  const h1 = document.querySelector('[data-testid="stMain"] h1');
  return h1 && h1.innerText.trim() === title ? performance.now() - window.__ts.t0 : null;
}"""  # noqa: E501 (JavaScript source)
#: each page's title (its h1), what ``_DONE`` looks for when the run was too fast to be seen running.
TITLES = {
    "Segmentation explorer": "Segmentation explorer",
    "Statistics (Table 4)": "Statistics",
    "Errors": "Errors",
    "Languages": "Languages",
}


_ODDS_DRAWN = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const text = main ? main.innerText : '';
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  if (!text.includes('Logistic regression of') || text.includes('Fitting the logistic regressions')) return null;
  return performance.now() - window.__ts.t0;
}"""


def _odds_ratios_drawn(page) -> float:
    """Seconds from the last timed click until the Errors page's odds-ratio table (fitted beside the
    page, ``analysis_app/services/background.py``) has replaced its placeholder."""
    return page.wait_for_function(_ODDS_DRAWN, timeout=300_000, polling=20).json_value() / 1000


def _timed_click(page, label: str) -> float:
    """Seconds from a click on the navigation entry ``label`` until the page is drawn and the script idle."""
    page.evaluate(_WATCH)
    page.get_by_test_id("stSidebarNav").get_by_text(label, exact=True).click()
    handle = page.wait_for_function(_DONE, arg=TITLES[label], timeout=300_000, polling=20)
    return handle.json_value() / 1000


READY_LINE = "tokstudy: every page's default view computed"


def _wait_ready(log: Path, timeout: float = 300) -> float:
    """Seconds until the server's preparation (analysis_app/services/background.py) printed its last line."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if log.exists() and READY_LINE in log.read_text(errors="replace"):
            return time.perf_counter() - t0
        time.sleep(0.05)
    raise TimeoutError(f"{log}: no {READY_LINE!r} within {timeout} s")


#: where the explorer's cold visit starts from: another page, opened by its URL (st.navigation names a
#: page's URL after its file, pages/statistics.py -> /statistics), so that the explorer is timed from a click
#: like every other page.
EXPLORER_FROM = "statistics"


def _cold(tmp: Path, target: str, *, ready: bool, prewarm: bool) -> tuple[float, float | None, float | None]:
    """One page's first visit in a fresh app process; (seconds, seconds the preparation took after health,
    seconds until the Errors page's odds ratios were drawn: ``None`` for other pages).

    ``target`` is a page (timed from the click on its navigation entry until the script is idle) or
    ``"first load"``: the browser opening the app's URL (loading Streamlit's frontend, opening the
    websocket, then the start page's first run), timed until the start page is drawn and the script idle.
    """
    from tests.app.browser import NAV_LABELS, PAGES, chromium_page, running_app, wait_idle

    env = {"TOKSTUDY_APP_PREWARM": "1" if prewarm else "0", "TOKSTUDY_APP_TIMING": "1"}
    with running_app(tmp, tmp, env=env) as url, chromium_page() as page:
        log = tmp / f"streamlit-{url.rsplit(':', 1)[1]}.log"
        waited = _wait_ready(log) if ready else None
        if target == "first load":
            t0 = time.perf_counter()
            page.goto(url)
            page.wait_for_selector('[data-testid="stApp"]')
            wait_idle(page, started_within=0.5)
            return time.perf_counter() - t0 - 0.1, waited, None  # minus wait_idle's settle pause
        page.goto(f"{url}/{PAGES[EXPLORER_FROM]}" if target == "explorer" else url)
        wait_idle(page)
        clicked = time.time()
        seconds = _timed_click(page, NAV_LABELS[target])
        run = _server_run(log, PAGES[target], clicked)
        if run is not None:
            print(f"  (server: the script run started {run[0]:.2f} s after the click and took {run[1]:.2f} s)")
        return seconds, waited, _odds_ratios_drawn(page) if target == "errors" else None


def _server_run(log: Path, page: str, after: float) -> tuple[float, float] | None:
    """(start after ``after``, duration) in seconds of the first script run of ``page`` that started after
    ``after`` (``time.time()``), from the lines ``TOKSTUDY_APP_TIMING=1`` makes the server print."""
    import re

    time.sleep(0.2)  # the server's last line may still be on its way to the log
    start = None
    for line in log.read_text(errors="replace").splitlines():
        m = re.match(r"page run \((.*)\) (starts|ends) at ([\d.]+)$", line)
        if not m or m.group(1) != page or float(m.group(3)) < after:
            continue
        if m.group(2) == "starts" and start is None:
            start = float(m.group(3))
        elif m.group(2) == "ends" and start is not None:
            return start - after, float(m.group(3)) - start
    return None


def browser_main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.app.browser import NAV_LABELS, chromium_page, running_app, wait_idle

    tmp = Path(tempfile.mkdtemp(prefix="bench_app_browser_"))
    dirs = train_tokenizers(tmp)
    write_predictions_for_test(tmp, dirs[0])
    pages = ["explorer", "statistics", "errors", "languages"]
    # three meanings of "cold" (each: the page's first visit in a fresh app process)
    kinds = {
        "ready": dict(ready=True, prewarm=True),  # after the server's preparation has finished
        "at once": dict(ready=False, prewarm=True),  # as soon as the start page is drawn (earlier definition)
        "unprepared": dict(ready=False, prewarm=False),  # TOKSTUDY_APP_PREWARM=0: the page computes everything
    }
    if "--quick" in sys.argv:
        kinds = {"ready": kinds["ready"], "at once": kinds["at once"]}
    cold: dict[str, dict[str, float]] = {k: {} for k in kinds}
    ready_after: list[float] = []
    odds: dict[str, float] = {}
    for kind, opts in kinds.items():
        for target in ["first load", *pages]:
            cold[kind][target], waited, odds_at = _cold(tmp, target, **opts)
            if waited is not None:
                ready_after.append(waited)
            print(f"cold ({kind}) {target}: {cold[kind][target]:.2f} s", flush=True)
            if odds_at is not None:
                odds[kind] = odds_at
                print(f"cold ({kind}) errors, odds-ratio table drawn: {odds_at:.2f} s", flush=True)
    warm: dict[str, list[float]] = {p: [] for p in pages}
    with running_app(tmp, tmp) as url, chromium_page() as page:
        _wait_ready(tmp / f"streamlit-{url.rsplit(':', 1)[1]}.log")
        page.goto(url)
        wait_idle(page)
        for p in pages[1:] + pages[:1]:  # fill every cache once
            _timed_click(page, NAV_LABELS[p])
        for _ in range(5):
            for p in pages[1:] + pages[:1]:
                warm[p].append(_timed_click(page, NAV_LABELS[p]))
                if p == "errors" and _odds_ratios_drawn(page) > warm[p][-1] + 0.5:  # drawn in the same run?
                    print("warning: a warm Errors visit drew the odds-ratio placeholder", flush=True)
    if ready_after:
        print(f"server preparation finished {min(ready_after):.1f} to {max(ready_after):.1f} s after the health check")
    head = " | ".join(f"cold, {k} (s)" for k in kinds)
    print(f"| page | {head} | warm, median of 5 (s) | warm max (s) | first page load, ready (s) |")
    print("|---|" + "---:|" * (len(kinds) + 3))
    for p in pages:
        cells = " | ".join(f"{cold[k][p]:.2f}" for k in kinds)
        first = f"{cold['ready']['first load']:.2f}" if p == pages[0] else "-"
        print(f"| {NAV_LABELS[p]} | {cells} | {statistics.median(warm[p]):.2f} | {max(warm[p]):.2f} | {first} |")
    firsts = ", ".join(f"{k} {cold[k]['first load']:.2f} s" for k in kinds)
    print(f"first page load (the start page, {NAV_LABELS[pages[0]]}, by its URL): {firsts}")
    drawn = ", ".join(f"{k} {v:.2f} s" for k, v in odds.items())
    print(f"Errors page, cold: its odds-ratio table (fitted beside the page) drawn after the click: {drawn}")


if __name__ == "__main__":
    print(runinfo.describe(), flush=True)
    browser_main() if "--browser" in sys.argv else main()
    print(runinfo.load_line())
