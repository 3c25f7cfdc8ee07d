"""Adapters for the Languages page: Table 4 per language of the loaded datasets, with a study's F1; parity and
fertility on parallel text, continued words per language.

**Languages of the datasets.** :func:`dataset_languages` lists every loaded dataset's language and script
(from the sources alone, nothing is read); :func:`language_sets` offers each corpus of several languages as
``NAME:*:SPLIT``, as the command line's wildcard does; :func:`language_frame` is
:func:`tokstudy.analysis.stats.per_language.language_table` as the rows of
:func:`tokstudy.report.per_language.language_rows` (what ``tokstudy stats --languages-csv`` writes), and
:func:`with_f1` adds each language's F1 from a study's ``tables/scores.json`` (:func:`study_f1`).

**Parallel text.**

Parity and fertility come from :func:`tokstudy.analysis.stats.parity.parity`; the share of
continued words from :func:`tokstudy.analysis.stats.segmentation_summary` over a table
of each language's paragraphs (unlabelled sentences split on whitespace, as ``parity``
splits them), so both views count the same words.

Both ask their tokenizers to segment the same words, so the parallel text is segmented once:
:func:`presegment` segments every distinct word of the selected languages with each tokenizer
(one call per tokenizer) and gives back :class:`Presegmented` tokenizers that answer ``segment``
from that result. Both only count pieces, so a tokenizer that can segment without reading the
text of its unknown pieces (``segment_ids``: SentencePiece) does so, in one encode call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from itertools import repeat
from pathlib import Path

import numpy as np
import pandas as pd

from tokstudy.analysis.stats import BootstrapSettings, segmentation_summary
from tokstudy.analysis.stats.parity import parity, read_parallel_text
from tokstudy.analysis.stats.per_language import language_labels, language_table
from tokstudy.analysis.table import build_word_columns, tokenizer_columns
from tokstudy.data.registry import dataset_info, list_datasets
from tokstudy.data.scripts import language_script
from tokstudy.data.types import Dataset, Sentence
from tokstudy.report.per_language import language_rows
from tokstudy.tokenization.base import Segmentation, Segmenter


class Presegmented(Segmenter):
    """A tokenizer whose segmentation of a fixed set of words is already computed.

    ``segment(words)`` looks each word up (a ``KeyError`` for a word outside the set) and returns
    what the tokenizer's counting segmentation (:func:`counting_segmentation`) gave for it: the
    offsets, ``unk`` flags and ids of its ``segment``, an unknown piece left as the unknown token
    rather than the text it covers; name, kind, vocabulary size and boundary policy are the tokenizer's.
    ``index`` (word -> position in ``words``) may be shared by several tokenizers of the same words.
    """

    def __init__(self, seg: Segmenter, words: Sequence[str], result: Segmentation, index: dict | None = None):
        self.name, self.kind, self.vocab_size = seg.name, getattr(seg, "kind", "unknown"), seg.vocab_size
        self.count_lone_boundary, self.context = seg.count_lone_boundary, seg.context
        # a dict: looking up a few hundred thousand words is several times faster than a pandas Index
        # of (Arrow) strings, which also has to be built first
        self._index = index if index is not None else {w: i for i, w in enumerate(words)}
        self._pieces = np.empty(len(result.pieces), dtype=object)
        self._pieces[:] = result.pieces
        self._result = result

    def segment(self, words: Sequence[str]) -> Segmentation:
        res = self._result
        idx = np.fromiter(map(self._index.get, words, repeat(-1)), dtype=np.int64, count=len(words))
        if len(idx) and idx.min() < 0:
            raise KeyError(f"{self.name}: {words[int(np.argmin(idx))]!r} is not among the presegmented words")
        counts = np.diff(res.offsets)[idx]
        offsets = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        # position of every piece of the chosen words in the full result
        pos = np.repeat(res.offsets[idx] - offsets[:-1], counts) + np.arange(offsets[-1], dtype=np.int64)
        pieces = self._pieces[pos].tolist()
        ids = None if res.ids is None else np.asarray(res.ids)[pos]
        return Segmentation(pieces, offsets, np.asarray(res.unk)[pos], ids)


def counting_segmentation(seg: Segmenter, words: Sequence[str]) -> Segmentation:
    """``seg.segment_ids(words)`` where the tokenizer has it (the pieces without the text of unknown
    ones, one encode call), else ``seg.segment(words)``; either way the counts, ``unk`` flags and ids
    of ``seg.segment(words)``."""
    return getattr(seg, "segment_ids", seg.segment)(words)


def distinct_words(paragraphs: Mapping[str, Sequence[str]]) -> tuple[list[str], dict[str, int]]:
    """Every whitespace word of ``paragraphs`` once (first appearance first), and word -> position."""
    words = list(dict.fromkeys(w for paras in paragraphs.values() for p in paras for w in p.split()))
    return words, {w: i for i, w in enumerate(words)}


def presegment(
    paragraphs: Mapping[str, Sequence[str]], segmenters: Sequence, *, words: tuple | None = None
) -> list[Presegmented]:
    """Each tokenizer's segmentation of every whitespace word of ``paragraphs``, computed once.

    ``words``: :func:`distinct_words` of ``paragraphs`` when already computed (shared by every tokenizer).
    """
    words, index = words if words is not None else distinct_words(paragraphs)
    return [Presegmented(seg, words, counting_segmentation(seg, words), index) for seg in segmenters]


def read_parallel(directory: str, languages: Sequence[str] | None = None) -> dict[str, list[str]]:
    return read_parallel_text(directory, languages)


def parity_frame(
    paragraphs: Mapping[str, Sequence[str]],
    segmenters: Sequence,
    *,
    reference: str = "en",
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per tokenizer x language: parity and fertility with CIs."""
    rows = []
    for res in parity(
        paragraphs, list(segmenters), reference=reference, bootstrap=BootstrapSettings(n_resamples, seed=seed)
    ):
        for lang, lp in res.languages.items():
            rows.append(
                {
                    "tokenizer": res.tokenizer,
                    "language": lang,
                    "parity": lp.parity.value,
                    "parity_low": lp.parity.low,
                    "parity_high": lp.parity.high,
                    "fertility": lp.fertility.value,
                    "fertility_low": lp.fertility.low,
                    "fertility_high": lp.fertility.high,
                    "pieces": lp.n_pieces,
                    "words": lp.n_words,
                    "paragraphs": lp.n_paragraphs,
                }
            )
    return pd.DataFrame(rows)


