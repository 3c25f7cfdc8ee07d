"""Vega-Lite charts with confidence intervals (bars + error bars, lines + interval bars) for the long-form
frames of the services.

The specs are written as plain dicts, the very ones Altair would produce (``tests/app/test_charts.py``
compares them with Altair's ``to_dict()``): building them through Altair (import, then the schema
validation of every encoding) was most of a page's server time once its data was cached, so each page
drew its charts in a fraction of the time without them. :func:`draw` hands the frame and the spec to
``st.vega_lite_chart``, which attaches the frame as the chart's data.
"""

from __future__ import annotations

import pandas as pd

_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
_CONFIG = {"view": {"continuousWidth": 300, "continuousHeight": 300}}
_LEGEND = {"columns": 4, "labelLimit": 0, "orient": "bottom"}
#: pixels per bar of :func:`ranked_bars` (every label shown)
ROW_HEIGHT = 20


def _order(values) -> list:
    return list(dict.fromkeys(values))


def _kind(series: pd.Series) -> str:
    return "quantitative" if series.dtype.kind in "iuf" else "nominal"


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
) -> dict:
    """Grouped bars of ``value`` by ``x`` and ``colour``, each with its CI as an error bar (Vega-Lite spec)."""
    x_enc = {
        "axis": {"labelAngle": 0, "labelLimit": 160},
        "field": x,
        "sort": _order(df[x]),
        "title": x.replace("_", " "),
        "type": "nominal",
    }
    offset = {"field": colour, "sort": _order(df[colour]), "type": "nominal"}
    tooltip = [{"field": c, "type": _kind(df[c])} for c in df.columns if df[c].dtype.kind in "OUiuf"][:10]
    bars = {
        "mark": {"type": "bar"},
        "encoding": {
            "color": {"field": colour, "legend": dict(_LEGEND), "sort": _order(df[colour]), "type": "nominal"},
            "tooltip": tooltip,
            "x": x_enc,
            "xOffset": offset,
            "y": {"field": value, "title": y_title or value, "type": "quantitative"},
        },
    }
    layers = [bars]
    if df[low].notna().any():
        rule = {
            "mark": {"type": "rule", "color": "black"},
            "encoding": {
                "x": x_enc,
                "xOffset": offset,
                "y": {"field": low, "type": "quantitative"},
                "y2": {"field": high},
            },
        }
        layers.append(rule)
    return {"config": _CONFIG, "layer": layers, "height": 300, "title": title, "$schema": _SCHEMA}


def error_rate_line(df: pd.DataFrame, *, title: str = "") -> dict:
    """Error rate by number of pieces (1, 2, 3, 4, 5+): one panel per word set (``words``: all / NE),
    one line per tokenizer, each point with its interval (``ci_low``..``ci_high``) as a bar (Vega-Lite spec)."""
    x_enc = {
        "axis": {"labelAngle": 0},
        "field": "pieces",
        "sort": ["1", "2", "3", "4", "5+"],
        "title": "pieces per word",
        "type": "nominal",
    }
    colour = {
        "field": "tokenizer",
        "legend": dict(_LEGEND),
        "sort": _order(df["tokenizer"]),
        "title": "tokenizer",
        "type": "nominal",
    }
    tooltip = [{"field": f, "type": "nominal"} for f in ("tokenizer", "words", "pieces")]
    tooltip += [{"field": f, "type": "quantitative"} for f in ("n", "errors")]
    tooltip += [{"field": f, "format": ".1%", "type": "quantitative"} for f in ("error_rate", "ci_low", "ci_high")]
    bars = {
        "mark": {"type": "rule", "strokeWidth": 2},
        "encoding": {
            "color": colour,
            "x": x_enc,
            "y": {"field": "ci_low", "type": "quantitative"},
            "y2": {"field": "ci_high"},
        },
    }
    line = {
        "mark": {"type": "line", "point": True},
        "encoding": {
            "color": colour,
            "tooltip": tooltip,
            "x": x_enc,
            "y": {"axis": {"format": "%"}, "field": "error_rate", "title": "error rate", "type": "quantitative"},
        },
    }
    header = {"labelExpr": "datum.value == 'NE' ? 'NE words' : 'all words'", "labelFontSize": 13}
    column = {"field": "words", "header": header, "sort": ["all", "NE"], "title": None, "type": "nominal"}
    return {
        "config": _CONFIG,
        "facet": {"column": column},
        "spec": {"layer": [bars, line], "height": 280, "width": 320},
        "title": title,
        "$schema": _SCHEMA,
    }


def ranked_bars(
    df: pd.DataFrame,
    *,
    label: str,
    value: str,
    colour: str,
    panel: str,
    order: list,
    low: str = "ci_low",
    high: str = "ci_high",
    tooltip: tuple = (),
    palette: dict | None = None,
    title: str = "",
    x_title: str = "",
) -> dict:
    """Horizontal bars of ``value`` per ``label`` in ``order`` (top to bottom), coloured by ``colour`` (``palette``:
    value -> colour, else Vega's), each with its interval as a rule, one panel per ``panel`` side by side
    (Vega-Lite spec): the Languages page's gaps."""
    y_enc = {"axis": {"labelLimit": 200}, "field": label, "sort": list(order), "title": None, "type": "nominal"}
    color = {"field": colour, "legend": dict(_LEGEND), "sort": _order(df[colour]), "type": "nominal"}
    if palette:
        color["scale"] = {"domain": list(palette), "range": list(palette.values())}
    bars = {
        "mark": {"type": "bar"},
        "encoding": {
            "color": color,
            "tooltip": [{"field": c, "type": _kind(df[c])} for c in tooltip],
            "x": {"field": value, "title": x_title or value, "type": "quantitative"},
            "y": y_enc,
        },
    }
    rule = {
        "mark": {"type": "rule", "color": "black"},
        "encoding": {"x": {"field": low, "type": "quantitative"}, "x2": {"field": high}, "y": y_enc},
    }
    column = {"field": panel, "sort": _order(df[panel]), "title": None, "type": "nominal"}
    return {
        "config": _CONFIG,
        "facet": {"column": column},
        "spec": {"layer": [bars, rule], "height": ROW_HEIGHT * len(order), "width": 240},
        "title": title,
        "$schema": _SCHEMA,
    }


_CHARTS = {"bars_with_ci": bars_with_ci, "error_rate_line": error_rate_line, "ranked_bars": ranked_bars}


def draw(where, kind: str, df: pd.DataFrame, **options) -> None:
    """Draw chart ``kind`` (a function of this module) of ``df`` in ``where`` (``st`` or a column), full width."""
    where.vega_lite_chart(df, spec=_CHARTS[kind](df, **options), width="stretch")
