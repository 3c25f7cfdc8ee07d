"""JSON NER data: JSON lines with token and tag lists, and character-span JSON (``ner_ja_wikipedia``).

:func:`read_jsonl` reads one JSON object per line (``{"tokens": [...], "tags": [...]}``);
tags in any scheme are normalised to IOB2 as in :func:`~tokstudy.data.conll.read_conll`.

:func:`read_char_span_json` reads a JSON list of records ``{curid, text, entities: [{name,
span: [start, end), type}]}``: the text is cut into words by
:func:`~tokstudy.data.pretokenize.pretokenize` (script classes, with forced boundaries at
every entity start and end) and each entity's words get ``B-``/``I-`` tags. Every entity
is checked to round-trip: the words it covers, joined, equal its ``name`` (whitespace
aside). Entity types stay as in the data; pass ``type_map=JA_TYPES_EN`` for English names.

Errors name the place: ``file:line`` for JSON lines, ``record N (curid ...)`` for the
JSON list (whose line numbers mean little once pretty-printed).

>>> import json; from pathlib import Path; p = Path("/tmp/_span_demo.json")
>>> _ = p.write_text(json.dumps([{"curid": "1", "text": "東京都に本社",
...     "entities": [{"name": "東京都", "span": [0, 3], "type": "地名"}]}]))
>>> s = read_char_span_json(p, type_map=JA_TYPES_EN)[0]
>>> s.words, s.tags
(('東京都', 'に', '本社'), ('B-location', 'O', 'O'))
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Collection, Mapping

from tokstudy.data.pretokenize import pretokenize
from tokstudy.data.repairs import RepairLog
from tokstudy.data.schemes import detect_scheme, normalize_scheme, to_iob2
from tokstudy.data.textio import Problems, iter_lines, open_binary
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError, TagSchemeError

#: The eight ``ner_ja_wikipedia`` types (Stockmark) and English names for them.
JA_TYPES_EN = {
    "人名": "person",
    "法人名": "corporation",
    "地名": "location",
    "製品名": "product",
    "政治的組織名": "political_organization",
    "施設名": "facility",
    "その他の組織名": "other_organization",
    "イベント名": "event",
}

Pretokenizer = Callable[[str, Collection[int]], list[tuple[int, int]]]


def read_jsonl(
    path: str | os.PathLike,
    *,
    tokens_key: str = "tokens",
    tags_key: str = "tags",
    label_key: str | None = None,
    scheme: str = "auto",
    name: str | None = None,
    language: str = "und",
    split: str = "all",
    lenient: bool = False,
    encoding: str = "utf-8",
) -> Dataset:
    """Read JSON lines, one ``{tokens_key: [...], tags_key: [...]}`` object per line (blank lines skipped).

    ``label_key`` names an optional sentence-level label. ``Sentence.line`` is the
    object's line. Errors (``file:line``): invalid JSON, not an object, a missing key,
    a value that is not a list of strings, different numbers of tokens and tags, a tag
    outside the scheme or a forbidden transition (strict mode).
    """
    path = Path(path)
    scheme = normalize_scheme(scheme)
    rows: list[tuple[int, list[str], list[str], str | None]] = []
    problems = Problems(path)
    for number, text in iter_lines(path, encoding=encoding):
        if not text.strip():
            continue
        try:
            rows.append(_jsonl_row(text, path, number, tokens_key, tags_key, label_key))
        except DataFormatError as exc:
            problems.add_error(exc)
    problems.raise_if_any()
    if not rows:
        raise DataFormatError("no JSON objects found; expected one per line", path=path)
    used = scheme
    if scheme == "auto":
        try:
            used = detect_scheme(r[2] for r in rows)
        except TagSchemeError as exc:
            raise TagSchemeError(exc.reason, path=path) from None
    sentences, repaired, repairs = [], 0, []
    for k, (number, tokens, tags, label) in enumerate(rows):
        iob2, fixed = to_iob2(tags, used, lenient=lenient, path=str(path), lines=[number] * len(tags), repairs=repairs)
        repaired += fixed
        sentences.append(Sentence(tuple(tokens), iob2, doc_id=0, sent_id=k, label=label, line=number))
    metadata = {"scheme": used, "lenient": lenient}
    log = RepairLog.of(repairs, source=str(path))
    return _dataset(sentences, path, name, language, split, repaired=repaired, metadata=metadata, repair_log=log)


def _dataset(sentences: list[Sentence], path: Path, name, language: str, split: str, **extra) -> Dataset:
    """The dataset read from ``path`` (named after the file unless ``name`` is given)."""
    return Dataset(tuple(sentences), name=name or path.name, language=language, split=split, source=str(path), **extra)


def _jsonl_row(
    text: str, path: Path, number: int, tokens_key: str, tags_key: str, label_key: str | None
) -> tuple[int, list[str], list[str], str | None]:
    """One JSON line as ``(line, tokens, tags, label)``; raises :class:`DataFormatError` at the line."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(
            f"invalid JSON ({exc.msg} at column {exc.colno}); expected one object per line", path=path, line=number
        ) from None
    if not isinstance(obj, dict):
        raise DataFormatError(f"expected a JSON object, found {type(obj).__name__}", path=path, line=number)
    tokens = _string_list(obj, tokens_key, path, number)
    tags = _string_list(obj, tags_key, path, number)
    if len(tokens) != len(tags):
        raise DataFormatError(
            f"{len(tokens)} {tokens_key} but {len(tags)} {tags_key}; expected one tag per token", path=path, line=number
        )
    if not tokens:
        raise DataFormatError(f"empty {tokens_key!r} list; expected at least one token", path=path, line=number)
    label = None
    if label_key is not None:
        if label_key not in obj:
            raise DataFormatError(f"missing key {label_key!r}", path=path, line=number)
        label = str(obj[label_key])
    return number, tokens, tags, label


