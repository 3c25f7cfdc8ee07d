"""Table 4 per language: one row per (dataset, language) and tokenizer, for many languages at once.

``tokstudy stats -d 'masakhaner2:*:test' -d 'multiconer2022:*:dev'`` asks which languages a
tokenizer hurts. For each dataset of the table (a dataset holds one language) and each tokenizer,
:func:`language_table` gives:

* **NE** and **non-NE additional segmentation %** (``100 * (pieces / words - 1)``, Table 4);
* their **gap** ``NE − non-NE`` in percentage points: how much more the tokenizer splits names
  than other words in that language;
* **fertility** (pieces per word), **unknown pieces %** and **byte pieces %** (pieces that are bytes, not
  whole characters: byte fallback or byte-level BPE, :mod:`tokstudy.analysis.table.bytepieces`) over all words;
* the language's **script** (:func:`dataset_scripts`).

Every figure comes from one :class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch` pass over the
whole table, the same plan as the study's breakdown by dataset
(:class:`~tokstudy.analysis.stats.segmentation.GroupedPlan`): each row's NE and non-NE figures equal
``additional_segmentation_by(table, tokenizer, "dataset", subset="ne")`` with the same seed, and one
set of sentence resamples (drawn over every sentence of the table) serves all of them. The gap is a
difference of two ratios, which a ratio batch does not estimate; its interval comes from the resampled
totals of the same sentence resamples (:func:`~tokstudy.analysis.stats.bootstrap.bootstrap_totals` with
the batch's seed draws the same weights), so it is consistent with the NE and non-NE intervals.

:func:`language_coverage` names, per tokenizer, the languages of which more than 1 % of the pieces are
unknown (or byte-fallback) pieces, or more than 10 % are otherwise byte pieces: their figures describe
unknown pieces or bytes, not segmentation.

>>> from tokstudy.data.types import Dataset, Sentence
>>> from tokstudy.analysis.table import segmentation_table
>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Chars(Segmenter):
...     name, kind, vocab_size = "chars", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists([list(w) for w in words])
>>> yo = Dataset((Sentence(("Ade", "lọ"), ("B-PER", "O")),), "masakhaner2", "yor", "test")
>>> ru = Dataset((Sentence(("Москва", "и"), ("B-LOC", "O")),), "masakhaner2", "rus", "test")
>>> t = segmentation_table([yo, ru], [Chars()], progress=False)
>>> res = language_table(t, bootstrap=BootstrapSettings(n_resamples=0))
>>> [(r.language, r.script, r.ne.value, r.non_ne.value, r.gap.value) for r in res.ranked()]
[('rus', 'Cyrillic', 500.0, 0.0, 500.0), ('yor', 'Latin', 200.0, 100.0, 100.0)]
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tokstudy.analysis.stats.bootstrap import bootstrap_totals, percentile_interval, sentence_sums
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.stats.groupings import Groupings
from tokstudy.analysis.stats.ratio_batch import FigureKey, Quantity, RatioBatch
from tokstudy.analysis.stats.segmentation import GroupedPlan
from tokstudy.analysis.table import SegmentationTable, TokenizerColumns
from tokstudy.analysis.table.bytepieces import BYTE_PIECE_THRESHOLD, byte_piece_warnings
from tokstudy.analysis.table.coverage import (
    BYTE_THRESHOLD,
    THRESHOLD,
    byte_fallback_warnings,
    char_script,
    coverage_warnings,
)
from tokstudy.data.scripts import language_script, unicode_script

#: the table's datasets (one language each) are what the rows are grouped by.
BY = "dataset"
#: script of a dataset whose language code is unknown and whose text has no letters.
UNKNOWN_SCRIPT = "unknown"


@dataclass(frozen=True)
class LanguageRow:
    """Table 4 of one (dataset, language) under one tokenizer."""

    tokenizer: str
    """The tokenizer's column name."""
    dataset: str
    """The dataset's display label in the table (``masakhaner2:yor:test``)."""
    name: str
    """The dataset's registry or file name (``masakhaner2``)."""
    split: str
    """Its split."""
    language: str
    """Its language code (``yor``)."""
    script: str
    """The script the language is written in (``Latin``; :func:`dataset_scripts`)."""
    ne: Estimate
    """Additional segmentation % of words inside named entities."""
    non_ne: Estimate
    """Additional segmentation % of labelled words outside them."""
    gap: Estimate
    """``ne − non_ne``, in percentage points, with its interval over the same resamples."""
    fertility: Estimate
    """Pieces per word, every word."""
    unknown: Estimate
    """% of the pieces that are unknown pieces, every word."""
    byte_pieces: Estimate | None = None
    """% of the pieces that are bytes, not whole characters, every word (``None``: not counted)."""


