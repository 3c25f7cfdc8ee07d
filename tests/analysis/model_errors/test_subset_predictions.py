"""A predictions file that covers a declared subset of its split (``# subset=first:N``, what the
fine-tuner writes under the study's ``max_eval``) aligns to exactly those sentences, and every
figure equals the one computed on a dataset cut to them (the independent reference)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tests.analysis.model_errors.test_correlation import fake_predictions
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.correlation import correlate_errors
from tokstudy.analysis.model_errors.predictions import read_predictions, write_predictions
from tokstudy.analysis.model_errors.predictions_metadata import declared_subset
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table
from tokstudy.errors import AlignmentError

N_SPLIT, N_EVAL = 120, 40


@pytest.fixture(scope="module")
def split():
    ds = random_dataset(5, N_SPLIT)
    sents = fake_predictions(ds, seed=3)
    return ds, sents


def _write(tmp_path, sents, subset, name="p.tsv"):
    meta = {"model": "m", "dataset": "rand", "split": "test"} | ({"subset": subset} if subset else {})
    return read_predictions(write_predictions(tmp_path / name, sents, metadata=meta))


def test_declared_subset_aligns_and_equals_the_cut_dataset(split, tmp_path):
    ds, sents = split
    table = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    preds = _write(tmp_path, sents[:N_EVAL], f"first:{N_EVAL}")
    aligned = align_predictions(table, preds)
    assert aligned.subset == f"first {N_EVAL} of {N_SPLIT} sentences"
    cut = ds.with_meta(sentences=ds.sentences[:N_EVAL])
    ref_table = segmentation_table([cut], [ChunkSegmenter(3)], progress=False)
    ref = align_predictions(ref_table, _write(tmp_path, sents[:N_EVAL], None, "ref.tsv"))
    assert ref.subset == "" and aligned.pred == ref.pred and aligned.gold == ref.gold
    assert len(aligned) == sum(len(s[0]) for s in sents[:N_EVAL])
    got = correlate_errors(table, aligned, "chunk3", bootstrap=BootstrapSettings(50, seed=1))
    want = correlate_errors(ref_table, ref, "chunk3", bootstrap=BootstrapSettings(50, seed=1))
    assert got.n_words == want.n_words and got.n_errors == want.n_errors
    assert got.all.r == pytest.approx(want.all.r) and got.all.p_value == pytest.approx(want.all.p_value)
    assert [b.n_errors for b in got.by_pieces] == [b.n_errors for b in want.by_pieces]
    assert got.entities.n_entities == want.entities.n_entities


def test_subset_as_large_as_the_split_is_the_whole_split(split, tmp_path):
    ds, sents = split
    table = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    assert align_predictions(table, _write(tmp_path, sents, f"first:{N_SPLIT + 10}")).subset == ""


def test_undeclared_or_wrong_subsets_are_refused(split, tmp_path):
    ds, sents = split
    table = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    with pytest.raises(
        AlignmentError, match=f"{N_EVAL} predicted sentences but dataset 'rand:test' has {N_SPLIT}.*subset=first:N"
    ):
        align_predictions(table, _write(tmp_path, sents[:N_EVAL], None))
    with pytest.raises(AlignmentError, match="declares subset=first:10 but holds 40 sentences"):
        align_predictions(table, _write(tmp_path, sents[:N_EVAL], "first:10"))
    with pytest.raises(AlignmentError, match=f"39 predicted sentences but the first {N_EVAL} sentences"):
        align_predictions(table, _write(tmp_path, sents[: N_EVAL - 1], f"first:{N_EVAL}"))
    # not the first N: sentence 40 is outside the declared subset
    shifted = read_predictions(
        write_predictions(
            tmp_path / "s.tsv",
            sents[1 : N_EVAL + 1],
            sent_ids=range(1, N_EVAL + 1),
            metadata={"subset": f"first:{N_EVAL}"},
        )
    )
    with pytest.raises(AlignmentError, match=f"sentence {N_EVAL}: dataset 'rand:test' has no sentence with this id"):
        align_predictions(table, shifted)
    for bad in ("last:5", "first:0", "first:x", "1000"):
        with pytest.raises(AlignmentError, match="is not understood"):
            declared_subset(_write(tmp_path, sents[:N_EVAL], bad))
    assert np.all(align_predictions(table, _write(tmp_path, sents, None)).rows == np.arange(len(table)))


def test_a_refusal_names_the_file_what_it_says_and_the_dataset(split, tmp_path):
    ds, sents = split
    table = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    path = tmp_path / "other.tsv"
    meta = {"model": "m", "dataset": "other", "split": "dev", "language": "xx"}
    other = read_predictions(write_predictions(path, sents[:N_EVAL], metadata=meta))
    with pytest.raises(AlignmentError) as info:
        align_predictions(table, other)
    message = str(info.value)
    assert message.startswith(f"{path} (it says dataset=other split=dev language=xx): {N_EVAL} predicted sentences")
    assert f"dataset 'rand:test' has {N_SPLIT}" in message and "\n" not in message
