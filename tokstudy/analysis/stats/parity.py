"""Tokenizer parity on parallel text: how many more pieces a language needs for the same content.

On paragraph-aligned text (``xquad_parallel``: paragraph *i* of every language
translates English paragraph *i*), parity of language L = total pieces of L's
paragraphs / total pieces of the reference language's (English) paragraphs. 1.0 is
parity; 2.0 means twice as many pieces for the same content. The CI resamples
paragraphs (paired: the same paragraphs in both languages).

Paragraphs are split on whitespace and each word segmented on its own, as the
segmentation table does; for scripts written without spaces (zh, th) a "word" is a
whole clause, so their *fertility* (pieces per whitespace word) is not comparable,
but their parity is.

The **Gini coefficient** of the per-language parities (TokEval's summary of how unequally a
tokenizer treats languages; the reference language's parity, 1.0, is one of the values) is
``sum_i sum_j |x_i - x_j| / (2 n^2 mean(x))``: 0 when every language costs the same, towards 1
when one language takes all the pieces. Its CI comes from the same paragraph resamples.

>>> # res = parity({"en": [...], "de": [...]}, [tokenizer])[0]
>>> # res.languages["de"].parity.value, res.gini.value
>>> round(gini_coefficient([1.0, 1.0, 2.0]), 4)
0.1667
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from tokstudy.analysis.stats.bootstrap import bootstrap_ratios, bootstrap_totals, percentile_interval
from tokstudy.analysis.stats.estimates import BootstrapSettings, Estimate
from tokstudy.analysis.table.factorize import factorize
from tokstudy.data.rawtext import read_parallel
from tokstudy.errors import AlignmentError
from tokstudy.tokenization.base import Segmenter


@dataclass(frozen=True)
class LanguageParity:
    """One language under one tokenizer.

    Attributes:
        parity: pieces relative to the reference language (1.0 = the same), with CI.
        fertility: pieces per whitespace word, with CI.
        n_pieces: total pieces.
        n_words: total whitespace words.
        n_paragraphs: paragraphs.
    """

    parity: Estimate
    fertility: Estimate
    n_pieces: int
    n_words: int
    n_paragraphs: int


@dataclass(frozen=True)
class ParityResult:
    """Parity of every language under one tokenizer."""

    tokenizer: str
    reference: str
    languages: dict[str, LanguageParity]
    boundary_policy: str
    bootstrap: BootstrapSettings
    gini: Estimate | None = None
    """Gini coefficient of the languages' parities, with CI (see the module docstring)."""


def gini_coefficient(values, axis: int = -1):
    """Gini coefficient ``sum_i sum_j |x_i - x_j| / (2 n^2 mean(x))`` along ``axis`` (sorted-rank form)."""
    x = np.sort(np.asarray(values, dtype=np.float64), axis=axis)
    n = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = n
    rank = np.arange(1, n + 1, dtype=np.float64).reshape(shape)
    total = x.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = (2 * (rank * x).sum(axis=axis) / (n * total)) - (n + 1) / n
    return float(g) if np.ndim(g) == 0 else g


def read_parallel_text(directory: str | os.PathLike, languages: Iterable[str] | None = None) -> dict[str, list[str]]:
    """``{lang: paragraphs}`` from a parallel-text folder (uses ``tokstudy.data.rawtext``)."""
    return read_parallel(directory, languages)


def parity(
    paragraphs: Mapping[str, Sequence[str]],
    segmenters: Segmenter | Iterable[Segmenter],
    *,
    reference: str = "en",
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> list[ParityResult]:
    """Parity and fertility per language, for each segmenter (one vectorised call each)."""
    if isinstance(segmenters, Segmenter):
        segmenters = [segmenters]
    langs = list(paragraphs)
    if reference not in paragraphs:
        raise AlignmentError(f"reference language {reference!r} not among the parallel texts {langs}")
    n_par = len(paragraphs[reference])
    for lang in langs:
        if len(paragraphs[lang]) != n_par:
            raise AlignmentError(
                f"{lang} has {len(paragraphs[lang])} paragraphs but {reference} has {n_par}; not parallel"
            )
    if n_par == 0:
        raise AlignmentError("no paragraphs to compare")
    words: list[str] = []
    para: list[int] = []  # paragraph index * n_langs + language index
    for li, lang in enumerate(langs):
        for pi, text in enumerate(paragraphs[lang]):
            ws = text.split()
            words.extend(ws)
            para.extend([pi * len(langs) + li] * len(ws))
    key = np.asarray(para, dtype=np.int64)
    wtype, types = factorize(words)
    n_words = np.bincount(key, minlength=n_par * len(langs)).reshape(n_par, len(langs)).astype(np.float64)
    out = []
    ref = langs.index(reference)
    for seg in segmenters:
        counts = seg.segment(types).counts[wtype]
        pieces = np.bincount(key, weights=counts, minlength=n_par * len(langs)).reshape(n_par, len(langs))
        par = bootstrap_ratios(pieces, np.repeat(pieces[:, [ref]], len(langs), axis=1), bootstrap=bootstrap)
        fert = bootstrap_ratios(pieces, n_words, bootstrap=bootstrap)
        g = gini_coefficient(par.point)
        g_low = g_high = float("nan")
        if bootstrap.n_resamples:
            # same resamples as the parities
            boot = bootstrap_totals(pieces, n_resamples=bootstrap.n_resamples, seed=bootstrap.seed)
            with np.errstate(invalid="ignore", divide="ignore"):
                gs = gini_coefficient(boot / boot[:, [ref]], axis=1)
            lo, hi = percentile_interval(gs[:, None], bootstrap.confidence)
            g_low, g_high = float(lo[0]), float(hi[0])
        res = {}
        for li, lang in enumerate(langs):
            res[lang] = LanguageParity(
                parity=Estimate(
                    float(par.point[li]), float(par.low[li]), float(par.high[li]), int(n_words[:, li].sum()), n_par
                ),
                fertility=Estimate(
                    float(fert.point[li]), float(fert.low[li]), float(fert.high[li]), int(n_words[:, li].sum()), n_par
                ),
                n_pieces=int(pieces[:, li].sum()),
                n_words=int(n_words[:, li].sum()),
                n_paragraphs=n_par,
            )
        gini = Estimate(g, g_low, g_high, int(n_words.sum()), n_par)
        out.append(ParityResult(seg.name, reference, res, seg.describe_boundary_policy(), bootstrap, gini))
    return out
