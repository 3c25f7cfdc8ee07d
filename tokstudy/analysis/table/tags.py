"""IOB2 tags to integer columns: tag code, entity type, position in the entity, entity id.

The entity boundaries follow :func:`tokstudy.data.types.iob2_spans` (the conlleval
convention): an ``I-X`` that does not continue an entity of type ``X`` starts a new
entity. Done with numpy over all words at once, so no per-sentence Python loop.

>>> import numpy as np
>>> enc = encode_tags(["B-PER", "I-PER", "O", "I-LOC"], np.zeros(4, np.int64))
>>> enc.position.tolist(), enc.entity_id.tolist()
([1, 2, 0, 1], [0, 0, -1, 1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from tokstudy.analysis.table.factorize import factorize
from tokstudy.errors import TagSchemeError

#: tag stored for words of unlabelled sentences (they are in no entity and not "non-NE" either).
UNLABELLED = "-"


@dataclass(frozen=True)
class EncodedTags:
    tags: tuple[str, ...]
    tag_code: np.ndarray
    entity_types: tuple[str, ...]
    entity_type_code: np.ndarray
    position: np.ndarray
    entity_id: np.ndarray
    labelled: np.ndarray


def parse_tag(tag: str) -> tuple[str, str] | None:
    """``("B", "PER")`` for ``"B-PER"``, ``("O", "")`` for ``"O"``, ``None`` outside IOB2."""
    if tag == "O":
        return "O", ""
    prefix, sep, typ = tag.partition("-")
    if sep and prefix in ("B", "I") and typ:
        return prefix, typ
    return None


def encode_tags(
    tags: Sequence[str | None],
    sentence: np.ndarray,
    locate: Callable[[int], str] | None = None,
) -> EncodedTags:
    """Encode per-word tags (``None`` = unlabelled word) of words grouped by ``sentence``.

    Raises :class:`TagSchemeError` at the first tag that is not IOB2, naming its
    place through ``locate(row)``.
    """
    raw_code, distinct = factorize(tags)
    index = {t: i for i, t in enumerate(distinct)}
    parsed = []
    for t in distinct:
        p = ("O", "") if t is None else parse_tag(t)
        if p is None:
            row = int(np.flatnonzero(raw_code == index[t])[0])
            where = locate(row) if locate else f"word {row}"
            raise TagSchemeError(
                f"{where}: tag {t!r} is not IOB2; expected 'O', 'B-TYPE' or 'I-TYPE' "
                "(convert IOB1/BIOES/BILOU tags to IOB2 first; the readers do this with their scheme option)"
            )
        parsed.append(p)
    # categories: "O" first, then by type then prefix (as Dataset.label_set), unlabelled last
    names = [UNLABELLED if t is None else t for t in distinct]
    order = sorted(range(len(names)), key=lambda i: (names[i] == UNLABELLED, names[i] != "O", parsed[i][1], names[i]))
    tag_names = tuple(names[i] for i in order)
    remap = np.empty(len(names), np.int16)
    remap[order] = np.arange(len(order), dtype=np.int16)
    tag_code = remap[raw_code] if len(raw_code) else np.zeros(0, np.int16)

    etypes = tuple(sorted({typ for _, typ in parsed if typ}))
    prefix_of = np.array([{"O": 0, "B": 1, "I": 2}[parsed[i][0]] for i in range(len(names))], dtype=np.int8)
    etype_of = np.array([etypes.index(parsed[i][1]) if parsed[i][1] else -1 for i in range(len(names))], dtype=np.int16)
    labelled_of = np.array([t is not None for t in distinct], dtype=bool)
    if len(raw_code):
        prefix = prefix_of[raw_code]
        etype = etype_of[raw_code]
        labelled = labelled_of[raw_code]
    else:
        prefix = np.zeros(0, np.int8)
        etype = np.zeros(0, np.int16)
        labelled = np.zeros(0, bool)

    inside = prefix != 0
    # an I-X continues the previous word's entity only if that word is in the same
    # sentence, inside an entity, and of the same type (iob2_spans semantics)
    prev_same = np.zeros(len(prefix), dtype=bool)
    if len(prefix) > 1:
        prev_same[1:] = (sentence[1:] == sentence[:-1]) & inside[:-1] & (etype[1:] == etype[:-1])
    starts = inside & ((prefix == 1) | ~prev_same)
    position = np.where(starts, 1, np.where(inside, 2, 0)).astype(np.int8)
    entity_id = np.where(inside, np.cumsum(starts) - 1, -1).astype(np.int64)
    return EncodedTags(tag_names, tag_code, etypes, etype, position, entity_id, labelled)
