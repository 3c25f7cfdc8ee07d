"""Pieces that disagree and the word label under each aggregation, against independent references: a brute-force
recount of disagreement, seqeval's entity scores, scipy's Pearson r, hand-built words with known answers."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import pearsonr
from seqeval.metrics import f1_score, precision_score, recall_score

from tokstudy.analysis.model_errors.piece_agreement import (
    AGGREGATIONS,
    aggregate,
    entity_f1,
    piece_agreement,
    word_tags,
)
from tokstudy.analysis.model_errors.piece_predictions import (
    PiecePredictions,
    PieceSentence,
    PredictedWord,
    read_piece_predictions,
    write_piece_predictions,
)
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.errors import DataFormatError

LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")


def _random_predictions(seed: int, n_sentences: int = 60) -> PiecePredictions:
    rng = np.random.default_rng(seed)
    sentences = []
    for s in range(n_sentences):
        words = []
        for w in range(int(rng.integers(1, 9))):
            n = int(rng.choice([1, 1, 2, 2, 3, 4, 5, 7]))
            kept = n if rng.random() > 0.05 else max(1, n - 1)  # a few words cut by a window
            probs = rng.dirichlet(np.full(len(LABELS), 0.3), size=kept)
            gold = LABELS[int(rng.choice(len(LABELS), p=[0.6, 0.1, 0.1, 0.1, 0.1]))]
            words.append(PredictedWord(f"w{s}_{w}", gold, n, tuple(f"p{j}" for j in range(kept)), probs))
        sentences.append(PieceSentence(s, tuple(words)))
    return PiecePredictions(LABELS, tuple(sentences), {"model": "m"})


def _reference_label(probs: np.ndarray, method: str) -> int:
    """The aggregations as their definitions read, written without the module's code."""
    best = [int(np.argmax(r)) for r in probs]
    if method == "first":
        return best[0]
    if method == "average":
        return int(np.argmax(probs.sum(axis=0)))
    if method == "max":
        return int(np.unravel_index(np.argmax(probs), probs.shape)[1])
    counts = Counter(best)
    return min(counts, key=lambda k: (-counts[k], best.index(k)))


def test_aggregations_on_hand_built_words_and_the_majority_tie_rule():
    probs = np.array([[0.6, 0.4, 0.0], [0.1, 0.0, 0.9], [0.1, 0.0, 0.9]])
    assert [aggregate(probs, m) for m in AGGREGATIONS] == [0, 2, 2, 2]
    tie = np.array([[0.1, 0.9, 0.0], [0.8, 0.2, 0.0]])  # one piece each: the first piece's label wins
    assert aggregate(tie, "majority") == 1
    tie_without_first = np.array([[0.0, 0.0, 1.0], [0.9, 0.1, 0.0], [0.1, 0.9, 0.0], [0.9, 0.1, 0.0], [0.2, 0.8, 0]])
    # labels 2, 0, 1, 0, 1: 0 and 1 tie at two pieces; 0 comes first in the word
    assert aggregate(tie_without_first, "majority") == 0
    assert aggregate(np.array([[0.5, 0.5]]), "average") == 0  # ties inside a distribution: the lower label id
    with pytest.raises(ValueError, match="unknown aggregation"):
        aggregate(probs, "mean")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_disagreement_and_error_rates_against_a_recount(seed):
    preds = _random_predictions(seed)
    res = piece_agreement(preds, bootstrap=BootstrapSettings(0))
    words = [w for s in preds.sentences for w in s.words]
    multi = [w for w in words if len(w.pieces) >= 2]
    disagree = [w for w in multi if len({int(np.argmax(r)) for r in w.probs}) > 1]
    assert (res.n_words, res.n_multi, res.n_disagree) == (len(words), len(multi), len(disagree))
    assert res.share_disagree == pytest.approx(len(disagree) / len(multi))
    for bins, keep in ((res.by_pieces, lambda w: True), (res.by_pieces_ne, lambda w: w.gold != "O")):
        for b in bins:
            in_bin = [
                w
                for w in multi
                if keep(w) and (str(len(w.pieces)) == b.pieces or (b.pieces == "5+" and len(w.pieces) >= 5))
            ]
            assert b.n_words == len(in_bin)
            assert b.n_disagree == sum(w in disagree for w in in_bin)
    other = sum(b.n_words for b in res.by_pieces_other) + sum(b.n_words for b in res.by_pieces_ne)
    assert other == len(multi)
    assert res.n_truncated == sum(len(w.pieces) < w.n_pieces for w in words)
    for method in AGGREGATIONS:
        labels = [LABELS[_reference_label(w.probs, method)] for w in words]
        errors = [lab != w.gold for lab, w in zip(labels, words)]
        agree_errors = sum(e for e, w in zip(errors, words) if w not in disagree)
        assert res.n_agree_errors == agree_errors  # the same under every aggregation
        assert res.score(method).n_errors == sum(errors)
        assert res.disagree_error_rate(method) == pytest.approx(
            sum(e for e, w in zip(errors, words) if w in disagree) / len(disagree)
        )