def read_char_span_json(
    path: str | os.PathLike,
    *,
    pretokenizer: Pretokenizer = pretokenize,
    type_map: Mapping[str, str] | None = None,
    name: str | None = None,
    language: str = "ja",
    split: str = "all",
    text_key: str = "text",
    entities_key: str = "entities",
    id_key: str = "curid",
) -> Dataset:
    """Read a JSON list of character-span records into IOB2-tagged words.

    Args:
        pretokenizer: ``f(text, boundaries) -> [(start, end), ...]`` word spans that never
            cross a boundary offset (default: :func:`~tokstudy.data.pretokenize.pretokenize`).
        type_map: rename entity types (e.g. :data:`JA_TYPES_EN`); a type missing from
            the map is an error, so no entity is silently left untranslated.

    Records sharing an ``id_key`` (one Wikipedia page) share a ``doc_id``.
    ``metadata["curids"]`` and ``metadata["records"]`` (0-based index in the list)
    are aligned with the sentences; ``Sentence.line`` is ``None`` (a JSON list has no
    meaningful line per record).

    Errors name ``record N (curid ...)``: a span outside the text or not matching
    ``name``, overlapping entities (IOB2 cannot nest), an entity that does not
    round-trip through the words, a type missing from ``type_map``, invalid JSON.
    """
    path = Path(path)
    records = _load_json_list(path)
    sentences, curids, indices = [], [], []
    doc_of: dict[str, int] = {}
    for index, rec in enumerate(records):
        where = f"record {index}"
        if not isinstance(rec, dict) or not isinstance(rec.get(text_key), str):
            raise DataFormatError(f"{where}: expected an object with a string {text_key!r}", path=path)
        curid = str(rec.get(id_key, index))
        where = f"record {index} ({id_key} {curid})"
        text = rec[text_key]
        entities = _entities(rec.get(entities_key, []), text, where, path)
        cuts = {b for s, e, _ in entities for b in (s, e)}
        spans = pretokenizer(text, cuts)
        if not spans:
            raise DataFormatError(f"{where}: text has no words", path=path)
        tags = _span_tags(text, spans, entities, type_map, where, path)
        words = tuple(text[a:b] for a, b in spans)
        doc = doc_of.setdefault(curid, len(doc_of))
        sentences.append(Sentence(words, tuple(tags), doc_id=doc, sent_id=len(sentences)))
        curids.append(curid)
        indices.append(index)
    if not sentences:
        raise DataFormatError("empty JSON list; expected at least one record", path=path)
    metadata = {
        "curids": tuple(curids),
        "records": tuple(indices),
        "pretokenizer": getattr(pretokenizer, "__name__", repr(pretokenizer)),
        "type_map": dict(type_map) if type_map else None,
    }
    return _dataset(sentences, path, name, language, split, metadata=metadata)