@dataclass(frozen=True)
class LanguageTable:
    """:func:`language_table`'s result: every row, and how they were counted."""

    rows: tuple[LanguageRow, ...]
    """One row per tokenizer and dataset, in the table's order (tokenizers, then datasets)."""
    tokenizers: tuple[str, ...]
    """The tokenizers, in the order asked for."""
    boundary_policies: dict[str, str]
    """How each tokenizer counted a lone word-boundary piece."""
    bootstrap: BootstrapSettings
    """How the intervals were made."""

    def ranked(self, tokenizer: str | None = None) -> list[LanguageRow]:
        """The rows of ``tokenizer`` (default the first) by gap, largest first (an undefined gap last)."""
        name = tokenizer or self.tokenizers[0]
        rows = [r for r in self.rows if r.tokenizer == name]
        return sorted(rows, key=lambda r: math.inf if math.isnan(r.gap.value) else -r.gap.value)

    def dataset_order(self) -> list[str]:
        """The datasets by the first tokenizer's gap, largest first: the order of the figure and the report."""
        return [r.dataset for r in self.ranked()]


@dataclass(frozen=True)
class _LanguagePlan:
    """One tokenizer's per-dataset figures, registered in a ratio batch (each a key per dataset)."""

    column: TokenizerColumns
    ne: tuple[FigureKey, ...]
    non_ne: tuple[FigureKey, ...]
    fertility: tuple[FigureKey, ...]
    unknown: tuple[FigureKey, ...]
    byte_pieces: tuple[FigureKey, ...]

    @classmethod
    def register(cls, batch: RatioBatch, groups: Groupings, table: SegmentationTable, tokenizer: str):
        col = table.column(tokenizer)
        ne = GroupedPlan.register(batch, groups, table, tokenizer, BY, "ne").figures
        non_ne = GroupedPlan.register(batch, groups, table, tokenizer, BY, "non_ne").figures
        every = groups.by[(BY, "all")]
        pieces = Quantity("pieces", col.n_pieces, col.name)
        unknown = Quantity("unknown", col.n_unk, col.name)
        fertility = batch.ratio("fertility", pieces, batch.words, every)
        unknown_pct = batch.ratio("unknown pieces %", unknown, pieces, every, _percent)
        partial = Quantity("byte pieces", col.partial_counts(), col.name)
        partial_pct = batch.ratio("byte pieces %", partial, pieces, every, _percent)
        return cls(col, ne, non_ne, tuple(fertility), tuple(unknown_pct), tuple(partial_pct))

    def rows(
        self,
        table: SegmentationTable,
        est: dict[FigureKey, Estimate],
        gap_interval: tuple[np.ndarray, np.ndarray],
        scripts: dict[str, str],
    ) -> list[LanguageRow]:
        """The tokenizer's row of each dataset, from the batch's estimates and the gap's interval."""
        low, high = gap_interval
        out = []
        for d, label in enumerate(table.datasets):
            ne, non_ne, every = est[self.ne[d]], est[self.non_ne[d]], est[self.fertility[d]]
            n_words = ne.n_words + non_ne.n_words
            gap = Estimate(ne.value - non_ne.value, float(low[d]), float(high[d]), n_words, every.n_sentences)
            name, split, language = table.dataset_keys[d]
            partial = est[self.byte_pieces[d]] if self.column.n_partial is not None else None
            figures = (ne, non_ne, gap, every, est[self.unknown[d]], partial)
            out.append(LanguageRow(self.column.name, label, name, split, language, scripts[label], *figures))
        return out


def _percent(r: float) -> float:
    return 100.0 * r


