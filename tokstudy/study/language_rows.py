"""The rows of the study's languages tables (``languages``, ``cross_language``, ``vocabulary_gain``), typed, each
with its JSON codec.

:mod:`tokstudy.study.across_languages` computes them, :mod:`tokstudy.study.language_analysis` writes them
(``row()`` is the CSV row and, made plain by :func:`~tokstudy.report.tables.to_jsonable`, the JSON) and
:mod:`tokstudy.study.language_sections` reads them back (``from_json``). A missing number is NaN in memory and
``null`` in the JSON.

>>> g = VocabularyGain.from_json({"task": "t", "dataset": "d", "language": "yo", "script": "Latin", "small": "a",
...     "large": "b", "f1_small": 50.0, "f1_large": 60.0, "gain": 10.0, "low": None, "high": None,
...     "ne_small": 90.0, "ne_large": 70.0})
>>> g.gain, g.low != g.low, g.to_json()["low"]
(10.0, True, None)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from tokstudy.analysis.stats.estimates import CONFIDENCE, Estimate
from tokstudy.report.codec import from_jsonable
from tokstudy.report.tables import to_jsonable

_NAN = float("nan")


class _Row:
    """``row()`` / ``to_json()`` / ``from_json()`` of a flat row dataclass whose fields are its JSON keys (but those
    in ``_KEYS``: ``{field: key}``)."""

    _KEYS: dict[str, str] = {}

    def row(self) -> dict:
        """The row as a dict under its JSON keys, NaN kept (the CSV row)."""
        return {self._KEYS.get(f.name, f.name): getattr(self, f.name) for f in fields(self)}

    def to_json(self) -> dict:
        return to_jsonable(self.row())

    @classmethod
    def from_json(cls, data: dict):
        names = {key: name for name, key in cls._KEYS.items()}
        return from_jsonable(cls, {names.get(k, k): v for k, v in data.items()})


@dataclass(frozen=True)
class ScoredTask:
    """One NER task of the languages part: one language of one corpus.

    Attributes:
        task: its label (``masakhaner2-yor-ner``).
        dataset, language: the corpus and the language.
        test: the label of its scored sentences among the scored table's datasets.
    """

    task: str
    dataset: str
    language: str | None
    test: str


@dataclass(frozen=True)
class LanguageRow(_Row):
    """One (tokenizer, task) of ``languages``: a language's segmentation next to its F1.

    Attributes:
        ne, ne_low, ne_high: additional segmentation % of the task's test words inside entities, with its interval.
        all, all_low, all_high: the same over every word.
        gap: NE − non-NE (percentage points).
        unknown, byte_pieces: the share of unknown pieces and of byte pieces (%; NaN where not counted).
        f1, f1_sd, seeds, f1_values: F1 (mean over seeds), its sd, the seeds and each seed's F1.
        r, r_low, r_high, r_p: word-level Pearson r of pieces with label errors.
        odds, odds_low, odds_high: odds ratio of a mislabel per extra piece, adjusted (``or`` in the JSON).
    """

    _KEYS = {"odds": "or", "odds_low": "or_low", "odds_high": "or_high"}

    tokenizer: str
    task: str
    dataset: str
    language: str | None
    script: str
    ne: float
    ne_low: float
    ne_high: float
    all: float
    all_low: float
    all_high: float
    gap: float
    unknown: float
    byte_pieces: float = _NAN
    f1: float = _NAN
    f1_sd: float = _NAN
    seeds: int = 1
    f1_values: tuple[float, ...] = ()
    r: float = _NAN
    r_low: float = _NAN
    r_high: float = _NAN
    r_p: float = _NAN
    odds: float = _NAN
    odds_low: float = _NAN
    odds_high: float = _NAN

    def row(self) -> dict:
        out = super().row()
        out["f1_values"] = list(self.f1_values)
        return out


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman's rho across languages, with a percentile bootstrap interval over languages
    (:func:`~tokstudy.study.across_languages.spearman_across`)."""

    rho: float
    """``scipy.stats.spearmanr`` of the languages' values (NaN when undefined: fewer than 3, or a constant side)."""
    p_value: float
    """Its two-sided p-value (scipy's)."""
    low: float
    high: float
    """The interval: percentiles of rho over resamples of the languages (drawn with replacement)."""
    n: int
    """Languages."""
    n_resamples: int
    undefined: int
    """Resamples with no rho (one side constant, e.g. the same language drawn n times): left out of the interval."""
    confidence: float = CONFIDENCE


@dataclass(frozen=True)
class CrossLanguageRow:
    """One (tokenizer, set of languages, measure) of ``cross_language``: Spearman's rho across languages between
    their segmentation and their F1. In the JSON (and the CSV) the correlation's fields follow the three names, in
    one flat row."""

    tokenizer: str
    group: str
    measure: str
    correlation: RankCorrelation

    def row(self) -> dict:
        """The row as a dict under its JSON keys, NaN kept (the CSV row)."""
        return {"tokenizer": self.tokenizer, "group": self.group, "measure": self.measure, **asdict(self.correlation)}

    def to_json(self) -> dict:
        return to_jsonable(self.row())

    @classmethod
    def from_json(cls, data: dict) -> CrossLanguageRow:
        names = ("tokenizer", "group", "measure")
        rest = {k: v for k, v in data.items() if k not in names}
        return cls(*(data[k] for k in names), from_jsonable(RankCorrelation, rest))


@dataclass(frozen=True)
class VocabularyGain(_Row):
    """One task of ``vocabulary_gain``: its F1 at the smallest and the largest vocabulary and the gain (Welch's
    interval ``low``, ``high``), with its NE words' additional segmentation at both ends."""

    task: str
    dataset: str
    language: str | None
    script: str
    small: str
    large: str
    f1_small: float
    f1_large: float
    gain: float
    low: float
    high: float
    ne_small: float
    ne_large: float


@dataclass(frozen=True)
class LanguageSegmentation:
    """Table 4 of one dataset (one language) for one tokenizer, as the languages part uses it: additional
    segmentation % of NE words and of every word, the NE − non-NE gap, unknown and byte pieces (%; None where
    not counted), each with its interval, and the language's script."""

    ne: Estimate
    all: Estimate
    gap: Estimate
    unknown: Estimate
    byte_pieces: Estimate | None
    script: str
