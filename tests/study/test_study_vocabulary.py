"""One config vocabulary: the study's sections spell a setting as the pre-trainer does, the pre-trainer's configs
are built from them by name, older spellings still load, and the stage keys of a results folder do not move."""

from __future__ import annotations

from pathlib import Path

import pytest

from pretrain.config import TrainConfig
from pretrain.data.config import PrepareConfig
from pretrain.finetune.config import FinetuneConfig
from pretrain.study_backend import PretrainBackend, pretrain_train_config, shared_settings
from tokstudy.study.backends import FinetuneRequest, TaskSplits
from tokstudy.study.config import FinetuneSection, PretrainSection, TaskSpec, load_study_config
from tokstudy.study.pipeline import finetune_key, section_key

PRETRAIN = PretrainSection(
    total_steps=70, lr=4e-3, batch_size=8, warmup_steps=5, seed=3, max_seq_length=64, max_examples=90, compile="off"
)
FINETUNE = FinetuneSection(
    epochs=2,
    batch_size=4,
    learning_rate=3e-3,
    max_length=48,
    patience=1,
    dropout=0.1,
    token_dropout=0.05,
    decode="viterbi",
    decode_prior_scale=0.5,
    label_all_pieces=True,
    holdout_fraction=0.2,
)


def test_the_pre_trainers_configs_get_every_setting_the_study_names_as_they_do(tmp_path):
    """Against the settings written out one by one: what the pre-trainer and the fine-tuner are handed."""
    cfg = pretrain_train_config(PRETRAIN, tmp_path, cuda=False)
    assert (cfg.batch_size, cfg.lr, cfg.warmup_steps, cfg.total_steps, cfg.seed, cfg.compile) == (
        8,
        4e-3,
        5,
        70,
        3,
        "off",
    )
    assert (cfg.checkpoint_every, cfg.log_every, cfg.keep_last) == (14, 3, 5)
    assert shared_settings(PrepareConfig, PRETRAIN, leave=("languages",)) == {
        "max_seq_length": 64,
        "max_examples": 90,
        "seed": 3,
    }
    assert set(shared_settings(TrainConfig, PRETRAIN)) == {
        "batch_size",
        "lr",
        "warmup_steps",
        "total_steps",
        "seed",
        "compile",
    }
    settings = shared_settings(FinetuneConfig, FINETUNE)
    assert settings == {
        "epochs": 2,
        "batch_size": 4,
        "learning_rate": 3e-3,
        "max_length": 48,
        "patience": 1,
        "dropout": 0.1,
        "token_dropout": 0.05,
        "decode": "viterbi",
        "decode_prior_scale": 0.5,
        "label_all_pieces": True,
        "holdout_fraction": 0.2,
    }


class _HeldOut(Exception):
    pass


def test_the_hold_out_fraction_is_the_sections(tmp_path, monkeypatch):
    """A corpus without a test split: the backend holds out the section's fraction of the training split, with the
    fine-tuner's hold-out seed."""
    import pretrain.study_backend as backend_module

    def holdout(dataset, fraction, seed):
        raise _HeldOut(fraction, seed)

    monkeypatch.setattr(backend_module, "holdout", holdout)
    task = TaskSpec("sst2", "classification")
    request = FinetuneRequest(tmp_path / "model", task, TaskSplits(object(), None, object()), 0, FINETUNE)
    with pytest.raises(_HeldOut) as held:
        PretrainBackend(cuda=False).finetune(tmp_path, request, progress=False)
    assert held.value.args == (0.2, FinetuneConfig.holdout_seed)
    assert PretrainBackend(cuda=False).finetune_config(request, progress=False).holdout_fraction == 0.2


def test_older_spellings_load_and_the_stage_keys_keep_them(tmp_path):
    old = tmp_path / "old.yaml"
    old.write_text("pretrain:\n  steps: 70\n  learning_rate: 0.004\n")
    sec = load_study_config(old).pretrain
    assert (sec.total_steps, sec.lr) == (70, 0.004)
    both = tmp_path / "both.yaml"
    both.write_text("pretrain:\n  steps: 70\n  total_steps: 80\n")
    with pytest.raises(ValueError, match="unknown key 'pretrain.steps'"):
        load_study_config(both)
    # the key a results folder's pre-training stages were stored under, spelt as the section was first written
    key = section_key(sec)
    assert key["steps"] == 70 and key["learning_rate"] == 0.004 and not {"total_steps", "lr"} & set(key)
    assert "holdout_fraction" not in finetune_key(FinetuneSection())  # at its default: fine-tuning keys unchanged
    assert finetune_key(FINETUNE)["holdout_fraction"] == 0.2


def test_the_committed_results_folders_config_still_loads():
    root = Path(__file__).resolve().parents[2] / "examples" / "cpu_report"
    cfg = load_study_config(root / "config.json")
    assert cfg.pretrain.total_steps == 1000


def test_one_vocabulary_of_choices():
    import pretrain.config
    import pretrain.finetune.config
    import tokstudy.study.config
    from tokstudy import training_vocabulary

    assert pretrain.config.COMPILE_MODES is training_vocabulary.COMPILE_MODES is tokstudy.study.config.COMPILE_MODES
    assert pretrain.finetune.config.DECODINGS is training_vocabulary.DECODINGS is tokstudy.study.config.DECODINGS
