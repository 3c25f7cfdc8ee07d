"""The CSV download button every page puts under its tables and charts (owns no session-state key)."""

from __future__ import annotations

import pandas as pd
import streamlit as st


def csv_button(label: str, frame: pd.DataFrame, file_name: str, *, key: str | None = None, where=None) -> None:
    """A button that downloads ``frame`` as ``file_name`` (UTF-8 CSV, no index) in ``where`` (default ``st``)."""
    (where or st).download_button(
        label, frame.to_csv(index=False).encode("utf-8"), file_name=file_name, mime="text/csv", key=key
    )
