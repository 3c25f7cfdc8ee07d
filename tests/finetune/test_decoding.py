"""Viterbi decoding of token labels: against a brute-force search, a hand count of bigrams, and the fine-tuner."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.decoding import DECODINGS, LabelBigrams, label_bigrams, viterbi


def _brute_force(emissions: np.ndarray, b: LabelBigrams) -> list[int]:
    """Every label sequence scored in full; the best (ties: the first in lexicographic order, as Viterbi's)."""
    n, n_labels = emissions.shape
    best, best_score = None, -np.inf
    for seq in itertools.product(range(n_labels), repeat=n):
        score = b.start[seq[0]] + sum(emissions[t, seq[t]] for t in range(n))
        score += sum(b.transition[seq[t - 1], seq[t]] for t in range(1, n))
        if score > best_score + 1e-12:
            best, best_score = list(seq), score
    return best


def _random_bigrams(rng, n_labels: int) -> LabelBigrams:
    start = rng.dirichlet(np.ones(n_labels))
    transition = rng.dirichlet(np.ones(n_labels), size=n_labels)
    return LabelBigrams(np.log(start), np.log(transition))


@pytest.mark.parametrize("n_labels,length", [(2, 1), (3, 4), (4, 5), (5, 3)])
def test_viterbi_finds_the_best_sequence_of_a_brute_force_search(n_labels, length):
    rng = np.random.default_rng(n_labels * 10 + length)
    for _ in range(20):
        b = _random_bigrams(rng, n_labels)
        emissions = np.log(rng.dirichlet(np.ones(n_labels), size=length))
        assert viterbi(emissions, b) == _brute_force(emissions, b)


def test_with_uniform_bigrams_viterbi_is_the_argmax_of_each_word():
    rng = np.random.default_rng(0)
    uniform = LabelBigrams(np.zeros(5), np.zeros((5, 5)))
    for length in (1, 7, 30):
        emissions = np.log(rng.dirichlet(np.ones(5), size=length))
        assert viterbi(emissions, uniform) == emissions.argmax(axis=1).tolist()
    assert viterbi(np.zeros((0, 5)), uniform) == []


def test_label_bigrams_are_the_smoothed_counts():
    seqs = [[0, 1, 2, 0], [0, 0], [1, 2, 2], []]
    b = label_bigrams(seqs, 3, smoothing=0.5)
    starts = Counter(s[0] for s in seqs if s)
    pairs = Counter((a, c) for s in seqs for a, c in zip(s, s[1:]))
    for j in range(3):
        assert np.exp(b.start[j]) == pytest.approx((starts[j] + 0.5) / (sum(starts.values()) + 1.5))
    for i in range(3):
        row = sum(pairs[i, k] for k in range(3)) + 1.5
        for j in range(3):
            assert np.exp(b.transition[i, j]) == pytest.approx((pairs[i, j] + 0.5) / row)
    assert LabelBigrams.from_dict(json.loads(json.dumps(b.to_dict()))).transition.tolist() == b.transition.tolist()
    with pytest.raises(ValueError, match="smoothing"):
        label_bigrams(seqs, 3, smoothing=0)
    with pytest.raises(ValueError, match=r"label ids must be in \[0, 3\)"):
        label_bigrams([[0, 3]], 3)
    with pytest.raises(ValueError, match="do not match"):
        viterbi(np.zeros((2, 4)), b)


def test_the_prior_scale_divides_the_label_prior_out_of_the_emissions():
    """With ``prior_scale`` s, Viterbi on emissions e equals plain Viterbi on e - s * log P(y) (brute force)."""
    rng = np.random.default_rng(7)
    seqs = [rng.integers(0, 4, size=rng.integers(1, 8)).tolist() for _ in range(50)]
    counts = Counter(k for s in seqs for k in s)
    for scale in (0.0, 0.5, 1.0):
        b = label_bigrams(seqs, 4, prior_scale=scale)
        assert np.exp(b.prior) == pytest.approx([(counts[j] + 1) / (sum(counts.values()) + 4) for j in range(4)])
        plain = LabelBigrams(b.start, b.transition)
        for _ in range(10):
            e = np.log(rng.dirichlet(np.ones(4), size=5))
            assert viterbi(e, b) == _brute_force(e - scale * b.prior, plain)
        assert LabelBigrams.from_dict(json.loads(json.dumps(b.to_dict()))).prior_scale == scale
    with pytest.raises(ValueError, match="prior_scale"):
        label_bigrams(seqs, 4, prior_scale=1.5)
    with pytest.raises(ValueError, match="needs the label prior"):
        LabelBigrams(b.start, b.transition, None, 0.5)
    with pytest.raises(ValueError, match="only applies with decode='viterbi'"):
        FinetuneConfig(model="m", task="ner", dataset="conll2003", decode_prior_scale=0.5)


def test_a_name_split_in_two_by_argmax_is_one_entity_after_viterbi():
    """The error seen in the cpu study: the second word of a person's name labelled B-PER again."""
    labels = ["O", "B-PER", "I-PER"]
    train = [[0, 1, 2, 0], [1, 2, 0, 0], [0, 0, 1, 0]]  # names of two words, one of one word
    emissions = np.log([[0.1, 0.8, 0.1], [0.1, 0.5, 0.4], [0.9, 0.05, 0.05]])  # "Diego Dominguez said"
    assert [labels[k] for k in emissions.argmax(axis=1)] == ["B-PER", "B-PER", "O"]
    assert [labels[k] for k in viterbi(emissions, label_bigrams(train, 3))] == ["B-PER", "I-PER", "O"]


def test_decode_is_checked_and_enters_the_training_key_only_when_set():
    from tokstudy.study.config import DECODINGS as STUDY_DECODINGS
    from tokstudy.study.config import FinetuneSection

    assert STUDY_DECODINGS == DECODINGS
    with pytest.raises(ValueError, match="decode"):
        FinetuneConfig(model="m", task="ner", dataset="conll2003", decode="crf")
    with pytest.raises(ValueError, match="decode must be one of"):
        FinetuneSection(decode="crf")
    key = FinetuneConfig(model="m", task="ner", dataset="conll2003").training_key()
    assert "decode" not in key and "decode_prior_scale" not in key
    key = FinetuneConfig(model="m", task="ner", dataset="conll2003", decode="viterbi").training_key()
    assert key["decode"] == "viterbi"


def test_viterbi_run_saves_its_bigrams_and_evaluate_decodes_the_same_way(tiny_model, tmp_path):
    """A fine-tuning run with ``decode: viterbi``: the saved model carries the training split's bigrams, and
    ``evaluate_finetuned`` on the saved model gives the run's own test scores."""
    from pretrain.finetune.data import load_task
    from pretrain.finetune.evaluation import evaluate_finetuned
    from pretrain.finetune.run import finetune
    from tests.conftest import corpus_path
    from tests.finetune.conftest import QUICK

    corpus_path("snips")
    cfg = FinetuneConfig(
        model=str(tiny_model),
        task="ner",
        dataset="snips",
        decode="viterbi",
        decode_prior_scale=0.5,
        **{**QUICK, "epochs": 2, "max_train_sentences": 400, "max_eval_sentences": 120},
    )
    record = finetune(cfg, tmp_path / "run").seeds[0]
    model_dir = tmp_path / "run" / f"seed-{cfg.first_seed}" / "model"
    meta = json.loads((model_dir / "finetune.json").read_text())
    data = load_task(cfg)
    label2id = {lab: i for i, lab in enumerate(data.labels)}
    expected = label_bigrams(([label2id[t] for t in s.tags] for s in data.train), len(data.labels), prior_scale=0.5)
    assert meta["decode"] == "viterbi" and record["decode"] == "viterbi"
    assert "label_bigrams" not in record  # they are saved with the model, not in every seed's metrics
    saved = LabelBigrams.from_dict(meta["label_bigrams"])
    assert np.allclose(saved.transition, expected.transition) and np.allclose(saved.prior, expected.prior)
    assert saved.prior_scale == 0.5
    again = evaluate_finetuned(model_dir, data.test, unseen_labels="map_o")
    assert again["f1"] == pytest.approx(record["test"]["f1"])


def _invalid_transitions(tags: list[list[str]]) -> int:
    """IOB2 violations: an I-X that follows O or another type."""
    return sum(
        1
        for sent in tags
        for prev, cur in zip(["O", *sent], sent)
        if cur.startswith("I-") and (prev == "O" or prev[2:] != cur[2:])
    )


def test_viterbi_changes_a_trained_models_tags_towards_valid_sequences(snips_run):
    """The SNIPS run's saved model (trained with argmax decoding) decoded both ways on its test split."""
    from pretrain.finetune.data import load_task
    from pretrain.finetune.evaluation import score_split
    from pretrain.finetune.modeling import load_finetuned

    model_dir = next(snips_run.glob("seed-*/model"))
    model, tok, meta = load_finetuned(model_dir, device="cpu")
    assert "label_bigrams" not in meta  # argmax runs save no bigrams
    from tests.finetune.conftest import QUICK

    data = load_task(FinetuneConfig(model=str(model_dir), task="ner", dataset="snips", **QUICK))
    label2id = {lab: i for i, lab in enumerate(meta["labels"])}
    bigrams = label_bigrams(([label2id[t] for t in s.tags] for s in data.train), len(label2id))
    common = dict(task="ner", id2label=dict(enumerate(meta["labels"])), max_length=meta["max_length"], stride=16)
    _, argmax_tags = score_split(model, tok, data.test, **common)
    _, viterbi_tags = score_split(model, tok, data.test, **common, bigrams=bigrams)
    assert [len(t) for t in viterbi_tags] == [len(t) for t in argmax_tags] == [len(s.words) for s in data.test]
    changed = sum(a != v for at, vt in zip(argmax_tags, viterbi_tags) for a, v in zip(at, vt))
    assert changed > 0
    assert _invalid_transitions(viterbi_tags) < _invalid_transitions(argmax_tags)


def test_the_modules_docstring_example_runs():
    from tests.fixtures_doctest import assert_examples_pass

    assert_examples_pass("pretrain.finetune.decoding")