def continued_frame(
    paragraphs: Mapping[str, Sequence[str]], segmenters: Sequence, *, n_resamples: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per tokenizer x language: % of whitespace words split into >= 2 pieces, with CI."""
    rows = []
    for lang, paras in paragraphs.items():
        sents = tuple(Sentence(tuple(p.split()), None, sent_id=i) for i, p in enumerate(paras) if p.split())
        # segmentation_table's own steps, less its unknown-piece report (a third of the time on
        # text a tokenizer does not cover, e.g. Arabic under an English vocabulary; nothing here shows it)
        words = build_word_columns([Dataset(sents, name=f"parallel-{lang}", language=lang, split="all")])
        table = words.with_tokenizers({seg.name: tokenizer_columns(words, seg) for seg in segmenters})
        for seg in segmenters:
            s = segmentation_summary(table, seg.name, bootstrap=BootstrapSettings(n_resamples, seed=seed)).all
            rows.append(
                {
                    "tokenizer": seg.name,
                    "language": lang,
                    "continued": s.continued.value,
                    "continued_low": s.continued.low,
                    "continued_high": s.continued.high,
                }
            )
    return pd.DataFrame(rows)


# ---- languages of the loaded datasets: Table 4 per language, a study's F1 ----

#: the figures of :func:`language_frame` named by their interval's prefix (``ne`` .. ``ne_low``, ``ne_high``)
_FIELDS = {"ne_pct": "ne", "non_ne_pct": "non_ne", "gap_pp": "gap", "unknown_pct": "unknown"}
#: a study's task labels end with the task (``masakhaner2-yor-ner``); NER and slot-filling F1 are per language
_NER = "-ner"


def source_language(src) -> str:
    """A dataset source's language: its own, else its registry corpus's only language, else ``und``."""
    if src.language:
        return src.language
    if src.kind == "registry":
        return dataset_info(src.name).languages[0]
    return "und"


def dataset_languages(sources) -> pd.DataFrame:
    """One row per loaded dataset: ``dataset`` (its key), ``corpus``, ``language``, ``script`` (from its language
    code; ``–`` where the code names none, e.g. a file of language ``und``: the table below reads it from the text),
    ``split``, ``origin`` (registry or file)."""
    rows = []
    for d in sources.datasets:
        lang = source_language(d)
        origin = "registry" if d.kind == "registry" else "file"
        corpus = d.name if d.kind == "registry" else d.table_name
        rows.append(
            {
                "dataset": d.key,
                "corpus": corpus,
                "language": lang,
                "script": language_script(lang) or "–",
                "split": d.split,
                "origin": origin,
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "corpus", "language", "script", "split", "origin"])


def language_sets(sources) -> dict[str, tuple[str, ...]]:
    """What Table 4 per language can be asked for: each registry corpus of several languages as ``NAME:*:SPLIT``
    (the keys of its languages loaded in that split), then every dataset alone, by its key.

    >>> from analysis_app.services.sources import DatasetSource, Sources
    >>> srcs = Sources(datasets=tuple(DatasetSource.registry("wikiann", "test", l) for l in ("de", "ru")))
    >>> language_sets(srcs)["wikiann:*:test"]
    ('wikiann-de:test', 'wikiann-ru:test')
    """
    groups: dict[str, list[str]] = {}
    for d in sources.datasets:
        if d.kind == "registry" and d.language:
            groups.setdefault(f"{d.name}:*:{d.split}", []).append(d.key)
    out = {g: tuple(keys) for g, keys in groups.items()}
    out.update({d.key: (d.key,) for d in sources.datasets})
    return out


def expand_sets(sets: Mapping[str, Sequence[str]], chosen: Sequence[str]) -> tuple[str, ...]:
    """The dataset keys of the ``chosen`` entries of :func:`language_sets`, each once, in order."""
    return tuple(dict.fromkeys(k for c in chosen for k in sets[c]))


def language_frame(table, tokenizers: Sequence[str], *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 4 per (dataset, language) and tokenizer, each tokenizer's rows by gap, largest first: the rows of
    ``tokstudy stats --languages-csv``, the figures named ``ne``, ``non_ne``, ``gap`` (percentage points),
    ``fertility``, ``unknown`` (%) beside their ``*_low`` / ``*_high`` intervals, and ``label``: the language as
    a reader names it (with its dataset where two datasets share it)."""
    res = language_table(table, list(tokenizers), bootstrap=BootstrapSettings(n_resamples, seed=seed))
    frame = pd.DataFrame(language_rows(res)).rename(columns=_FIELDS)
    return frame.assign(label=frame["dataset"].map(language_labels(table)))


def task_dataset(label: str) -> tuple[str, str | None] | None:
    """The ``(registry dataset, language)`` a study's NER task label names (``None`` for another task).

    >>> task_dataset("masakhaner2-yor-ner"), task_dataset("conll2003-ner"), task_dataset("snips-classification")
    (('masakhaner2', 'yor'), ('conll2003', None), None)
    """
    if not label.endswith(_NER):
        return None
    stem = label[: -len(_NER)]
    if stem in list_datasets():
        return stem, None
    name, _, language = stem.rpartition("-")
    return (name, language) if name in list_datasets() else None


def study_f1(results: str | Path | None) -> dict[tuple[str, str, str], float]:
    """``(registry dataset, language, tokenizer) -> F1`` (mean over seeds) of every NER task of the study whose
    results folder is ``results`` (its ``tables/scores.json``); empty without one."""
    path = Path(results) / "tables" / "scores.json" if results else None
    if path is None or not path.is_file():
        return {}
    out = {}
    for label, by_tokenizer in json.loads(path.read_text(encoding="utf-8")).items():
        named = task_dataset(label)
        if named is None:
            continue
        name, language = named
        language = language or dataset_info(name).languages[0]
        for tokenizer, score in by_tokenizer.items():
            if score.get("metric", "F1") == "F1" and score.get("mean") is not None:
                out[(name, language, tokenizer)] = float(score["mean"])
    return out


def with_f1(frame: pd.DataFrame, sources, f1: Mapping[tuple[str, str, str], float]) -> pd.DataFrame:
    """``frame`` (:func:`language_frame`) with ``f1``: the study's F1 of each row's registry dataset, language and
    tokenizer, NaN where the study has none (a file, a language it did not fine-tune on, or no study)."""
    keys = {d.key: d for d in sources.datasets}

    def f1_of(dataset: str, tokenizer: str) -> float:
        src = keys.get(dataset)
        if src is None or src.kind != "registry":
            return math.nan
        return f1.get((src.name, source_language(src), tokenizer), math.nan)

    return frame.assign(f1=[f1_of(d, t) for d, t in zip(frame["dataset"], frame["tokenizer"])])
