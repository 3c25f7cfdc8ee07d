"""MASSIVE (Amazon, 51 locales): intent and slot filling, one JSON object a line, slots written inline.

Each line holds ``id``, ``locale`` (``en-US``), ``partition`` (``train``/``dev``/``test``), ``scenario``,
``intent``, ``utt`` and ``annot_utt``, the utterance with its slots in brackets:
``wake me up at [time : five am] [date : this week]``. Each line becomes a :class:`Sentence` whose
``words`` are the utterance split on whitespace, ``tags`` the slots as word-level IOB2
(``O O O O B-time I-time B-date I-date``) and ``label`` the intent, as SNIPS/ATIS are read
(:mod:`tokstudy.data.slu`). A bracket also ends a word, so locales written without spaces
(``[date : 明日]の天気``) keep each slot's words apart from their neighbours.

Errors name the file and line (the first 20 bad lines, with the total): invalid JSON, a missing
``intent`` or ``annot_utt``, an unclosed or stray bracket, a slot without `` : ``, an empty slot name
or value, an empty utterance.

>>> parse_annotation("wake me up at [time : five am] [date : this week]")
(('wake', 'me', 'up', 'at', 'five', 'am', 'this', 'week'), ('O', 'O', 'O', 'O', 'B-time', 'I-time', 'B-date', 'I-date'))
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tokstudy.data.textio import Problems, iter_lines, open_binary
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError

#: the partitions of a MASSIVE file
PARTITIONS = ("train", "dev", "test")
_SEP = " : "


def parse_annotation(annot: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(words, IOB2 tags)`` of an ``annot_utt``; raises ``ValueError`` saying what is wrong and where.

    >>> parse_annotation("[device_type : lights] off")
    (('lights', 'off'), ('B-device_type', 'O'))
    """
    words: list[str] = []
    tags: list[str] = []
    pos = 0
    while (open_at := annot.find("[", pos)) >= 0:
        _plain(annot, pos, open_at, words, tags)
        close_at = annot.find("]", open_at)
        if close_at < 0:
            raise ValueError(f"'[' at character {open_at + 1} is never closed; expected [slot : words]")
        inner = annot[open_at + 1 : close_at]
        if "[" in inner:
            raise ValueError(f"'[' at character {open_at + 1} opens a slot inside another; slots do not nest")
        slot, sep, value = inner.partition(_SEP)
        slot, value_words = slot.strip(), value.split()
        if not sep or not slot or len(slot.split()) != 1 or not value_words:
            raise ValueError(f"slot {annot[open_at : close_at + 1]!r} is not [slot_name : words]")
        words += value_words
        tags += [f"B-{slot}"] + [f"I-{slot}"] * (len(value_words) - 1)
        pos = close_at + 1
    _plain(annot, pos, len(annot), words, tags)
    if not words:
        raise ValueError("empty utterance; expected at least one word")
    return tuple(words), tuple(tags)


def _plain(annot: str, start: int, end: int, words: list[str], tags: list[str]) -> None:
    """The words outside a slot (tag ``O``); a ``]`` among them closes nothing."""
    text = annot[start:end]
    if "]" in text:
        raise ValueError(f"']' at character {start + text.index(']') + 1} closes no slot")
    plain = text.split()
    words += plain
    tags += ["O"] * len(plain)


def read_massive(
    path: str | os.PathLike,
    *,
    partition: str | None = None,
    name: str | None = None,
    language: str | None = None,
    split: str | None = None,
    encoding: str = "utf-8",
) -> Dataset:
    """Read a MASSIVE ``<locale>.jsonl`` file (plain or gzip) into a :class:`Dataset`.

    Args:
        path: the file; any locale.
        partition: keep only ``train``, ``dev`` or ``test`` lines (``None``: every line).
        name: dataset name (default: the file name).
        language: recorded in the dataset (default: the lines' ``locale``, ``mul`` if they differ).
        split: recorded in the dataset (default: ``partition``, else the lines' one partition, else ``all``).
        encoding: text encoding of the file.

    ``Sentence.line`` is the utterance's line in the file; ``metadata`` holds ``intents`` (sorted),
    ``ids``, ``scenarios`` and ``partitions`` (aligned with the sentences) and ``locales``.
    """
    path = Path(path)
    if partition is not None and partition not in PARTITIONS:
        raise ValueError(f"partition {partition!r}; expected one of {list(PARTITIONS)}")
    rows = _rows(path, partition, encoding)
    if not rows:
        where = f"with partition {partition!r}" if partition else "found"
        raise DataFormatError(f"no utterance {where}; expected one JSON object a line", path=path)
    sentences = tuple(
        Sentence(words=w, tags=t, sent_id=k, label=row["intent"], line=n) for k, (n, row, w, t) in enumerate(rows)
    )
    locales = sorted({str(r.get("locale", "und")) for _, r, _, _ in rows})
    partitions = tuple(str(r.get("partition", "")) for _, r, _, _ in rows)
    metadata = {
        "scheme": "IOB2",
        "intents": sorted({s.label for s in sentences}),
        "ids": tuple(str(r.get("id", "")) for _, r, _, _ in rows),
        "scenarios": tuple(str(r.get("scenario", "")) for _, r, _, _ in rows),
        "partitions": partitions,
        "locales": locales,
    }
    return Dataset(
        sentences=sentences,
        name=name or path.name,
        language=language or (locales[0] if len(locales) == 1 else "mul"),
        split=split or partition or (partitions[0] if len(set(partitions)) == 1 and partitions[0] else "all"),
        source=str(path),
        metadata=metadata,
    )


def _rows(path: Path, partition: str | None, encoding: str) -> list[tuple[int, dict, tuple, tuple]]:
    """``(line, object, words, tags)`` of every utterance kept; raises listing the bad lines."""
    rows = []
    problems = Problems(path)
    for number, text in iter_lines(path, encoding=encoding):
        if not text.strip():
            continue
        try:
            row = _object(text)
            if partition is not None and row.get("partition") != partition:
                continue
            words, tags = parse_annotation(row["annot_utt"])
        except ValueError as exc:  # json.JSONDecodeError is one
            problems.add(number, str(exc))
            continue
        rows.append((number, row, words, tags))
    problems.raise_if_any()
    return rows


def _object(text: str) -> dict:
    """One line's object, with a string ``intent`` and ``annot_utt``; raises ``ValueError`` saying what is wrong."""
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg} at column {exc.colno}); expected one object a line") from None
    if not isinstance(row, dict):
        raise ValueError(f"expected a JSON object, found {type(row).__name__}")
    for key in ("intent", "annot_utt"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise ValueError(
                f"missing or empty {key!r}; expected a MASSIVE record (id, locale, partition, intent, utt, annot_utt)"
            )
    return row


def looks_like_massive(path: str | os.PathLike) -> bool:
    """Whether a file's first line is a MASSIVE record (it has ``annot_utt``): how ``auto`` tells it from JSON lines.

    >>> from pathlib import Path; p = Path("/tmp/_massive_demo.jsonl")
    >>> _ = p.write_text('{"intent": "alarm_set", "annot_utt": "wake me at [time : five]"}\\n')
    >>> looks_like_massive(p), read_massive(p)[0].tags
    (True, ('O', 'O', 'O', 'B-time'))
    """
    try:
        with open_binary(path) as fh:
            first = fh.readline(1 << 16)
    except (OSError, EOFError):
        return False
    return b'"annot_utt"' in first
