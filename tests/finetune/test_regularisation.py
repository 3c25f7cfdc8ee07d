"""Fine-tuning regularisation: dropout overriding the model's, and word dropout (pieces replaced by ``<unk>``)."""

from __future__ import annotations

import pytest
import torch

from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.modeling import load_for_task
from pretrain.finetune.trainer import drop_tokens
from tokstudy.errors import ConfigError

PAD, UNK, CLS, SEP = 0, 1, 2, 3


def _batch() -> dict:
    ids = torch.tensor([[CLS] + list(range(10, 40)) + [SEP, PAD, PAD], [CLS] + list(range(50, 82)) + [SEP]])
    mask = (ids != PAD).long()
    return {"input_ids": ids, "attention_mask": mask, "labels": torch.zeros_like(ids)}


def test_word_dropout_replaces_only_real_pieces_and_keeps_labels():
    batch = _batch()
    out = drop_tokens(batch, 0.5, UNK, (CLS, SEP, PAD), torch.Generator().manual_seed(0))
    ids, before = out["input_ids"], batch["input_ids"]
    changed = ids != before
    assert changed.any()
    assert (ids[changed] == UNK).all()
    # [CLS], [SEP] and padding are never replaced
    assert not changed[torch.isin(before, torch.tensor([CLS, SEP, PAD]))].any()
    assert out["labels"] is batch["labels"] and out["attention_mask"] is batch["attention_mask"]
    assert torch.equal(batch["input_ids"], before)  # the input batch is not modified in place


def test_word_dropout_rate_matches_the_binomial_and_is_seeded():
    ids = torch.arange(10, 20010).reshape(100, 200)
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    a = drop_tokens(batch, 0.15, UNK, (CLS, SEP, PAD), torch.Generator().manual_seed(7))["input_ids"]
    b = drop_tokens(batch, 0.15, UNK, (CLS, SEP, PAD), torch.Generator().manual_seed(7))["input_ids"]
    assert torch.equal(a, b)
    n, p = ids.numel(), 0.15
    dropped = int((a == UNK).sum())
    sd = (n * p * (1 - p)) ** 0.5
    assert abs(dropped - n * p) < 5 * sd, (dropped, n * p)


def test_rate_zero_changes_nothing():
    batch = _batch()
    out = drop_tokens(batch, 0.0, UNK, (CLS, SEP, PAD), torch.Generator().manual_seed(0))
    assert torch.equal(out["input_ids"], batch["input_ids"])


def test_dropout_override_reaches_every_dropout_of_the_model(tiny_model):
    model, _ = load_for_task(tiny_model, "ner", ["O", "B-PER", "I-PER"], dropout=0.2)
    cfg = model.config
    assert cfg.hidden_dropout_prob == cfg.attention_probs_dropout_prob == cfg.classifier_dropout_prob == 0.2
    rates = {m.p for m in model.modules() if isinstance(m, torch.nn.Dropout)}
    assert rates == {0.2}
    kept, _ = load_for_task(tiny_model, "ner", ["O", "B-PER", "I-PER"])
    assert kept.config.hidden_dropout_prob == 0.0  # None keeps the exported model's own


@pytest.mark.parametrize("field,value", [("dropout", 1.0), ("dropout", -0.1), ("token_dropout", 1.0)])
def test_rates_out_of_range_are_config_errors(field, value):
    with pytest.raises((ConfigError, ValueError), match=field):
        FinetuneConfig(model="m", task="ner", dataset="conll2003", **{field: value})


def test_training_with_word_dropout_is_reproducible_and_differs_from_without(tiny_model, tmp_path):
    from pretrain.finetune.run import finetune
    from tests.conftest import corpus_path
    from tests.finetune.conftest import QUICK

    corpus_path("snips")
    small = {**QUICK, "epochs": 1, "max_train_sentences": 200, "max_eval_sentences": 50, "save_models": False}

    def run(name, **kw):
        cfg = FinetuneConfig(model=str(tiny_model), task="ner", dataset="snips", **small, **kw)
        return finetune(cfg, tmp_path / name).seeds[0]["train"]["history"][-1]["loss"]

    with_drop = run("a", token_dropout=0.3, dropout=0.1)
    assert run("b", token_dropout=0.3, dropout=0.1) == with_drop
    assert run("c") != with_drop


def test_the_new_settings_enter_the_training_key_only_when_set():
    """Finished seeds of an earlier version (no such settings) stay reusable; a set rate retrains."""
    base = FinetuneConfig(model="m", task="ner", dataset="conll2003")
    assert "dropout" not in base.training_key() and "token_dropout" not in base.training_key()
    assert FinetuneConfig(model="m", task="ner", dataset="conll2003", dropout=0.1).training_key()["dropout"] == 0.1
    key = FinetuneConfig(model="m", task="ner", dataset="conll2003", token_dropout=0.2).training_key()
    assert key["token_dropout"] == 0.2 and key != base.training_key()
