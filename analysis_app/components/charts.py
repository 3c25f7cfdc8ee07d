"""Altair charts with confidence intervals (bars + error bars) for the long-form frames of the services."""

from __future__ import annotations

import altair as alt
import pandas as pd


def bars_with_ci(df: pd.DataFrame, *, x: str, colour: str, value: str = "value", low: str = "ci_low",
                 high: str = "ci_high", title: str = "", y_title: str = "") -> alt.LayerChart:
    """Grouped bars of ``value`` by ``x`` and ``colour``, each with its CI as an error bar."""
    base = alt.Chart(df).encode(
        x=alt.X(f"{x}:N", title=x.replace("_", " "), sort=list(dict.fromkeys(df[x]))),
        xOffset=alt.XOffset(f"{colour}:N", sort=list(dict.fromkeys(df[colour]))),
    )
    bars = base.mark_bar().encode(
        y=alt.Y(f"{value}:Q", title=y_title or value),
        color=alt.Color(f"{colour}:N", sort=list(dict.fromkeys(df[colour]))),
        tooltip=[c for c in df.columns if df[c].dtype.kind in "OUiuf"][:10],
    )
    if df[low].notna().any():
        rule = base.mark_rule(color="black").encode(y=f"{low}:Q", y2=f"{high}:Q")
        return (bars + rule).properties(title=title, height=300)
    return alt.layer(bars).properties(title=title, height=300)


def error_rate_line(df: pd.DataFrame, *, title: str = "") -> alt.Chart:
    """Error rate by number of pieces (1, 2, 3, 4, 5+), one line per series in ``series``."""
    return (
        alt.Chart(df)
        .mark_line(point=True)
        .encode(
            x=alt.X("pieces:N", title="pieces per word", sort=["1", "2", "3", "4", "5+"]),
            y=alt.Y("error_rate:Q", title="error rate", axis=alt.Axis(format="%")),
            color=alt.Color("series:N", title=""),
            tooltip=["series", "pieces", "n", "errors", alt.Tooltip("error_rate:Q", format=".1%")],
        )
        .properties(title=title, height=300)
    )
