"""Command-line flags made from a config dataclass's fields, so a new setting is one edit (the field).

The configs (:class:`~pretrain.config.TrainConfig`, :class:`~pretrain.data.config.PrepareConfig`,
:class:`~pretrain.finetune.config.FinetuneConfig`) already say everything a flag needs: the name, the type
and, in the docstring written under each field, what it means. :func:`add_config_flags` turns each field
into an option:

* ``batch_size`` -> ``--batch-size``, with the field's name as ``dest``;
* the type from the annotation: ``int``/``float``/``str``; ``bool`` -> ``--x/--no-x``; ``Literal[...]`` ->
  ``choices`` (enum members offered and parsed as their values); ``list[X]``/``tuple[X, ...]`` -> one or more
  values (the flag may be repeated); ``tuple[X, X]`` -> exactly two values; ``X | None`` -> ``X``;
* the help is the field's docstring, read from the class's source;
* the default is ``None``: a flag not given keeps the value of the YAML file (or the field's default).

jsonargparse (litgpt's way) was tried and does not give these spellings nor fit the shared argparse
dispatcher: docs/pretrain.md, "Why the flags are not made by jsonargparse", says what it cannot do.

:func:`config_overrides` is the way back: the flags given, as keyword arguments for the config's
``replace`` / ``from_yaml``.

>>> import argparse
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Run:
...     steps: int = 10
...     '''Optimiser steps.'''
...     quiet: bool = False
...     '''Print nothing.'''
>>> parser = argparse.ArgumentParser()
>>> _ = add_config_flags(parser, Run)
>>> config_overrides(parser.parse_args(["--steps", "5", "--no-quiet"]), Run)
{'steps': 5, 'quiet': False}
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import functools
import inspect
import re
import textwrap
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

# ``code`` and :role:`~module.name` in a docstring, shown as plain text in --help
_LITERAL = re.compile(r"``([^`]+)``")
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def add_config_flags(
    parser: argparse.ArgumentParser,
    cls: type,
    *,
    title: str | None = None,
    description: str | None = None,
    aliases: Mapping[str, Sequence[str]] | None = None,
    notes: Mapping[str, str] | None = None,
    exclude: Iterable[str] = (),
) -> argparse._ArgumentGroup:
    """Add one option per field of dataclass ``cls`` to ``parser``, in a group of their own.

    ``aliases`` gives a field further spellings (``{"output_dir": ["--output"]}``), ``notes`` adds
    command-specific words to a field's help, ``exclude`` names fields that get no flag. A field whose
    type cannot be a flag is refused with its name, so a new field never silently goes missing.
    """
    aliases, notes, exclude = dict(aliases or {}), dict(notes or {}), set(exclude)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted((set(aliases) | set(notes) | exclude) - known)
    if unknown:
        raise ValueError(f"{cls.__name__} has no field(s) {unknown}")
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    group = parser.add_argument_group(title or f"{cls.__name__} settings", description)
    for f in dataclasses.fields(cls):
        if f.name in exclude or not f.init:
            continue
        kind = _flag_kind(hints[f.name], where=f"{cls.__name__}.{f.name}")
        help_text = " ".join(part for part in (_plain(docs.get(f.name, "")), notes.get(f.name, "")) if part)
        names = ["--" + f.name.replace("_", "-"), *aliases.get(f.name, ())]
        group.add_argument(*names, dest=f.name, default=None, help=help_text.replace("%", "%%"), **kind)
    return group


def config_overrides(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """The fields of ``cls`` given on the command line (``args`` attributes named after a field, not ``None``).

    Values for tuple fields come back as tuples; the rest as argparse parsed them.
    """
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        value = getattr(args, f.name, None)
        if value is None:
            continue
        if typing.get_origin(_strip_optional(hints[f.name])) is tuple:
            value = tuple(value)
        out[f.name] = value
    return out


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string literal written right under it in the class body), cleaned.

    >>> from pretrain.config import TrainConfig
    >>> field_docs(TrainConfig)["eps"]
    'Adam/LAMB epsilon.'
    """
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):  # no source to read (a class typed at the prompt): flags without help
        return {}
    tree = ast.parse(textwrap.dedent(source))
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef)).body
    docs = {}
    for node, after in zip(body, body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _flag_kind(hint: Any, *, where: str) -> dict[str, Any]:
    """``add_argument`` keywords for a field annotated ``hint``."""
    hint = _strip_optional(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        return {"action": argparse.BooleanOptionalAction}
    if origin is typing.Literal and all(isinstance(a, enum.Enum) for a in args):
        # parsed and offered as the members' spellings (``ner``), so a wrong value reads ``invalid choice: 'foo'
        # (choose from 'ner', ...)`` and never shows an enum's repr; the config's ``__post_init__`` reads it back
        return {"type": type(args[0].value), "choices": [a.value for a in args]}
    if origin is typing.Literal:
        return {"type": type(args[0]), "choices": list(args)}
    if hint in (int, float):
        return {"type": hint, "metavar": "N" if hint is int else "X"}
    if hint in (str, Path):
        return {"type": hint}
    if origin in (list, tuple) and args:
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(set(args)) == 1 and args[0] in (int, float, str):  # tuple[float, float]: exactly so many
                return {**_flag_kind(args[0], where=where), "nargs": len(args)}
        else:
            item = _flag_kind(args[0], where=where)
            if "action" not in item:
                return {**item, "nargs": "+", "action": "extend"}
    raise TypeError(f"{where}: no command-line flag for a field of type {hint!r}; exclude it or give it a flag by hand")


def _strip_optional(hint: Any) -> Any:
    """``X`` from ``X | None``; anything else unchanged."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def _plain(doc: str) -> str:
    """A docstring as one line of plain text for ``--help``."""
    return " ".join(_ROLE.sub(r"\1", _LITERAL.sub(r"\1", doc)).split())
