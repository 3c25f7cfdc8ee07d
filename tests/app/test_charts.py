"""The charts' Vega-Lite specs are the ones Altair builds for the same charts (Altair is the reference)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import pytest

from analysis_app.components import charts


def _altair_bars(df, *, x, colour, value="value", low="ci_low", high="ci_high", title="", y_title=""):
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


def _altair_error_rate(df, *, title=""):
    order = ["1", "2", "3", "4", "5+"]
    colour = alt.Color(
        "tokenizer:N",
        title="tokenizer",
        sort=list(dict.fromkeys(df["tokenizer"])),
        legend=alt.Legend(orient="bottom", labelLimit=0, columns=4),
    )
    base = alt.Chart().encode(
        x=alt.X("pieces:N", title="pieces per word", sort=order, axis=alt.Axis(labelAngle=0)), color=colour
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
    header = alt.Header(labelFontSize=13, labelExpr="datum.value == 'NE' ? 'NE words' : 'all words'")
    return (
        alt.layer(bars, line, data=df)
        .properties(height=280, width=320)
        .facet(column=alt.Column("words:N", title=None, sort=["all", "NE"], header=header))
        .properties(title=title)
    )


def _without_data(spec: dict) -> dict:
    return {k: v for k, v in spec.items() if k not in ("data", "datasets")}


@pytest.mark.parametrize("with_ci", [True, False])
def test_bars_spec_is_altairs(with_ci):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "tokenizer": ["spm-600", "spm-1200", "spm-2400"] * 2,
            "group": ["PER", "PER", "PER", "LOC", "LOC", "LOC"],
            "value": rng.random(6),
            "ci_low": rng.random(6) if with_ci else np.nan,
            "ci_high": rng.random(6) if with_ci else np.nan,
            "words": rng.integers(1, 100, 6),
            "flag": [True] * 6,  # not a tooltip (booleans are left out)
        }
    )
    opts = dict(x="group", colour="tokenizer", title="by entity type", y_title="additional segmentation %")
    assert charts.bars_with_ci(df, **opts) == _without_data(_altair_bars(df, **opts).to_dict())


def test_error_rate_spec_is_altairs():
    df = pd.DataFrame(
        {
            "pieces": ["1", "2", "3", "4", "5+"] * 2,
            "words": ["all"] * 5 + ["NE"] * 5,
            "n": range(10),
            "errors": range(10),
            "error_rate": np.linspace(0, 1, 10),
            "ci_low": np.linspace(0, 0.9, 10),
            "ci_high": np.linspace(0.1, 1, 10),
            "tokenizer": ["a"] * 10,
            "series": ["a (all words)"] * 5 + ["a (NE words)"] * 5,
        }
    )
    assert charts.error_rate_line(df, title="t") == _without_data(_altair_error_rate(df, title="t").to_dict())


def _altair_ranked(df, *, label, value, colour, panel, order, low, high, tooltip, palette, title, x_title):
    base = alt.Chart().encode(y=alt.Y(f"{label}:N", sort=order, title=None, axis=alt.Axis(labelLimit=200)))
    bars = base.mark_bar().encode(
        x=alt.X(f"{value}:Q", title=x_title),
        color=alt.Color(
            f"{colour}:N",
            sort=list(dict.fromkeys(df[colour])),
            legend=alt.Legend(orient="bottom", labelLimit=0, columns=4),
            scale=alt.Scale(domain=list(palette), range=list(palette.values())),
        ),
        tooltip=list(tooltip),
    )
    rule = base.mark_rule(color="black").encode(x=f"{low}:Q", x2=f"{high}:Q")
    return (
        alt.layer(bars, rule, data=df)
        .properties(width=240, height=charts.ROW_HEIGHT * len(order))
        .facet(column=alt.Column(f"{panel}:N", sort=list(dict.fromkeys(df[panel])), title=None))
        .properties(title=title)
    )


def test_ranked_bars_spec_is_altairs():
    df = pd.DataFrame(
        {
            "tokenizer": ["a", "a", "b", "b"],
            "language": ["yor", "ko", "yor", "ko"],
            "script": ["Latin", "Hangul"] * 2,
            "gap": [1.0, 2.0, 3.0, 4.0],
            "gap_low": [0.5, 1.0, 2.0, 3.0],
            "gap_high": [2.0, 3.0, 4.0, 5.0],
        }
    )
    opts = dict(
        label="language",
        value="gap",
        colour="script",
        panel="tokenizer",
        order=["ko", "yor"],
        low="gap_low",
        high="gap_high",
        tooltip=("language", "script", "gap"),
        palette={"Latin": "#4c72b0", "Hangul": "#937860"},
        title="t",
        x_title="NE − non-NE",
    )
    assert charts.ranked_bars(df, **opts) == _without_data(_altair_ranked(df, **opts).to_dict())
