"""The attribution table's rows, typed: one :class:`AttributionRow` per (tokenizer, model) and one
:class:`FrequencyRow` per cell of the matched view, each with the JSON codec of ``attribution.json``.

A row is made from an analysis result (:class:`~tokstudy.analysis.model_errors.attribution.Attribution`) by
:meth:`AttributionRow.of` (the whole table by :meth:`AttributionTable.of`), written as one flat JSON object
(and one CSV row) by ``to_json`` and read back by ``from_json``; a number the fit did not give (NaN) is
``None`` in the row as in the file, so a row read back equals the row written. The section made from the rows
is :mod:`tokstudy.report.attribution`.

>>> up = RatioCells(1.2, 1.1, 1.3)
>>> row = AttributionRow("sp32k", "ner", "conll2003:test", up, 1e-5, RatioCells(1.6, 1.5, 1.7), 1e-9,
...                      {"2": up}, 0.05, 1e-4, 1000, 100, 40, "length_chars", None, 0.95, "none", "")
>>> list(row.to_json())[3:7], AttributionRow.from_json(row.to_json()) == row
(['or_adjusted', 'or_adjusted_low', 'or_adjusted_high', 'p_adjusted'], True)
>>> up.text(), RatioCells(None, None, None).text()
('1.200 [1.100, 1.300]', '–')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tokstudy.report.numbers import json_number

#: the levels of the odds ratios by pieces a row may hold (against one-piece words), in the order shown
PIECE_LEVELS = ("2", "3", "4+")
_PIECES = "or_pieces_"


@dataclass(frozen=True)
class RatioCells:
    """An odds ratio as a row holds it: its value and interval, each None where the fit gave none."""

    value: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, ratio) -> RatioCells:
        """The cells of an :class:`~tokstudy.analysis.model_errors.attribution.OddsRatio` (NaN as None)."""
        return cls(json_number(ratio.value), json_number(ratio.low), json_number(ratio.high))

    @classmethod
    def from_json(cls, data: dict, prefix: str) -> RatioCells:
        """The cells ``<prefix>``, ``<prefix>_low``, ``<prefix>_high`` of a flat row."""
        return cls(data[prefix], data[f"{prefix}_low"], data[f"{prefix}_high"])

    def to_json(self, prefix: str) -> dict:
        return {prefix: self.value, f"{prefix}_low": self.low, f"{prefix}_high": self.high}

    def text(self) -> str:
        """``"1.009 [0.936, 1.087]"``, or ``"–"`` without a value."""
        if self.value is None:
            return "–"
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


@dataclass(frozen=True)
class AttributionRow:
    """One (tokenizer, model) of the attribution: odds ratios adjusted and not, by pieces, partial r, sizes.

    Its JSON is one flat object (``or_adjusted``, ``or_adjusted_low``, ..., ``or_pieces_2``, ...), as the CSV
    row; numbers the fit did not give are None."""

    tokenizer: str
    model: str
    dataset: str
    adjusted: RatioCells
    """The odds ratio of an error per extra piece, with the covariates."""
    p_adjusted: float | None
    unadjusted: RatioCells
    """The same without covariates."""
    p_unadjusted: float | None
    by_pieces: dict[str, RatioCells]
    """Adjusted odds ratios of words of 2, 3, 4+ pieces against one-piece words, by level (those fitted)."""
    partial_r: float | None
    partial_p: float | None
    n_words: int
    n_errors: int
    n_sentences: int
    covariates: str
    """The covariates' names, joined by ``", "``."""
    frequency_source: str | None
    """What the training frequencies were counted on (None: frequency not among the covariates)."""
    confidence: float
    boundary_policy: str
    note: str
    """What went wrong in a fit, for the section's notes (empty when nothing did)."""

    @classmethod
    def of(cls, r) -> AttributionRow:
        """The row of one :class:`~tokstudy.analysis.model_errors.attribution.Attribution`."""
        return cls(
            r.tokenizer,
            r.model,
            r.dataset,
            RatioCells.of(r.adjusted),
            json_number(r.adjusted.p_value),
            RatioCells.of(r.unadjusted),
            json_number(r.unadjusted.p_value),
            {level: RatioCells.of(o) for level, o in r.by_pieces.items()},
            json_number(r.partial_r),
            json_number(r.partial_p),
            r.n_words,
            r.n_errors,
            r.n_sentences,
            ", ".join(r.covariates),
            r.frequency_source,
            r.confidence,
            r.boundary_policy,
            r.note,
        )

    @property
    def fitted(self) -> bool:
        """Whether the adjusted regression was fitted (it has an odds ratio)."""
        return self.adjusted.value is not None

    def label(self) -> str:
        """``"model / tokenizer"``, as the section names a case."""
        return f"{self.model} / {self.tokenizer}"

    def to_json(self) -> dict:
        row = {"tokenizer": self.tokenizer, "model": self.model, "dataset": self.dataset}
        row |= self.adjusted.to_json("or_adjusted") | {"p_adjusted": self.p_adjusted}
        row |= self.unadjusted.to_json("or_unadjusted") | {"p_unadjusted": self.p_unadjusted}
        for level, cells in self.by_pieces.items():
            row |= cells.to_json(_PIECES + level)
        return row | {
            "partial_r": self.partial_r,
            "partial_p": self.partial_p,
            "n_words": self.n_words,
            "n_errors": self.n_errors,
            "n_sentences": self.n_sentences,
            "covariates": self.covariates,
            "frequency_source": self.frequency_source,
            "confidence": self.confidence,
            "boundary_policy": self.boundary_policy,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: dict) -> AttributionRow:
        # the levels by pieces are the row's own: those the fit had words for, in the order written
        levels = [k.removeprefix(_PIECES) for k in data if k.startswith(_PIECES) and not k.endswith(("_low", "_high"))]
        return cls(
            data["tokenizer"],
            data["model"],
            data["dataset"],
            RatioCells.from_json(data, "or_adjusted"),
            data["p_adjusted"],
            RatioCells.from_json(data, "or_unadjusted"),
            data["p_unadjusted"],
            {level: RatioCells.from_json(data, _PIECES + level) for level in levels},
            data["partial_r"],
            data["partial_p"],
            data["n_words"],
            data["n_errors"],
            data["n_sentences"],
            data["covariates"],
            data["frequency_source"],
            data["confidence"],
            data["boundary_policy"],
            data["note"],
        )