def _span_tags(
    text: str,
    spans: list[tuple[int, int]],
    entities: list[tuple[int, int, str]],
    type_map: Mapping[str, str] | None,
    where: str,
    path: Path,
) -> list[str]:
    """IOB2 tags of the words ``spans`` of ``text`` from its character-span ``entities``: each entity must start
    and end on word boundaries and give back its own text from its words."""
    tags = ["O"] * len(spans)
    starts = {s: i for i, (s, _) in enumerate(spans)}
    ends = {e: i for i, (_, e) in enumerate(spans)}
    for s, e, etype in entities:
        first, last = starts.get(_skip_space(text, s, e)), ends.get(_skip_space_back(text, s, e))
        if first is None or last is None or first > last:
            raise DataFormatError(
                f"{where}: entity {text[s:e]!r} at [{s}, {e}) does not start and end on word "
                "boundaries; the pretokenizer must cut at every boundary it is given",
                path=path,
            )
        covered = "".join(text[a:b] for a, b in spans[first : last + 1])
        if covered != "".join(text[s:e].split()):
            raise DataFormatError(
                f"{where}: entity {text[s:e]!r} does not round-trip: its words give {covered!r}", path=path
            )
        if type_map is not None:
            if etype not in type_map:
                raise DataFormatError(
                    f"{where}: entity type {etype!r} is not in type_map (keys: {sorted(type_map)})", path=path
                )
            etype = type_map[etype]
        tags[first] = "B-" + etype
        for i in range(first + 1, last + 1):
            tags[i] = "I-" + etype
    return tags


def _string_list(obj: dict, key: str, path: Path, line: int) -> list[str]:
    if key not in obj:
        raise DataFormatError(f"missing key {key!r}; keys are {sorted(obj)}", path=path, line=line)
    value = obj[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataFormatError(f"{key!r} must be a list of strings", path=path, line=line)
    return value


def _load_json_list(path: Path) -> list:
    with open_binary(path) as fh:
        data = fh.read()
    if not data.strip():
        raise DataFormatError("file is empty; expected a JSON list of records", path=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataFormatError("invalid UTF-8; expected UTF-8 JSON", path=path, line=line) from None
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON ({exc.msg} at column {exc.colno})", path=path, line=exc.lineno) from None
    if not isinstance(records, list):
        raise DataFormatError(f"expected a JSON list of records, found {type(records).__name__}", path=path)
    return records


def _entities(raw, text: str, where: str, path: Path) -> list[tuple[int, int, str]]:
    """Validated ``(start, end, type)`` spans, sorted, non-overlapping, matching their names."""
    out = []
    for j, ent in enumerate(raw):
        try:
            (s, e), etype, name = ent["span"], str(ent["type"]), ent.get("name")
            s, e = int(s), int(e)
        except (KeyError, TypeError, ValueError):
            raise DataFormatError(f"{where}: entity {j} needs 'span': [start, end] and 'type'", path=path) from None
        if not 0 <= s < e <= len(text):
            raise DataFormatError(
                f"{where}: entity {j} span [{s}, {e}) is outside the text (length {len(text)})", path=path
            )
        if name is not None and text[s:e] != name:
            raise DataFormatError(f"{where}: entity {j} name {name!r} != text[{s}:{e}] = {text[s:e]!r}", path=path)
        if not text[s:e].strip():
            raise DataFormatError(f"{where}: entity {j} span [{s}, {e}) is only whitespace", path=path)
        out.append((s, e, etype))
    out.sort()
    for (s1, e1, _), (s2, e2, _) in zip(out, out[1:]):
        if s2 < e1:
            raise DataFormatError(
                f"{where}: entities [{s1}, {e1}) and [{s2}, {e2}) overlap; IOB2 cannot nest them", path=path
            )
    return out


def _skip_space(text: str, s: int, e: int) -> int:
    while s < e and text[s].isspace():
        s += 1
    return s


def _skip_space_back(text: str, s: int, e: int) -> int:
    while e > s and text[e - 1].isspace():
        e -= 1
    return e
