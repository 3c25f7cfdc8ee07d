"""Reading a table's JSON back into the dataclasses it was written from: the inverse of
:func:`~tokstudy.report.tables.to_jsonable`.

A table's JSON is ``to_jsonable`` of analysis results (frozen dataclasses, NaN written as ``null``);
:func:`from_jsonable` walks the dataclass's field types and rebuilds them, so
``to_jsonable(from_jsonable(cls, data)) == data`` for what the project writes, and a reader says
``row.ne.value`` where it would otherwise say ``row["ne"]["value"]``. Keys the dataclass does not declare
(a derived property written beside the fields, such as ``error_rate``) are left out: ``to_jsonable`` writes
them again. A field the JSON lacks takes its default, and one without a default is an error naming the class
and the field.

>>> from tokstudy.analysis.stats.estimates import Estimate
>>> e = from_jsonable(Estimate, {"value": 1.5, "low": None, "high": None, "n_words": 3, "n_sentences": 1})
>>> e.value, e.low != e.low
(1.5, True)
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache

_NAN = float("nan")


@cache
def _hints(cls) -> dict:
    return typing.get_type_hints(cls)


def from_jsonable(cls, data):
    """``data`` (plain JSON values) as an instance of ``cls``: a dataclass, ``tuple[X, ...]``, ``list[X]``,
    ``dict[str, X]``, ``X | None``, ``float`` (``null`` as NaN) or a plain JSON type (kept as it is)."""
    origin, args = typing.get_origin(cls), typing.get_args(cls)
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        return from_jsonable(next(a for a in args if a is not type(None)), data)
    if origin in (tuple, list):
        item = args[0] if args else typing.Any
        return origin(from_jsonable(item, v) for v in data)
    if origin is dict:
        return {k: from_jsonable(args[1], v) for k, v in data.items()}
    if dataclasses.is_dataclass(cls):
        return _dataclass(cls, data)
    if cls is float:
        return _NAN if data is None else float(data)
    return data


def _dataclass(cls, data: dict):
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__}: expected a JSON object, got {type(data).__name__}")
    hints, values = _hints(cls), {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = from_jsonable(hints[f.name], data[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"{cls.__name__}: the field {f.name!r} is missing from its JSON")
    return cls(**values)
