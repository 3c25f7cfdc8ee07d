"""Hugging Face datasets as sources, for users who are online: ``hf:NAME[@CONFIG]:SPLIT``.

``hf:eriktks/conll2003:test`` or ``hf:wikiann@ru:test`` is read with
``datasets.load_dataset(NAME, CONFIG, split=SPLIT)`` and converted to a
:class:`~tokstudy.data.types.Dataset`: words from the ``tokens`` column, tags from
``ner_tags`` (class ids mapped to their names) or ``tags``, normalised to IOB2 like
every reader's. ``NAME`` may also be a local dataset folder (parquet, json, csv
files), which is how this is tested here, without a network.

The ``datasets`` package is optional (``pip install 'tokstudy[hub]'``); nothing here
is imported until a ``hf:`` source is used.

>>> parse_hf_spec("hf:wikiann@ru:test")
('wikiann', 'ru', 'test')
>>> parse_hf_spec("hf:eriktks/conll2003:validation")
('eriktks/conll2003', None, 'validation')
"""

from __future__ import annotations

from tokstudy.data.schemes import detect_scheme, to_iob2
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError, DataNotFoundError

PREFIX = "hf:"
_TOKEN_COLUMNS = ("tokens", "words")
_TAG_COLUMNS = ("ner_tags", "tags", "labels")


def is_hf_spec(spec: str) -> bool:
    return spec.startswith(PREFIX)


def parse_hf_spec(spec: str) -> tuple[str, str | None, str]:
    """``(name, config, split)`` from ``hf:NAME[@CONFIG]:SPLIT`` (split defaults to ``test``)."""
    if not is_hf_spec(spec):
        raise ValueError(f"{spec!r} is not a Hugging Face dataset spec (hf:NAME[@CONFIG]:SPLIT)")
    body = spec[len(PREFIX) :]
    name_part, sep, split = body.rpartition(":")
    if not sep:
        name_part, split = body, "test"
    name, _, config = name_part.partition("@")
    if not name:
        raise ValueError(f"{spec!r}: no dataset name; expected hf:NAME[@CONFIG]:SPLIT")
    return name, config or None, split


def load_hf_dataset(
    name: str,
    split: str = "test",
    *,
    config: str | None = None,
    language: str | None = None,
    tokens_column: str | None = None,
    tags_column: str | None = None,
    scheme: str = "auto",
) -> Dataset:
    """Read a token-classification split through ``datasets.load_dataset`` (see the module docstring)."""
    try:
        import datasets  # deferred: optional and heavy (tokstudy[hub], pyarrow behind it), only for hf: specs
    except ImportError:
        raise DataNotFoundError(
            f"hf:{name} needs the `datasets` package: pip install 'tokstudy[hub]' (or use the local corpora)"
        ) from None
    where = f"hf:{name}" + (f"@{config}" if config else "") + f":{split}"
    try:
        rows = datasets.load_dataset(name, config, split=split)
    except Exception as exc:  # the hub, the network or the files: say which source failed, and why
        raise DataNotFoundError(f"{where}: could not load ({type(exc).__name__}: {exc})") from None
    tokens_column = tokens_column or _pick(rows.column_names, _TOKEN_COLUMNS, where, "tokens")
    tags_column = tags_column or _pick(rows.column_names, _TAG_COLUMNS, where, "tags")
    names = getattr(getattr(rows.features[tags_column], "feature", None), "names", None)

    words_list, tags_list = [], []
    for i, row in enumerate(rows):
        words, tags = row[tokens_column], row[tags_column]
        if len(words) != len(tags):
            raise DataFormatError(f"row {i}: {len(words)} tokens but {len(tags)} tags", path=where)
        if not words:
            continue
        words_list.append(tuple(words))
        tags_list.append([names[t] for t in tags] if names is not None else [str(t) for t in tags])
    if not words_list:
        raise DataFormatError("no sentences with tokens", path=where)
    used = detect_scheme(tags_list) if scheme == "auto" else scheme
    sentences = []
    for k, (words, tags) in enumerate(zip(words_list, tags_list)):
        iob2, _ = to_iob2(tags, used, path=where)
        sentences.append(Sentence(words=words, tags=iob2, sent_id=k))
    lang = language or (config if config and len(config) in (2, 3) and config.isalpha() else "und")
    return Dataset(
        tuple(sentences),
        name=f"hf:{name}" + (f"@{config}" if config else ""),
        language=lang,
        split=split,
        source=where,
        metadata={"scheme": used},
    )


def _pick(columns: list[str], candidates: tuple[str, ...], where: str, what: str) -> str:
    for c in candidates:
        if c in columns:
            return c
    raise DataFormatError(f"no {what} column: expected one of {list(candidates)}, found {columns}", path=where)
