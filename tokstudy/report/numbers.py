"""How a report writes a number: a p-value for people, a float for JSON and CSV.

One rule each, used by every table, finding and section that shows them, so the same
p-value reads the same in the study's report, ``tokstudy report`` and ``tokstudy correlate``.

>>> format_p(0.0312), format_p(1.234e-12), format_p(0.0), format_p(None)
('0.031', '1.2e-12', '< 1e-300', '–')
>>> json_number(float("nan")), json_number(1.23456), json_number(1.23456, 2)
(None, 1.23456, 1.23)
"""

from __future__ import annotations

import math


def format_p(p: float | None) -> str:
    """A p-value for people: two significant digits, ``< 1e-300`` where it underflowed to 0 (never a bare
    "0"), ``–`` where there is none (``None`` or NaN: no fit).

    Two digits because a p-value is compared with a threshold, not read to the third digit; the committed
    example report (``examples/cpu_report/report.md``) is written with this rule.
    """
    if p is None or math.isnan(p):
        return "–"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def json_number(v: float | None, digits: int | None = None) -> float | None:
    """A float for JSON and CSV: ``None`` for NaN or ``None``; rounded to ``digits`` decimals when given,
    else at full precision (the Markdown rounds)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return float(v) if digits is None else round(float(v), digits)
