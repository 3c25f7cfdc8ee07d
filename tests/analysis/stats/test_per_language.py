"""Table 4 per language (tokstudy.analysis.stats.per_language) against a recount written here, on real languages.

The recount reads the words and tags of MasakhaNER 2.0 Yorùbá test and MultiCoNER Korean dev, asks
SentencePiece itself for each word's pieces (one ``encode`` per word, no tokstudy code), and sums NE and
non-NE words and pieces in plain Python.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from tests.conftest import corpus_path
from tokstudy.analysis.stats import additional_segmentation_by
from tokstudy.analysis.stats.bootstrap import percentile_interval, resample_weights
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.per_language import dataset_scripts, language_coverage, language_table
from tokstudy.analysis.table import segmentation_table
from tokstudy.data.types import Dataset, Sentence
from tokstudy.tokenization.loading import load_tokenizer

SETS = ("masakhaner2:yor:test", "multiconer2022:ko:dev")
#: an English vocabulary covers neither language: what test_the_unknown_piece_warning_names_the_languages needs
pytestmark = pytest.mark.filterwarnings("ignore::tokstudy.analysis.table.coverage.UnknownPiecesWarning")


@pytest.fixture(scope="module")
def two_languages():
    from tokstudy.data.names import load_datasets_named

    corpus_path("masakhaner2"), corpus_path("multiconer2022")
    return [ds for spec in SETS for ds in load_datasets_named(spec)]


@pytest.fixture(scope="module")
def table(two_languages, spm_model):
    return segmentation_table(two_languages, [load_tokenizer(spm_model, name="sp400")], progress=False)


def _recount(dataset: Dataset, model) -> dict:
    """NE / non-NE words and pieces, unknown pieces, and per-sentence sums, straight from SentencePiece."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(model))
    seen: dict[str, list[int]] = {}
    sums = {"ne_p": 0, "ne_w": 0, "o_p": 0, "o_w": 0, "unk": 0, "p": 0, "w": 0}
    per_sentence = []
    for s in dataset:
        row = [0, 0, 0, 0]  # NE pieces, NE words, non-NE pieces, non-NE words
        for word, tag in zip(s.words, s.tags):
            ids = seen.setdefault(word, sp.encode(word))
            n, ne = len(ids), tag != "O"
            sums["ne_p" if ne else "o_p"] += n
            sums["ne_w" if ne else "o_w"] += 1
            row[0 if ne else 2] += n
            row[1 if ne else 3] += 1
            sums["unk"] += sum(i == sp.unk_id() for i in ids)
            sums["p"] += n
            sums["w"] += 1
        per_sentence.append(row)
    return {**sums, "per_sentence": per_sentence}


def test_each_languages_table4_equals_a_recount(table, two_languages, spm_model):
    res = language_table(table, bootstrap=BootstrapSettings(0))
    assert [r.dataset for r in res.rows] == list(table.datasets) and len(res.rows) == 2
    for ds, row in zip(two_languages, res.rows):
        c = _recount(ds, spm_model)
        ne, non_ne = 100 * (c["ne_p"] / c["ne_w"] - 1), 100 * (c["o_p"] / c["o_w"] - 1)
        assert row.language == ds.language
        assert row.ne.value == pytest.approx(ne) and row.ne.n_words == c["ne_w"]
        assert row.non_ne.value == pytest.approx(non_ne) and row.non_ne.n_words == c["o_w"]
        assert row.gap.value == pytest.approx(ne - non_ne)
        assert row.fertility.value == pytest.approx(c["p"] / c["w"]) and row.fertility.n_sentences == len(ds)
        assert row.unknown.value == pytest.approx(100 * c["unk"] / c["p"])
        assert math.isnan(row.gap.low)
    assert [r.script for r in res.rows] == ["Latin", "Hangul"]
    assert res.ranked()[0].gap.value >= res.ranked()[1].gap.value


def test_intervals_are_the_breakdowns_and_the_gaps_a_recount_over_the_same_resamples(table, two_languages, spm_model):
    res = language_table(table, bootstrap=BootstrapSettings(200, seed=3))
    for subset in ("ne", "non_ne"):
        by = additional_segmentation_by(
            table, "sp400", "dataset", subset=subset, bootstrap=BootstrapSettings(200, seed=3)
        )
        for row in res.rows:
            assert getattr(row, subset) == by.groups[row.dataset]
    # the gap per resample from the recount's per-sentence sums, with the weights the batch draws
    sums = np.array([r for ds in two_languages for r in _recount(ds, spm_model)["per_sentence"]], dtype=float)
    weights = np.concatenate(list(resample_weights(table.n_sentences, 200, 3)))
    start = 0
    for ds, row in zip(two_languages, res.rows):
        mine = np.zeros_like(sums)
        mine[start : start + len(ds)] = sums[start : start + len(ds)]
        start += len(ds)
        t = weights.astype(float) @ mine
        low, high = percentile_interval((100 * (t[:, 0] / t[:, 1] - t[:, 2] / t[:, 3]))[:, None], 0.95)
        assert (row.gap.low, row.gap.high) == pytest.approx((low[0], high[0]))
        assert row.gap.low <= row.gap.value <= row.gap.high


def test_the_unknown_piece_warning_names_the_languages(table):
    (cov,) = language_coverage(table)
    named = {s.language: s for s in cov.languages}
    assert "ko" in named and named["ko"].scripts[0] == "Hangul"
    assert cov.n_languages == 2 and cov.kind == "unknown"
    message = cov.message()
    assert "'sp400'" in message and "ko " in message and "Hangul" in message
    assert f"in {len(cov.languages)} of 2 languages" in message


def test_a_language_the_map_does_not_know_takes_its_script_from_its_text():
    sets = [
        Dataset((Sentence(("Москва", "и", "Ленинград"), ("B-LOC", "O", "B-LOC")),), "a", "und", "test"),
        Dataset((Sentence(("ሰላም", "ዓለም"), ("O", "O")),), "b", "xyz", "test"),
        Dataset((Sentence(("1996", "-"), ("O", "O")),), "c", "und", "dev"),
    ]
    from tokstudy.analysis.table import build_word_columns

    assert list(dataset_scripts(build_word_columns(sets)).values()) == ["Cyrillic", "Ge'ez", "unknown"]


@pytest.mark.parametrize("name", ["tokstudy.analysis.stats.per_language", "tokstudy.data.scripts"])
def test_docstring_examples(name):
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted and not result.failed
