"""One way to read a configuration: a YAML or JSON file into a typed, frozen dataclass.

Every configuration of the project (study, tokenizer-free pre-training data, model, training run,
fine-tuning) is a dataclass with a docstring per field and validation in ``__post_init__``; its
shipped YAML files mirror the fields. This module is the only loader:

* :func:`read_config` reads a file into a mapping (YAML, or JSON for ``.json``); a syntax error
  names the file and line;
* :func:`build_config` turns a mapping into the dataclass, recursing into fields that are
  dataclasses (or tuples of them) and turning lists into tuples where the field is a tuple.
  An unknown key is refused with the file and the key's dotted path; a value the dataclass
  refuses is reported with the file and the section it is in.

Both raise :class:`~tokstudy.errors.ConfigError`, whatever the configuration.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Run:
...     steps: int = 10
...     sizes: tuple[int, ...] = (1,)
>>> build_config(Run, {"steps": 5, "sizes": [2, 4]})
Run(steps=5, sizes=(2, 4))
>>> build_config(Run, {"stpes": 5}, source="run.yaml")
Traceback (most recent call last):
...
tokstudy.errors.ConfigError: run.yaml: unknown key 'stpes' in Run; expected one of ['sizes', 'steps']
"""

from __future__ import annotations

import dataclasses
import json
import os
import typing
from pathlib import Path
from typing import Any, Mapping, TypeVar

from tokstudy.errors import ConfigError

T = TypeVar("T")


def require(condition: bool, where: str, message: str) -> None:
    """Refuse a value in a configuration's ``__post_init__``: ``ValueError("<where>: <message>")`` unless
    ``condition`` holds; :func:`build_config` reports it with the file and the section.

    >>> require(2 >= 1, "Run", "steps must be >= 1")
    >>> require(0 >= 1, "Run", "steps must be >= 1, got 0")
    Traceback (most recent call last):
    ...
    ValueError: Run: steps must be >= 1, got 0
    """
    if not condition:
        raise ValueError(f"{where}: {message}")


def read_config(path: str | os.PathLike) -> dict[str, Any]:
    """The mapping in a YAML (or ``.json``) file; an empty file is an empty mapping."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError("configuration file not found" + (" (it is a folder)" if path.is_dir() else ""), path=path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            data = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    else:
        import yaml  # deferred: ~27 ms to import, and only for a YAML file (JSON needs none)

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or str(exc)
            raise ConfigError(
                f"invalid YAML: {problem}", path=path, line=None if mark is None else mark.line + 1
            ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"expected a mapping of settings at the top level, got {type(data).__name__}", path=path)
    return data


def load_config(cls: type[T], path: str | os.PathLike, **overrides: Any) -> T:
    """:func:`read_config` then :func:`build_config`; ``overrides`` that are not ``None`` win over the file."""
    data = read_config(path)
    data.update({k: v for k, v in overrides.items() if v is not None})
    return build_config(cls, data, source=path)


def build_config(cls: type[T], data: Any, *, source: str | os.PathLike | None = None, where: str = "") -> T:
    """Dataclass ``cls`` from mapping ``data``; ``source`` names the file in errors, ``where`` the section. A key
    that ``cls.RESPELT`` (a class attribute, old name -> new name) lists is read as its new name."""
    section = f" in {where}" if where else f" in {cls.__name__}"
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"expected a mapping of {cls.__name__} settings{section}, got {type(data).__name__}", path=source
        )
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    renamed = getattr(cls, "RESPELT", {})  # old name -> new name of a renamed setting: an older file still reads
    data = {renamed[k] if k in renamed and renamed[k] not in data else k: v for k, v in data.items()}
    unknown = [k for k in data if k not in fields]
    if unknown:
        keys = ", ".join(repr(f"{where}.{k}" if where else k) for k in unknown)
        raise ConfigError(
            f"unknown key{'s' if len(unknown) > 1 else ''} {keys}{'' if where else section}; "
            f"expected one of {sorted(fields)}",
            path=source,
        )
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for key, value in data.items():
        kwargs[key] = _convert(hints.get(key), value, source=source, where=f"{where}.{key}" if where else key)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where or cls.__name__}: {exc}", path=source) from None


def _convert(hint: Any, value: Any, *, source, where: str) -> Any:
    """``value`` shaped as the field's type asks: nested dataclasses built, lists made tuples."""
    hint = _strip_optional(hint)
    if dataclasses.is_dataclass(hint) and isinstance(value, Mapping):
        return build_config(hint, value, source=source, where=where)
    if typing.get_origin(hint) is tuple and isinstance(value, list):
        args = typing.get_args(hint)
        item = args[0] if len(args) == 2 and args[1] is Ellipsis else None
        item = _strip_optional(item)
        if item is not None and dataclasses.is_dataclass(item):
            return tuple(build_config(item, v, source=source, where=f"{where}[{i}]") for i, v in enumerate(value))
        return tuple(value)
    return value


def _strip_optional(hint: Any) -> Any:
    """``X`` from ``X | None`` (and ``Optional[X]``); anything else unchanged."""
    if typing.get_origin(hint) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint
