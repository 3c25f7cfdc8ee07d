"""Which protocol gives the mALBERT paper's r = 0.44? Pearson r of segmentation against errors, protocol by protocol.

The paper reports r = 0.44 between a word's segmentation and the fine-tuned model getting its label wrong
on CoNLL-2003, without saying over which units, with which measure of segmentation, which notion of an
error, or how a lone ``▁`` was counted. A :class:`Protocol` fixes all four:

* ``unit``: ``words`` (every aligned word), ``ne_words`` (words inside a gold entity) or ``entities`` (gold
  entities: conlleval/seqeval spans of the gold tags);
* ``measure``: ``n_pieces`` (a word's pieces; an entity's: the pieces of all its words) or ``extra_pieces``
  (additional segmentation, pieces - 1; an entity's: the sum over its words);
* ``error``: ``label`` (the word's predicted tag differs from its gold tag; an entity: any of its words'
  does) or ``entity`` (the word lies in a gold entity that the predicted spans do not hold exactly, same
  start, end and type, or in a predicted entity that the gold spans do not hold, a spurious one; an
  entity: it is missed);
* ``boundary``: ``counted`` (a lone ``▁``, SentencePiece's word boundary emitted as its own piece, counts
  as a piece) or ``dropped`` (it does not: a column segmented with ``count_lone_boundary=False``).

This module only builds the ``(x, y)`` vectors of each protocol: the measures are
:mod:`.correlation`'s (``n_pieces``, ``extra_pieces``), the entities and whether each was missed are
:func:`~tokstudy.analysis.model_errors.correlation.entity_spans`'s, and r, its p-value, Spearman's rho and
the sentence-bootstrap CI are :func:`~tokstudy.analysis.model_errors.correlation.correlation`'s. Pearson r is
shift-invariant, so at the word level ``n_pieces`` and ``extra_pieces`` give the same r (they differ only
through words of 0 pieces); at the entity level they differ, since an entity of k words has k pieces more.

>>> # from tokstudy.analysis.table import tokenizer_columns
>>> # from tokstudy.tokenization import load_tokenizer
>>> # dropped = tokenizer_columns(table, load_tokenizer("sp8k.model", count_lone_boundary=False))
>>> # res = correlation_protocols(table, aligned, "sp8k", dropped=dropped)
>>> # res.nearest().protocol.describe()     # the protocol whose r is nearest the paper's 0.44
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tokstudy.analysis.model_errors.aligned_predictions import AlignedPredictions
from tokstudy.analysis.model_errors.correlation import Correlation, EntitySpans, _measure, correlation, entity_spans
from tokstudy.analysis.stats import BootstrapSettings
from tokstudy.analysis.table import SegmentationTable, TokenizerColumns

#: the mALBERT paper's Pearson r between a word's segmentation and its label errors (CoNLL-2003).
PAPER_R = 0.44
UNITS = ("words", "ne_words", "entities")
PROTOCOL_MEASURES = ("n_pieces", "extra_pieces")
ERRORS = ("label", "entity")
BOUNDARIES = ("counted", "dropped")

_UNIT_TEXT = {"words": "all words", "ne_words": "NE words", "entities": "entities"}
_MEASURE_TEXT = {"n_pieces": "pieces", "extra_pieces": "pieces − 1"}
_ERROR_TEXT = {"label": "label wrong", "entity": "entity missed"}
_BOUNDARY_TEXT = {"counted": "lone ▁ counted", "dropped": "lone ▁ dropped"}


@dataclass(frozen=True)
class Protocol:
    """One way of computing r (see the module docstring for each value).

    Attributes:
        unit: ``"words"``, ``"ne_words"`` or ``"entities"``: what one (x, y) pair is.
        measure: ``"n_pieces"`` or ``"extra_pieces"``: x.
        error: ``"label"`` (tag wrong) or ``"entity"`` (entity missed, seqeval-style): y.
        boundary: ``"counted"`` or ``"dropped"``: whether a lone ``▁`` piece counts in x.

    >>> Protocol("ne_words", "extra_pieces", "entity", "dropped").describe()
    'NE words, pieces − 1, entity missed, lone ▁ dropped'
    """

    unit: str
    measure: str
    error: str
    boundary: str

    def __post_init__(self) -> None:
        for field, value, allowed in (
            ("unit", self.unit, UNITS),
            ("measure", self.measure, PROTOCOL_MEASURES),
            ("error", self.error, ERRORS),
            ("boundary", self.boundary, BOUNDARIES),
        ):
            if value not in allowed:
                raise ValueError(f"protocol {field} {value!r} is not one of {allowed}")

    def describe(self) -> str:
        """The protocol in words, as the tables write it."""
        return ", ".join(
            (
                _UNIT_TEXT[self.unit],
                _MEASURE_TEXT[self.measure],
                _ERROR_TEXT[self.error],
                _BOUNDARY_TEXT[self.boundary],
            )
        )


#: every protocol, units first (3 x 2 x 2 x 2 = 24).
ALL_PROTOCOLS = tuple(Protocol(*p) for p in itertools.product(UNITS, PROTOCOL_MEASURES, ERRORS, BOUNDARIES))


@dataclass(frozen=True)
class Outcomes:
    """What the model got wrong, per aligned word and per gold entity: the y of every protocol, found once
    for one predictions file (the same for every tokenizer).

    Attributes:
        gold: the gold entities, with ``missed`` (:func:`~.correlation.entity_spans`).
        predicted: the predicted entities; their ``missed`` is True where the gold spans do not hold them
            (spurious).
        label_wrong: per aligned word, predicted tag != gold tag.
        entity_wrong: per aligned word, inside a missed gold entity or a spurious predicted one.
        entity_label_wrong: per gold entity, any of its words' tag is wrong.
        sentence: per aligned word, its sentence (the bootstrap's unit).
        ne: per aligned word, inside a gold entity.
    """

    gold: EntitySpans
    predicted: EntitySpans
    label_wrong: np.ndarray
    entity_wrong: np.ndarray
    entity_label_wrong: np.ndarray
    sentence: np.ndarray
    ne: np.ndarray


def outcomes(table: SegmentationTable, aligned: AlignedPredictions) -> Outcomes:
    """The errors of ``aligned`` under both notions, per word and per gold entity.

    Predicted entities come from :func:`~.correlation.entity_spans` with gold and predicted tags swapped: an
    entity of the predictions that the gold tags do not hold exactly is "missed" from that side, i.e. spurious.
    """
    gold = entity_spans(table, aligned)
    predicted = entity_spans(table, dataclasses.replace(aligned, gold=aligned.pred, pred=aligned.gold))
    n = len(aligned.rows)
    entity_wrong = _covered(gold.first, gold.last, gold.missed, n) | _covered(
        predicted.first, predicted.last, predicted.missed, n
    )
    label_wrong = np.asarray(aligned.error, dtype=bool)
    return Outcomes(
        gold=gold,
        predicted=predicted,
        label_wrong=label_wrong,
        entity_wrong=entity_wrong,
        entity_label_wrong=span_reduce(label_wrong.astype(np.int64), gold.first, gold.last, np.maximum) > 0,
        sentence=table.sentence[aligned.rows],
        ne=table.inside[aligned.rows],
    )


def _covered(first: np.ndarray, last: np.ndarray, flag: np.ndarray, n: int) -> np.ndarray:
    """``bool[n]``: True on the positions of every span ``[first, last)`` whose ``flag`` is set."""
    delta = np.zeros(n + 1, dtype=np.int64)
    np.add.at(delta, first[flag], 1)
    np.add.at(delta, last[flag], -1)
    return np.cumsum(delta[:n]) > 0


def span_reduce(values: np.ndarray, first: np.ndarray, last: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """``ufunc`` over ``values[first[i]:last[i]]`` for every (non-empty) span ``i``, in one pass.

    >>> span_reduce(np.array([1, 2, 3, 4]), np.array([0, 2]), np.array([2, 4]), np.add).tolist()
    [3, 7]
    """
    if not len(first):
        return np.zeros(0, dtype=values.dtype)
    # reduce over [first, last) and skip the gaps between spans; ``last`` may be len(values)
    edges = np.stack([first, last]).T.ravel()
    return ufunc.reduceat(np.append(values, 0), edges)[0::2]


def protocol_vectors(
    outcomes: Outcomes, n_pieces: np.ndarray, protocol: Protocol
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, y, group)`` of ``protocol``: ``group`` is each pair's sentence (the bootstrap resamples sentences).

    ``n_pieces`` is the pieces of each aligned word under the protocol's boundary counting (the caller
    picks the column); ``protocol.boundary`` is not read here.
    """
    x_word = _measure(np.asarray(n_pieces), protocol.measure)
    if protocol.unit == "entities":
        gold = outcomes.gold
        x = span_reduce(x_word, gold.first, gold.last, np.add)
        y = gold.missed if protocol.error == "entity" else outcomes.entity_label_wrong
        return x, y.astype(np.float64), gold.sentence
    y = (outcomes.entity_wrong if protocol.error == "entity" else outcomes.label_wrong).astype(np.float64)
    keep = outcomes.ne if protocol.unit == "ne_words" else slice(None)
    return x_word[keep], y[keep], outcomes.sentence[keep]


@dataclass(frozen=True)
class ProtocolCorrelation:
    """r under one protocol: the protocol and :func:`~.correlation.correlation`'s result."""

    protocol: Protocol
    correlation: Correlation


@dataclass(frozen=True)
class ProtocolCorrelations:
    """r under every protocol, for one tokenizer and one model's predictions.

    Attributes:
        tokenizer: the tokenizer (its column counting a lone ``▁``).
        model: the model name of the predictions.
        dataset: the dataset label the predictions were aligned to.
        subset: ``""``, or the part of the split the predictions cover (stated wherever shown).
        results: one per protocol, in the order asked.
        counted_policy: the boundary policy of the counted column, in words.
        dropped_policy: that of the dropped column (``""`` when none was given: no ``dropped`` protocol).
        bootstrap: the bootstrap settings of the CIs.
    """

    tokenizer: str
    model: str
    dataset: str
    subset: str
    results: tuple[ProtocolCorrelation, ...]
    counted_policy: str
    dropped_policy: str
    bootstrap: BootstrapSettings

    def get(self, protocol: Protocol) -> Correlation:
        """The correlation under ``protocol``; ``KeyError`` when it was not computed."""
        for res in self.results:
            if res.protocol == protocol:
                return res.correlation
        raise KeyError(f"protocol {protocol.describe()!r} was not computed for {self.tokenizer} / {self.model}")

    def nearest(self, target: float = PAPER_R) -> ProtocolCorrelation | None:
        """The protocol whose r is nearest ``target`` (``None`` when no r is defined)."""
        defined = [res for res in self.results if np.isfinite(res.correlation.r)]
        return min(defined, key=lambda res: abs(res.correlation.r - target), default=None)


def correlation_protocols(
    table: SegmentationTable,
    aligned: AlignedPredictions,
    tokenizer: str | None = None,
    *,
    dropped: TokenizerColumns | None = None,
    protocols: Sequence[Protocol] = ALL_PROTOCOLS,
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> ProtocolCorrelations:
    """Pearson r (with p, Spearman and the sentence-bootstrap CI) of ``aligned`` under each protocol.

    ``tokenizer`` names the table's column that counts a lone ``▁`` (the default segmentation);
    ``dropped`` is the same tokenizer's columns without it (:func:`~tokstudy.analysis.table.tokenizer_columns`
    of a segmenter loaded with ``count_lone_boundary=False``). Without ``dropped`` the ``dropped`` protocols
    are left out. Raises ``ValueError`` when ``dropped`` does not fit the table or counts more pieces than
    the counted column somewhere (it would not be the same tokenizer without the lone boundary).
    """
    counted = table.column(tokenizer)
    pieces = {"counted": counted.n_pieces[aligned.rows]}
    if dropped is not None:
        _check_dropped(counted, dropped)
        pieces["dropped"] = dropped.n_pieces[aligned.rows]
    found = outcomes(table, aligned)
    results = []
    for protocol in protocols:
        if protocol.boundary not in pieces:
            continue
        x, y, group = protocol_vectors(found, pieces[protocol.boundary], protocol)
        results.append(ProtocolCorrelation(protocol, correlation(x, y, group, bootstrap)))
    return ProtocolCorrelations(
        tokenizer=counted.name,
        model=aligned.model,
        dataset=aligned.dataset,
        subset=aligned.subset,
        results=tuple(results),
        counted_policy=counted.boundary_policy,
        dropped_policy=dropped.boundary_policy if dropped is not None else "",
        bootstrap=bootstrap,
    )


def _check_dropped(counted: TokenizerColumns, dropped: TokenizerColumns) -> None:
    """Refuse a ``dropped`` column that is not ``counted``'s tokenizer without the lone boundary."""
    if len(dropped.n_pieces) != len(counted.n_pieces):
        raise ValueError(
            f"the dropped column {dropped.name!r} has {len(dropped.n_pieces)} rows but the table has "
            f"{len(counted.n_pieces)}: segment the same table's words (tokenizer_columns(table, segmenter))"
        )
    more = np.flatnonzero(dropped.n_pieces > counted.n_pieces)
    if len(more):
        row = int(more[0])
        raise ValueError(
            f"the dropped column {dropped.name!r} counts more pieces than {counted.name!r} at {len(more)} rows "
            f"(row {row}: {int(dropped.n_pieces[row])} > {int(counted.n_pieces[row])}); it must be the same "
            "tokenizer loaded with count_lone_boundary=False"
        )


def protocol_distances(
    results: Sequence[ProtocolCorrelations], target: float = PAPER_R
) -> list[tuple[Protocol, float]]:
    """Every protocol with r defined for every model, and its mean ``|r - target|`` over the models, nearest first.

    >>> protocol_distances([])
    []
    """
    distances: dict[Protocol, list[float]] = {}
    for res in results:
        for one in res.results:
            distances.setdefault(one.protocol, []).append(abs(one.correlation.r - target))
    means = [(p, float(np.mean(d))) for p, d in distances.items() if len(d) == len(results) and np.all(np.isfinite(d))]
    return sorted(means, key=lambda pd: pd[1])


def nearest_protocol(
    results: Sequence[ProtocolCorrelations], target: float = PAPER_R
) -> tuple[tuple[Protocol, ...], float] | None:
    """The protocols nearest ``target`` over several models (:func:`protocol_distances`' first), and their
    distance. Several protocols when they tie (at the word level ``n_pieces`` and ``extra_pieces`` give the
    same r); ``None`` when no protocol has r defined for every model.

    >>> nearest_protocol([]) is None
    True
    """
    ranked = protocol_distances(results, target)
    if not ranked:
        return None
    best = ranked[0][1]
    return tuple(p for p, d in ranked if np.isclose(d, best, rtol=0, atol=1e-12)), best
