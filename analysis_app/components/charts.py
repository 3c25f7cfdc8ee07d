"""Altair charts with confidence intervals (bars + error bars) for the long-form frames of the services.

Building an Altair chart validates every encoding against the Vega-Lite schema, which took
most of a warm page run (0.4 s per chart on 2 loaded cores); :func:`draw` therefore caches
each chart's finished Vega-Lite spec by its frame and options, and hands the spec to
``st.vega_lite_chart``.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st


def bars_with_ci(
    df: pd.DataFrame,
    *,
    x: str,
    colour: str,
    value: str = "value",
    low: str = "ci_low",
    high: str = "ci_high",
    title: str = "",
    y_title: str = "",
) -> alt.LayerChart:
    """Grouped bars of ``value`` by ``x`` and ``colour``, each with its CI as an error bar."""
    base = alt.Chart(df).encode(
        x=alt.X(
            f"{x}:N",
            title=x.replace("_", " "),
            sort=list(dict.fromkeys(df[x])),
            axis=alt.Axis(labelAngle=0, labelLimit=160),
        ),
        xOffset=alt.XOffset(f"{colour}:N", sort=list(dict.fromkeys(df[colour]))),
    )
    bars = base.mark_bar().encode(
        y=alt.Y(f"{value}:Q", title=y_title or value),
        color=alt.Color(
            f"{colour}:N",
            sort=list(dict.fromkeys(df[colour])),
            legend=alt.Legend(orient="bottom", labelLimit=0, columns=4),
        ),
        tooltip=[c for c in df.columns if df[c].dtype.kind in "OUiuf"][:10],
    )
    if df[low].notna().any():
        rule = base.mark_rule(color="black").encode(y=f"{low}:Q", y2=f"{high}:Q")
        return (bars + rule).properties(title=title, height=300)
    return alt.layer(bars).properties(title=title, height=300)


def error_rate_line(df: pd.DataFrame, *, title: str = "") -> alt.FacetChart:
    """Error rate by number of pieces (1, 2, 3, 4, 5+): one panel per word set (``words``: all / NE),
    one line per tokenizer, each point with its interval (``ci_low``..``ci_high``) as a bar."""
    order = ["1", "2", "3", "4", "5+"]
    colour = alt.Color(
        "tokenizer:N",
        title="tokenizer",
        sort=list(dict.fromkeys(df["tokenizer"])),
        legend=alt.Legend(orient="bottom", labelLimit=0, columns=4),
    )
    base = alt.Chart().encode(
        x=alt.X("pieces:N", title="pieces per word", sort=order, axis=alt.Axis(labelAngle=0)),
        color=colour,
    )
    line = base.mark_line(point=True).encode(
        y=alt.Y("error_rate:Q", title="error rate", axis=alt.Axis(format="%")),
        tooltip=[
            "tokenizer",
            "words",
            "pieces",
            "n",
            "errors",
            alt.Tooltip("error_rate:Q", format=".1%"),
            alt.Tooltip("ci_low:Q", format=".1%"),
            alt.Tooltip("ci_high:Q", format=".1%"),
        ],
    )
    bars = base.mark_rule(strokeWidth=2).encode(y="ci_low:Q", y2="ci_high:Q")
    return (
        alt.layer(bars, line, data=df)
        .properties(height=280, width=320)
        .facet(
            column=alt.Column(
                "words:N",
                title=None,
                sort=["all", "NE"],
                header=alt.Header(labelFontSize=13, labelExpr="datum.value == 'NE' ? 'NE words' : 'all words'"),
            )
        )
        .properties(title=title)
    )


_CHARTS = {"bars_with_ci": bars_with_ci, "error_rate_line": error_rate_line}


@st.cache_data(max_entries=64, show_spinner=False)
def spec(kind: str, df: pd.DataFrame, **options) -> dict:
    """The Vega-Lite spec of chart ``kind`` (a function of this module) for ``df`` (cached)."""
    return _CHARTS[kind](df, **options).to_dict()


def draw(where, kind: str, df: pd.DataFrame, **options) -> None:
    """Draw chart ``kind`` of ``df`` in ``where`` (``st`` or a column), full width, from the cached spec."""
    where.vega_lite_chart(spec=spec(kind, df, **options), width="stretch")
