"""Word tags from a foreign model's piece probabilities: every tag scheme round-trips to IOB2, each aggregation
against a direct computation, Viterbi against a brute-force search."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pretrain.finetune.decoding import LabelBigrams
from pretrain.finetune.label_mapping import map_labels
from pretrain.finetune.mapped_tags import mapped_words, tag_bigrams
from tokstudy.data.schemes import from_iob2

SETTINGS = settings(
    max_examples=int(os.environ.get("TOKSTUDY_PROPERTY_EXAMPLES", "120")),
    deadline=None,
    derandomize=not os.environ.get("TOKSTUDY_PROPERTY_EXAMPLES"),
    suppress_health_check=[HealthCheck.too_slow],
)
TYPES = ("PER", "LOC")
SPELLED = {"PER": "person", "LOC": "location"}
PREFIXES = {"IOB1": "BI", "IOB2": "BI", "IOBES": "BIES", "BILOU": "BILU"}


def _repair(tags):
    """IOB2 by hand: an I-X that does not continue an X entity opens one."""
    out = []
    for t in tags:
        if t.startswith("I-") and (not out or out[-1] == "O" or out[-1][2:] != t[2:]):
            t = "B-" + t[2:]
        out.append(t)
    return tuple(out)


def _pieces(rng, label_ids, n_labels):
    """Each word 1-3 pieces; its first piece's argmax is the word's label, the other pieces random."""
    words = []
    for k in label_ids:
        first = rng.dirichlet(np.ones(n_labels))
        first[k] = first.max() + 1.0
        rows = [first / first.sum()] + [rng.dirichlet(np.ones(n_labels)) for _ in range(rng.integers(0, 3))]
        words.append(np.stack(rows))
    return words


IOB2_SEQUENCES = st.lists(st.sampled_from(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]), min_size=0, max_size=12).map(
    _repair
)


@SETTINGS
@given(IOB2_SEQUENCES, st.sampled_from(sorted(PREFIXES)), st.integers(0, 2**16))
def test_every_scheme_comes_back_as_the_iob2_it_encodes(iob2, scheme, seed):
    """A model that writes its tags in ``scheme`` (spelled-out lowercase types) and says exactly the sentence's
    entities gives back the dataset's IOB2 tags."""
    written = from_iob2(list(iob2), scheme)
    labels = ["O"] + [f"{p}-{SPELLED[t]}" for t in TYPES for p in PREFIXES[scheme]]
    index = {f"{p}-{t}": labels.index(f"{p}-{SPELLED[t]}") for t in TYPES for p in PREFIXES[scheme]} | {"O": 0}
    probs = _pieces(np.random.default_rng(seed), [index[t] for t in written], len(labels))
    words = mapped_words([probs], map_labels(labels, TYPES))
    assert words.tags == (tuple(iob2),)
    assert words.n_unmapped_pieces == 0


@SETTINGS
@given(st.lists(st.sampled_from(["O", "PER", "LOC"]), max_size=12), st.integers(0, 2**16))
def test_io_model(io, seed):
    """Bare types (IO): a run of one type is one entity, opened by its first word."""
    labels = ["O", "LOC", "PER"]
    probs = _pieces(np.random.default_rng(seed), [labels.index(t) for t in io], 3)
    words = mapped_words([probs], map_labels(labels, TYPES))
    expected = tuple("O" if t == "O" else ("I-" if i and io[i - 1] == t else "B-") + t for i, t in enumerate(io))
    assert words.tags == (expected,)
    assert words.n_repaired == sum(1 for t in expected if t.startswith("B-"))


def _project(probs, tags, targets, previous=None):
    """Each model label's probability added into its tag's column; after a word tagged ``previous``, a continuing
    tag whose entity is not open opens it."""
    if previous is not None:
        targets = [
            "B-" + t[2:] if t.startswith("I-") and (previous == "O" or previous[2:] != t[2:]) else t for t in targets
        ]
    out = np.zeros((probs.shape[0], len(tags)))
    for j, target in enumerate(targets):
        out[:, tags.index(target)] += probs[:, j]
    return out, [tags.index(targets[k]) for k in probs.argmax(axis=1)]


DECIDE = {
    "first": lambda p, b: b[0],
    "average": lambda p, b: int(p.mean(axis=0).argmax()),
    "max": lambda p, b: int(np.unravel_index(p.argmax(), p.shape)[1]),
    "majority": lambda p, b: max(b, key=lambda k: (b.count(k), -b.index(k))),  # a tie: the first in the word
}


