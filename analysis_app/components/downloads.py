"""The CSV download button every page puts under its tables and charts (owns no session-state key).

The CSV is written when the button is clicked (Streamlit calls ``data`` then, on its own thread), not
on every script run: otherwise a page with four buttons would write four CSVs each time it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV without the index (what every button downloads)."""
    return frame.to_csv(index=False).encode("utf-8")


def csv_button(
    label: str,
    frame: pd.DataFrame | Callable[[], pd.DataFrame],
    file_name: str,
    *,
    key: str | None = None,
    where=None,
) -> None:
    """A button that downloads ``frame`` (or what the callable returns, computed on the click) as
    ``file_name`` in ``where`` (default ``st``)."""
    make = frame if callable(frame) else (lambda: frame)
    (where or st).download_button(
        label, lambda: csv_bytes(make()), file_name=file_name, mime="text/csv", key=key, on_click="ignore"
    )