def language_table(
    table: SegmentationTable,
    tokenizers: Sequence[str] | None = None,
    *,
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> LanguageTable:
    """NE and non-NE additional segmentation, their gap, fertility and unknown pieces per dataset and tokenizer.

    One bootstrap pass over every sentence of ``table`` (resampled together, as the breakdowns of
    :func:`~tokstudy.analysis.stats.table_statistics` are), with ``bootstrap``'s resamples, coverage and seed.
    """
    names = list(tokenizers or table.tokenizer_names)
    groups = Groupings.of(table, [(BY, s) for s in ("ne", "non_ne", "all")])
    batch = RatioBatch(table, bootstrap)
    plans = [_LanguagePlan.register(batch, groups, table, t) for t in names]
    est = batch.run()
    gaps = _gap_intervals(table, groups, [p.column for p in plans], bootstrap)
    scripts = dataset_scripts(table)
    rows = [row for p in plans for row in p.rows(table, est, gaps[p.column.name], scripts)]
    policies = {p.column.name: p.column.boundary_policy for p in plans}
    return LanguageTable(tuple(rows), tuple(names), policies, bootstrap)


def _gap_intervals(
    table: SegmentationTable, groups: Groupings, columns: Sequence[TokenizerColumns], settings: BootstrapSettings
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per tokenizer, the interval of ``NE % − non-NE %`` of each dataset (NaN without resamples).

    The per-sentence sums of pieces and words of NE and non-NE words per dataset, resampled by
    :func:`bootstrap_totals` with the batch's settings: the same weights as the batch's own resamples.
    """
    k, n = len(table.datasets), table.n_sentences
    nan = np.full(k, np.nan)
    if not settings.n_resamples or not n:
        return {c.name: (nan, nan) for c in columns}
    ne, non_ne = groups.by[(BY, "ne")].codes, groups.by[(BY, "non_ne")].codes
    ones = np.ones(len(table))
    sums = [sentence_sums(ones, table.sentence, n, ne, k), sentence_sums(ones, table.sentence, n, non_ne, k)]
    for c in columns:
        sums += [
            sentence_sums(c.n_pieces, table.sentence, n, ne, k),
            sentence_sums(c.n_pieces, table.sentence, n, non_ne, k),
        ]
    boot = bootstrap_totals(np.concatenate(sums, axis=1), n_resamples=settings.n_resamples, seed=settings.seed)
    words_ne, words_non = boot[:, :k], boot[:, k : 2 * k]
    out = {}
    for i, c in enumerate(columns):
        at = 2 * k * (i + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            gap = 100.0 * (boot[:, at : at + k] / words_ne - boot[:, at + k : at + 2 * k] / words_non)
        out[c.name] = percentile_interval(gap, settings.confidence)
    return out


def dataset_scripts(table: SegmentationTable, *, sample: int = 5000) -> dict[str, str]:
    """The script of each dataset of ``table``: its language's (:func:`~tokstudy.data.scripts.language_script`),
    else the most frequent script among the letters of its first ``sample`` distinct words, else ``"unknown"``.
    """
    out = {}
    for d, label in enumerate(table.datasets):
        script = language_script(table.dataset_keys[d][2])
        if script is None:
            types = np.unique(table.word_type[table.dataset_code == d])[:sample]
            letters: Counter = Counter(
                char_script(ch)
                for t in types.tolist()
                for ch in table.types[t]
                if unicodedata.category(ch).startswith("L")
            )
            script = unicode_script(letters.most_common(1)[0][0]) if letters else UNKNOWN_SCRIPT
        out[label] = script
    return out


@dataclass(frozen=True)
class LanguageShare:
    """One language whose pieces are more than the threshold unknown (or byte-fallback) pieces."""

    language: str
    """The language code, with the dataset where two datasets share it (``en (conll2003:test)``)."""
    dataset: str
    """The dataset's display label."""
    share: float
    """Unknown (or byte-fallback) pieces / pieces."""
    scripts: tuple[str, ...]
    """The scripts of the letters they stand for (``Hangul``), most frequent first."""
    top_chars: tuple[str, ...]
    """Their most frequent characters."""

    def text(self) -> str:
        """``ko 45.2 % (Hangul: 이 는 의)``."""
        detail = ", ".join(self.scripts) + (": " + " ".join(self.top_chars) if self.top_chars else "")
        return f"{self.language} {100 * self.share:.1f} %" + (f" ({detail})" if detail else "")


@dataclass(frozen=True)
class LanguageCoverage:
    """The languages a tokenizer does not cover: more than ``threshold`` of their pieces are unknown ones."""

    tokenizer: str
    """The tokenizer's name."""
    kind: str
    """``"unknown"`` pieces (``<unk>``), ``"byte-fallback"`` pieces (``<0xE1>``) or ``"byte pieces"`` (bytes, not
    whole characters, of a byte-level BPE)."""
    languages: tuple[LanguageShare, ...]
    """The languages concerned, largest share first."""
    n_languages: int
    """How many (dataset, language) sets the table holds."""
    threshold: float
    """The share above which a language is named."""

    def message(self) -> str:
        """One line naming every language concerned, for a warning."""
        what = {
            "unknown": "unknown pieces",
            "byte-fallback": "byte-fallback pieces (<0x..>, UTF-8 bytes)",
            "byte pieces": "byte pieces (UTF-8 bytes of a character, not whole characters)",
        }[self.kind]
        return (
            f"tokenizer {self.tokenizer!r}: more than {100 * self.threshold:g} % of the pieces are {what} in "
            f"{len(self.languages)} of {self.n_languages} languages: "
            + "; ".join(s.text() for s in self.languages)
            + ". Their figures describe pieces of text the tokenizer does not cover, not segmentation."
        )


def language_coverage(
    table: SegmentationTable,
    *,
    threshold: float = THRESHOLD,
    byte_threshold: float = BYTE_THRESHOLD,
    byte_piece_threshold: float = BYTE_PIECE_THRESHOLD,
) -> list[LanguageCoverage]:
    """Per tokenizer (and kind), the languages of which more than ``threshold`` of the pieces are unknown
    pieces (``byte_threshold``: byte-fallback pieces; ``byte_piece_threshold``: byte pieces where the
    byte-fallback share is not above its own), from the per-dataset shares of
    :mod:`tokstudy.analysis.table.coverage` and :mod:`tokstudy.analysis.table.bytepieces`. Tokenizers that
    cover every language are left out."""
    labels = language_labels(table)
    out = []
    for kind, shares, limit in (
        ("unknown", coverage_warnings(table, threshold=threshold), threshold),
        ("byte-fallback", byte_fallback_warnings(table, threshold=byte_threshold), byte_threshold),
        (
            "byte pieces",
            byte_piece_warnings(table, threshold=byte_piece_threshold, fallback_threshold=byte_threshold),
            byte_piece_threshold,
        ),
    ):
        for tokenizer in table.tokenizer_names:
            mine = sorted((s for s in shares if s.tokenizer == tokenizer), key=lambda s: -s.share)
            if mine:
                found = tuple(
                    LanguageShare(
                        labels[s.dataset],
                        s.dataset,
                        s.share,
                        tuple(unicode_script(x) for x in s.scripts if x != "COMBINING"),  # marks: their letter's
                        tuple(c for c, _ in s.top_chars[:3]),
                    )
                    for s in mine
                )
                out.append(LanguageCoverage(tokenizer, kind, found, len(table.datasets), limit))
    return out


def language_labels(table: SegmentationTable) -> dict[str, str]:
    """Each dataset's language as a reader names it: the code, with the dataset where a code repeats.

    >>> from tokstudy.data.types import Dataset, Sentence
    >>> from tokstudy.analysis.table import build_word_columns
    >>> s = (Sentence(("a",), ("O",)),)
    >>> sets = [Dataset(s, "x", "en", "test"), Dataset(s, "y", "en", "test"), Dataset(s, "y", "de", "dev")]
    >>> t = build_word_columns(sets)
    >>> language_labels(t)
    {'x:test': 'en (x:test)', 'y:test': 'en (y:test)', 'y:dev': 'de'}
    """
    codes = [k[2] for k in table.dataset_keys]
    return {label: c if codes.count(c) == 1 else f"{c} ({label})" for label, c in zip(table.datasets, codes)}