@SETTINGS
@given(st.integers(1, 8), st.integers(0, 2**16))
def test_aggregations_against_a_direct_computation(n_words, seed):
    rng = np.random.default_rng(seed)
    labels = ["O", "S-person", "B-person", "E-person", "I-person", "B-GPE", "U-location"]
    targets = ["O", "B-PER", "B-PER", "I-PER", "I-PER", "O", "B-LOC"]
    m = map_labels(labels, TYPES)
    assert m.targets == tuple(targets)
    words = [rng.dirichlet(np.ones(len(labels)) * 0.3, size=rng.integers(1, 5)) for _ in range(n_words)]
    for method, decide in DECIDE.items():
        expected, previous, projected, best = [], "O", [], []
        for w in words:
            p, b = _project(w, m.labels, targets, previous)
            previous = m.labels[decide(p, b)]
            expected.append(previous)
            projected.append(p)
            best.append(tuple(b))
        got = mapped_words([words], m, method=method)
        assert got.tags == (tuple(expected),) == (_repair(expected),), method
        assert got.best == (tuple(best),)
        assert all(np.allclose(a, b) for a, b in zip(got.probs[0], projected))
    unmapped = [int((w.argmax(axis=1) == labels.index("B-GPE")).sum()) for w in words]
    assert got.n_unmapped_pieces == sum(unmapped) and got.n_unmapped_words == sum(1 for u in unmapped if u)


def _brute_force(emissions: np.ndarray, b: LabelBigrams) -> list[int]:
    n, n_labels = emissions.shape
    best, best_score = None, -np.inf
    for seq in itertools.product(range(n_labels), repeat=n):
        score = b.start[seq[0]] + sum(emissions[t, seq[t]] for t in range(n))
        score += sum(b.transition[seq[t - 1], seq[t]] for t in range(1, n))
        if score > best_score + 1e-12:
            best, best_score = list(seq), score
    return best


@pytest.mark.parametrize("method", ["first", "average"])
def test_viterbi_against_brute_force(method):
    rng = np.random.default_rng(7)
    labels = ["O", "PER", "LOC"]  # an IO model: its B- columns have probability 0
    m = map_labels(labels, TYPES)
    train = [["B-PER", "I-PER", "O"], ["O", "B-LOC"], ["B-MISC", "I-MISC", "B-PER"], ["O", "O", "B-LOC", "I-LOC"]]
    bigrams = tag_bigrams(train, m)
    for n_words in range(1, 5):
        words = [rng.dirichlet(np.ones(3), size=rng.integers(1, 3)) for _ in range(n_words)]
        rows = [_project(w, m.labels, m.targets)[0] for w in words]
        rows = np.stack([r[0] if method == "first" else r.mean(axis=0) for r in rows])
        expected = _repair([m.labels[k] for k in _brute_force(np.log(np.maximum(rows, 1e-12)), bigrams)])
        got = mapped_words([words], m, method=method, bigrams=bigrams)
        assert got.tags == (expected,)
        # the per-piece probabilities kept are those after the tags chosen
        after = [_project(w, m.labels, m.targets, prev)[0] for w, prev in zip(words, ("O",) + expected[:-1])]
        assert all(np.allclose(a, b) for a, b in zip(got.probs[0], after))
    with pytest.raises(ValueError, match="Viterbi decoding needs one distribution per word"):
        mapped_words([words], m, method="max", bigrams=bigrams)


def test_tag_bigrams_count_the_training_tags():
    m = map_labels(["O", "B-PER", "I-PER"], ["PER", "MISC"])
    b = tag_bigrams([["B-PER", "I-PER"], ["B-MISC", "I-MISC", "B-PER"]], m)  # MISC: the model has none -> O
    # add-one counts: starts O 1+1, B-PER 1+1, I-PER 0+1; transitions from O: to O 1+1, to B-PER 1+1, to I-PER 1
    np.testing.assert_allclose(np.exp(b.start), [2 / 5, 2 / 5, 1 / 5])
    np.testing.assert_allclose(np.exp(b.transition[0]), [2 / 5, 2 / 5, 1 / 5])
    np.testing.assert_allclose(np.exp(b.transition[1]), [1 / 4, 1 / 4, 2 / 4])