@dataclass(frozen=True)
class FrequencyRow:
    """One cell of the matched view: the error rate of words of ``pieces`` pieces within a training-frequency bin
    (:class:`~tokstudy.analysis.model_errors.attribution.FrequencyCell`), for one tokenizer and model."""

    tokenizer: str
    model: str
    train_frequency: str
    """The bin: ``unseen``, ``1-9``, ``10-99``, ``100+``."""
    pieces: str
    """``1``, ``2``, ``3``, ``4+``."""
    n: int
    n_errors: int
    error_rate: float | None
    """None without words in the cell."""

    def to_json(self) -> dict:
        return {
            "tokenizer": self.tokenizer,
            "model": self.model,
            "train_frequency": self.train_frequency,
            "pieces": self.pieces,
            "n": self.n,
            "n_errors": self.n_errors,
            "error_rate": self.error_rate,
        }

    @classmethod
    def from_json(cls, data: dict) -> FrequencyRow:
        return cls(**data)


@dataclass(frozen=True)
class AttributionTable:
    """What ``attribution.json`` holds: the rows under ``"attribution"``, the matched view under
    ``"by_frequency"``."""

    rows: tuple[AttributionRow, ...]
    cells: tuple[FrequencyRow, ...] = ()

    @classmethod
    def of(cls, results: Sequence) -> AttributionTable:
        """The table of :class:`~tokstudy.analysis.model_errors.attribution.Attribution` results, in their order."""
        return cls(tuple(AttributionRow.of(r) for r in results), tuple(_cells(results)))

    def to_json(self) -> dict:
        return {ROWS: [r.to_json() for r in self.rows], CELLS: [c.to_json() for c in self.cells]}

    @classmethod
    def from_json(cls, data: dict) -> AttributionTable:
        return cls(
            tuple(AttributionRow.from_json(r) for r in data[ROWS]),
            tuple(FrequencyRow.from_json(c) for c in data[CELLS]),
        )


#: the keys of ``attribution.json``
ROWS, CELLS = "attribution", "by_frequency"


def _cells(results: Sequence) -> list[FrequencyRow]:
    """The matched view: error rate by pieces within training-frequency bins, one row per cell."""
    return [
        FrequencyRow(r.tokenizer, r.model, c.frequency, c.pieces, c.n, c.n_errors, json_number(c.error_rate))
        for r in results
        for c in r.by_frequency
    ]
