"""Every shipped configuration loads through the one loader, and the loader refuses what is wrong by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokstudy.configfile import build_config, load_config, read_config
from tokstudy.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def _config_class(path: Path):
    from pretrain.config import ModelConfig, TrainConfig
    from pretrain.data.config import PrepareConfig
    from pretrain.finetune.config import FinetuneConfig
    from tokstudy.study.config import StudyConfig

    prefix = path.name.split("_")[0]
    if path.parent.name == "configs" and path.parent.parent.name == "study":
        return StudyConfig, {"name": path.stem}
    if path.name.endswith("_study.yaml"):
        return StudyConfig, {"name": path.stem}
    return {
        "model": (ModelConfig, {}),
        "train": (TrainConfig, {}),
        "prepare": (PrepareConfig, {}),
        # the model is given on the command line, never in the shipped file
        "finetune": (FinetuneConfig, {"model": "models/albert"}),
    }[prefix]


SHIPPED = sorted(
    [
        *(ROOT / "pretrain" / "configs").glob("*.yaml"),
        *(ROOT / "tokstudy" / "study" / "configs").glob("*.yaml"),
        *(ROOT / "tests").rglob("*_study.yaml"),
    ]
)


pytest.importorskip("torch", reason="the pre-training configs import the pretrain package")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_yaml_loads_through_the_one_loader(path):
    cls, overrides = _config_class(path)
    config = load_config(cls, path, **overrides)
    assert isinstance(config, cls)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_unknown_key_is_refused_with_file_and_key(path, tmp_path):
    cls, overrides = _config_class(path)
    bad = tmp_path / path.name
    bad.write_text(path.read_text(encoding="utf-8") + "\nlearning_rat: 0.1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"{bad.name}: unknown key 'learning_rat'"):
        load_config(cls, bad, **overrides)


def test_nested_unknown_key_names_its_section(tmp_path):
    from tokstudy.study.config import StudyConfig

    bad = tmp_path / "s.yaml"
    bad.write_text("finetune:\n  tasks:\n    - {dataset: conll2003, task: ner, epoch: 3}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"s\.yaml: unknown key 'finetune\.tasks\[0\]\.epoch'"):
        load_config(StudyConfig, bad)


def test_syntax_errors_name_file_and_line(tmp_path):
    y = tmp_path / "a.yaml"
    y.write_text("steps: 3\nbatch_size: [1,\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"a\.yaml:\d+: invalid YAML"):
        read_config(y)
    j = tmp_path / "a.json"
    j.write_text('{"steps": 3,\n "x": }', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"a\.json:2: invalid JSON"):
        read_config(j)
    with pytest.raises(ConfigError, match="not found"):
        read_config(tmp_path / "missing.yaml")
    lst = tmp_path / "l.yaml"
    lst.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="expected a mapping"):
        read_config(lst)


def test_a_refused_value_names_the_file_and_section():
    from tokstudy.study.config import StudyConfig

    with pytest.raises(ConfigError, match=r"x\.yaml: pretrain: .*steps"):
        build_config(StudyConfig, {"pretrain": {"steps": 0}}, source="x.yaml")


def test_the_error_is_a_tokstudy_error_and_a_value_error():
    from tokstudy.errors import TokstudyError

    assert issubclass(ConfigError, TokstudyError) and issubclass(ConfigError, ValueError)
