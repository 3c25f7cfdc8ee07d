"""seqeval scores against an independent recount of the conlleval definition."""

from __future__ import annotations

import random

import pytest

from pretrain.finetune.metrics import accuracy, entity_scores, token_accuracy


def conlleval_chunks(tags, *, strict=False):
    """Chunks (sentence, start, end, type), recounted from the conlleval rules, written here independently.

    conlleval: a chunk starts at B-X, or at I-X whose previous tag is O or of another type;
    it ends before the next tag that does not continue it. strict IOB2 (seqeval mode='strict'):
    only chunks that start with B-X count.
    """
    chunks = set()
    for s, sent in enumerate(tags):
        start, typ, opened_by = None, None, None
        for i, tag in enumerate(list(sent) + ["O"]):
            prefix, t = (tag.split("-", 1) + [""])[:2] if tag != "O" else ("O", "")
            continues = prefix == "I" and typ == t and start is not None
            if start is not None and not continues:
                if not strict or opened_by == "B":
                    chunks.add((s, start, i, typ))
                start, typ = None, None
            if prefix in ("B", "I") and not continues:
                start, typ, opened_by = i, t, prefix
    return chunks


def recount(gold, pred, *, strict=False):
    g, p = conlleval_chunks(gold, strict=strict), conlleval_chunks(pred, strict=strict)
    correct = len(g & p)
    prec = correct / len(p) if p else 0.0
    rec = correct / len(g) if g else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    per_type = {}
    for t in {c[3] for c in g | p}:
        gt, pt = {c for c in g if c[3] == t}, {c for c in p if c[3] == t}
        ok = len(gt & pt)
        pr, rc = (ok / len(pt) if pt else 0.0), (ok / len(gt) if gt else 0.0)
        per_type[t] = (pr, rc, 2 * pr * rc / (pr + rc) if pr + rc else 0.0, len(gt))
    return prec, rec, f1, len(g), len(p), per_type


def check_equal(gold, pred, mode):
    s = entity_scores(gold, pred, mode=mode)
    prec, rec, f1, ng, np_, per_type = recount(gold, pred, strict=mode == "strict")
    assert (s.n_gold, s.n_pred) == (ng, np_)
    assert s.precision == pytest.approx(prec, abs=1e-12)
    assert s.recall == pytest.approx(rec, abs=1e-12)
    assert s.f1 == pytest.approx(f1, abs=1e-12)
    for t, (pr, rc, f, support) in per_type.items():
        if support or mode == "default":
            got = s.per_type[t]
            assert (got.precision, got.recall, got.f1, got.support) == pytest.approx((pr, rc, f, support), abs=1e-12)


@pytest.mark.parametrize("mode", ["default", "strict"])
def test_random_sequences_match_conlleval_recount(mode):
    rng = random.Random(7)
    tags = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG", "B-ORG"]
    for _ in range(200):
        n = rng.randint(1, 12)
        lengths = [rng.randint(1, 15) for _ in range(n)]
        gold = [[rng.choice(tags) for _ in range(k)] for k in lengths]
        pred = [[t if rng.random() < 0.6 else rng.choice(tags) for t in g] for g in gold]
        check_equal(gold, pred, mode)


def test_real_predictions_match_conlleval_recount(snips_run):
    from tokstudy.analysis.model_errors.predictions import read_predictions

    preds = read_predictions(snips_run / "seed-1" / "predictions.test.tsv")
    gold = [list(s.gold) for s in preds]
    pred = [list(s.pred) for s in preds]
    assert sum(len(g) for g in gold) > 1000
    for mode in ("default", "strict"):
        check_equal(gold, pred, mode)


def test_accuracies():
    assert token_accuracy([["O", "B-X"], ["O"]], [["O", "O"], ["O"]]) == pytest.approx(2 / 3)
    assert accuracy(["a", "b", "b", "c"], ["a", "b", "c", "c"]) == 0.75
    with pytest.raises(ValueError, match="sentence 0: 2 gold tags but 1 predicted"):
        entity_scores([["O", "O"]], [["O"]])
    with pytest.raises(ValueError, match="no labels"):
        accuracy([], [])
    empty = entity_scores([["O"]], [["O"]])
    assert (empty.f1, empty.n_gold, empty.n_pred) == (0.0, 0, 0)