@pytest.mark.parametrize("seed", [3, 4])
def test_entity_scores_per_aggregation_against_seqeval(seed):
    preds = _random_predictions(seed)
    res = piece_agreement(preds, bootstrap=BootstrapSettings(0))
    gold = [[w.gold for w in s.words] for s in preds.sentences]
    for method in AGGREGATIONS:
        pred = word_tags(preds, method)
        assert pred == [[LABELS[_reference_label(w.probs, method)] for w in s.words] for s in preds.sentences]
        ent = res.score(method).entities
        assert ent.f1 == pytest.approx(f1_score(gold, pred))
        assert ent.precision == pytest.approx(precision_score(gold, pred))
        assert ent.recall == pytest.approx(recall_score(gold, pred))


def test_entity_f1_against_seqeval_on_random_sequences_with_ill_formed_chunks():
    rng = np.random.default_rng(7)
    tags = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG"]
    for _ in range(200):
        n = int(rng.integers(1, 12))
        gold = [[tags[k] for k in rng.integers(0, len(tags), size=n)]]
        pred = [[tags[k] for k in rng.integers(0, len(tags), size=n)]]
        assert entity_f1(gold, pred).f1 == pytest.approx(f1_score(gold, pred))


def test_word_level_r_against_scipy():
    preds = _random_predictions(5, n_sentences=80)
    res = piece_agreement(preds, bootstrap=BootstrapSettings(50))
    words = [w for s in preds.sentences for w in s.words]
    x = np.array([w.n_pieces for w in words], float)
    ne = np.array([w.gold != "O" for w in words])
    for method in AGGREGATIONS:
        y = np.array([LABELS[_reference_label(w.probs, method)] != w.gold for w in words], float)
        r, p = pearsonr(x, y)
        score = res.score(method)
        assert score.r.r == pytest.approx(r) and score.r.p_value == pytest.approx(p)
        assert score.r_ne.r == pytest.approx(pearsonr(x[ne], y[ne])[0])
        assert score.r.low <= score.r.r <= score.r.high


def test_the_file_round_trips(tmp_path):
    preds = _random_predictions(6, n_sentences=10)
    path = write_piece_predictions(tmp_path / "p.tsv", LABELS, preds.sentences, metadata={"model": "m x"})
    back = read_piece_predictions(path)
    assert back.metadata == {"model": "m x"} and back.labels == LABELS
    for a, b in zip(preds.sentences, back.sentences):
        assert a.sent_id == b.sent_id
        for wa, wb in zip(a.words, b.words):
            assert (wa.word, wa.gold, wa.n_pieces, wa.pieces, wa.best) == (
                wb.word,
                wb.gold,
                wb.n_pieces,
                wb.pieces,
                wb.best,
            )
            assert np.allclose(wa.probs, wb.probs, atol=1e-6)


def _corrupt(tmp_path, old: str, new: str):
    preds = _random_predictions(8, n_sentences=3)
    path = write_piece_predictions(tmp_path / "p.tsv", LABELS, preds.sentences)
    lines = path.read_text(encoding="utf-8").splitlines()
    k = next(i for i, line in enumerate(lines) if old in line and not line.startswith("#") and i > 3)
    lines[k] = lines[k].replace(old, new, 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, k + 1


@pytest.mark.parametrize(
    "old, new, message",
    [("\tp0\t", "\tp0\textra\t", "columns"), ("\t0\t", "\tzero\t", "not a piece line")],
)
def test_a_bad_line_names_the_file_and_line(tmp_path, old, new, message):
    path, line = _corrupt(tmp_path, old, new)
    with pytest.raises(DataFormatError, match=message) as info:
        read_piece_predictions(path)
    assert f"{path}:{line}" in str(info.value)


def test_probabilities_that_do_not_sum_to_one_and_an_empty_file_are_refused(tmp_path):
    preds = _random_predictions(9, n_sentences=2)
    path = write_piece_predictions(tmp_path / "p.tsv", LABELS, preds.sentences)
    lines = path.read_text(encoding="utf-8").splitlines()
    fields = lines[4].split("\t")
    fields[-1] = " ".join(["0.5"] * len(LABELS))
    lines[4] = "\t".join(fields)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"sum to 2\.5") as info:
        read_piece_predictions(path)
    assert f"{path}:5" in str(info.value)
    empty = tmp_path / "empty.tsv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(DataFormatError, match="empty"):
        read_piece_predictions(empty)
