"""Script-class pre-tokenisation: turn unsegmented text (Japanese, Chinese, ...) into words.

Corpora with character-offset entities and no word segmentation (``ner_ja_wikipedia``)
need words before they can be tagged IOB2 and segmented by a subword tokenizer. We
use a deliberately simple, dictionary-free rule, so that the result is reproducible
without MeCab or a model:

1. each character gets a class: ``han`` (CJK ideographs, plus 々 〆 〇), ``hiragana``,
   ``katakana`` (including the prolonged-sound mark ー and half-width kana), ``letter``
   (any other alphabetic character: Latin, Cyrillic, Greek, full-width Latin, ...),
   ``digit`` (Unicode decimal digits, full-width included), ``space``, ``mark``
   (combining marks: they join the previous character's word) or ``other``
   (punctuation, symbols, everything else);
2. a word is a maximal run of one class among han/hiragana/katakana/letter/digit;
   every ``other`` character is a word on its own; ``space`` is dropped;
3. word boundaries are then forced at every offset in ``boundaries`` (entity span
   starts and ends), so every entity is a sequence of whole words.

So ``東京都千代田区に本社`` gives ``東京都千代田区 / に / 本社``; with an entity
``東京都`` the first word is cut into ``東京都 / 千代田区``. The rule over-splits
mixed-script words (``SPRiNGSと`` -> ``SPRiNGS / と``) and under-splits long kanji
compounds; that is the price of being dictionary-free, and it is the same for every
tokenizer compared on the data.

>>> spans = pretokenize("レッドフォックス株式会社は、2010年に", boundaries={12})
>>> [("レッドフォックス株式会社は、2010年に")[s:e] for s, e in spans]
['レッドフォックス', '株式会社', 'は', '、', '2010', '年', 'に']
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Collection

#: Classes whose characters join into runs (the others stand alone or are dropped).
RUN_CLASSES = frozenset({"han", "hiragana", "katakana", "letter", "digit"})

_HAN_EXTRA = frozenset("々〆〇〻")


@lru_cache(maxsize=65536)
def char_class(ch: str) -> str:
    """The script class of one character (see the module docstring).

    >>> [char_class(c) for c in "東あアーaЖ1１、 "]
    ['han', 'hiragana', 'katakana', 'katakana', 'letter', 'letter', 'digit', 'digit', 'other', 'space']
    """
    if ch.isspace():
        return "space"
    cp = ord(ch)
    cat = unicodedata.category(ch)
    if cat == "Nd":
        return "digit"
    if cat[0] == "M":
        return "mark"
    if cat[0] != "L":
        return "other"
    if (
        ch in _HAN_EXTRA
        or 0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x3134F
    ):
        return "han"
    if 0x3040 <= cp <= 0x309F:
        return "hiragana"
    if 0x30A0 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9F:
        return "katakana"
    return "letter"


def pretokenize(text: str, boundaries: Collection[int] = ()) -> list[tuple[int, int]]:
    """Word spans ``(start, end_exclusive)`` of ``text`` by script class, cut at ``boundaries``.

    Whitespace is never inside a word; the spans are in order and do not overlap.

    >>> pretokenize("SPRiNGSと最も", boundaries=())
    [(0, 7), (7, 8), (8, 9), (9, 10)]
    """
    cut = set(boundaries)
    spans: list[tuple[int, int]] = []
    start = -1
    prev = "space"
    for i, ch in enumerate(text):
        cls = char_class(ch)
        if cls == "mark" and start >= 0:
            continue  # a combining mark stays with its base character
        same_run = cls == prev and cls in RUN_CLASSES and i not in cut
        if start >= 0 and not same_run:
            spans.append((start, i))
            start = -1
        if cls != "space":
            if start < 0:
                start = i
            prev = cls if cls != "mark" else "other"
        else:
            prev = "space"
    if start >= 0:
        spans.append((start, len(text)))
    return spans
