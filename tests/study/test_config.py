"""Every shipped study configuration loads; bad files get errors that name the place."""

from __future__ import annotations

import pytest

from tokstudy.errors import DataFormatError
from tokstudy.study.config import CONFIG_DIR, StudyConfig, load_study_config


@pytest.mark.parametrize("path", sorted(CONFIG_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_config_loads(path):
    cfg = load_study_config(path)
    assert isinstance(cfg, StudyConfig) and cfg.name == path.stem
    sizes = cfg.tokenizers.vocab_sizes
    assert sizes == tuple(sorted(sizes))
    assert cfg.finetune.tasks and cfg.analysis.datasets


def test_shipped_names_resolve():
    assert {"demo", "cpu", "gpu"} <= {p.stem for p in CONFIG_DIR.glob("*.yaml")}
    assert load_study_config("demo").tokenizers.vocab_sizes == (2000, 4000, 8000)


def test_unknown_key_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("pretrain:\n  stepz: 3\n")
    with pytest.raises(DataFormatError, match=r"bad.yaml: unknown key 'pretrain.stepz'; expected one of \["):
        load_study_config(bad)


def test_invalid_value_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("finetune:\n  tasks:\n    - {dataset: snips, task: regression}\n")
    with pytest.raises(DataFormatError, match=r"tasks\[0\].*'ner' or 'classification'"):
        load_study_config(bad)


def test_yaml_syntax_error_names_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntokenizers: [\n")
    with pytest.raises(DataFormatError, match="bad.yaml"):
        load_study_config(bad)


def test_missing_config_lists_shipped():
    with pytest.raises(DataFormatError, match="demo"):
        load_study_config("nonexistent")


def test_the_small_preset_sits_between_tiny_and_base():
    from pretrain.config import ModelConfig
    from tokstudy.study.config import PretrainSection

    small = ModelConfig.load(PretrainSection(model="small").model_spec())
    tiny, base = ModelConfig.load("tiny"), ModelConfig.load("base")
    assert small.name == "small"
    assert tiny.hidden_size < small.hidden_size < base.hidden_size
    assert tiny.num_layers < small.num_layers < base.num_layers
    assert PretrainSection(model="base").model_spec() == "base"  # the pre-trainer's presets pass through


def test_a_task_may_set_its_own_epochs_learning_rate_and_dropout(tmp_path):
    from tokstudy.study.config import FinetuneSection, TaskSpec

    sec = FinetuneSection(epochs=3, learning_rate=1e-3)
    own = TaskSpec("conll2003", "ner", epochs=10, learning_rate=3e-3).settings(sec)
    assert (own.epochs, own.learning_rate, own.batch_size) == (10, 3e-3, sec.batch_size)
    assert TaskSpec("snips", "classification").settings(sec) is sec
    regularised = TaskSpec("conll2003", "ner", dropout=0.1, token_dropout=0.15).settings(sec)
    assert (regularised.dropout, regularised.token_dropout, regularised.epochs) == (0.1, 0.15, sec.epochs)
    with pytest.raises(ValueError, match=r"token_dropout must be in \[0, 1\), got 1.0"):
        TaskSpec("conll2003", "ner", token_dropout=1.0)
    bad = tmp_path / "bad.yaml"
    bad.write_text("finetune:\n  tasks:\n    - {dataset: conll2003, task: ner, epochs: 0}\n")
    with pytest.raises(DataFormatError, match=r"finetune.tasks\[0\]: epochs must be >= 1"):
        load_study_config(bad)
