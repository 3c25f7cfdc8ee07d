"""Tables as a reader sees them: columns named in words ("Pearson r", "95 % CI"), not as the CSV's fields.

The CSV downloads keep the field names (``pearson_r``, ``ci_low``, ``parity_high``), which scripts read;
the tables on screen name the same numbers for people, an interval as one ``[low, high]`` cell.

>>> import pandas as pd
>>> f = pd.DataFrame({"parity": [1.25], "parity_low": [1.2], "parity_high": [1.3]})
>>> list(readable(f, {"parity": "parity"}, intervals={"parity": "parity 95 % CI"}).iloc[0])
[1.25, '[1.2000, 1.3000]']
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd


def interval_text(low: float, high: float, digits: int = 4) -> str:
    """``"[0.2060, 0.2280]"``; ``"–"`` where the interval is undefined (no resamples, undefined r).

    >>> interval_text(0.206, 0.228), interval_text(float("nan"), float("nan"))
    ('[0.2060, 0.2280]', '–')
    """
    if low != low or high != high:
        return "–"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def readable(
    frame: pd.DataFrame, names: Mapping[str, str], *, intervals: Mapping[str, str] = {}, digits: int = 4
) -> pd.DataFrame:
    """The columns of ``names`` (field -> shown name), in its order; each field of ``intervals`` is followed
    by its ``<field>_low`` .. ``<field>_high`` interval as one text column under the name given there."""
    out = {}
    for field, shown in names.items():
        out[shown] = frame[field]
        if field in intervals:
            low, high = frame[f"{field}_low"], frame[f"{field}_high"]
            out[intervals[field]] = [interval_text(lo, hi, digits) for lo, hi in zip(low, high)]
    return pd.DataFrame(out, index=frame.index)
