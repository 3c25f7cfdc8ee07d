"""Write one screenshot per page of the app (the ones in docs/), from a real browser.

Usage (a results folder the study wrote, e.g. `make demo`'s, and where to put the PNGs)::

    TOKSTUDY_DATA=../shared/data .venv/bin/python -m tests.app.screenshots results/demo docs

The explorer is shown on a dataset sentence with entities (``?sent=``), the other pages as
they open. Look at every image before committing it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.app.browser import NAV_LABELS, chromium_page, exceptions, goto_page, running_app, wait_idle


def main(results: str, out: str, sentence: int = 6) -> None:
    out_dir = Path(out)
    with running_app(Path(results).absolute(), Path(tempfile.mkdtemp())) as url, chromium_page(1500, 1500) as page:
        page.goto(f"{url}/?dataset=conll2003:test&sent={sentence}")
        page.wait_for_selector('[data-testid="stApp"]')
        wait_idle(page)
        for name in NAV_LABELS:
            if name != "explorer":
                goto_page(page, name)
            assert not exceptions(page), (name, exceptions(page))
            page.wait_for_timeout(800)  # charts finish their transitions
            page.screenshot(path=str(out_dir / f"app_{name}.png"))
            print("wrote", out_dir / f"app_{name}.png")


if __name__ == "__main__":
    main(*sys.argv[1:3], *(int(a) for a in sys.argv[3:4]))
