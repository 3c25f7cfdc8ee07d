"""`pretrain` flags made from the config dataclasses: one flag per field, its help the field's docstring,
types parsed as annotated, and the commands overlay exactly the flags given on the YAML's values."""

from __future__ import annotations

import argparse
import dataclasses
import enum
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Literal

import pytest

from pretrain.cli import build_parser
from pretrain.cli.fields import add_config_flags, config_overrides, field_docs
from pretrain.config import CONFIG_DIR, TrainConfig
from pretrain.data.config import PrepareConfig
from pretrain.finetune.config import FinetuneConfig


@dataclass(frozen=True)
class Toy:
    steps: int = 10
    """Optimiser steps."""
    rate: float | None = None
    """A rate; ``None``: the model's own."""
    mode: Literal["fast", "slow"] = "fast"
    """How to run (``fast`` or ``slow``)."""
    quiet: bool = False
    """Print nothing."""
    betas: tuple[float, float] = (0.9, 0.999)
    """Two coefficients."""
    splits: tuple[str, ...] = ("test",)
    """Splits to predict."""
    inputs: list[str] = field(default_factory=list)
    """Files to read, 90 % of them text."""


@dataclass(frozen=True)
class ToyWithOneMore(Toy):
    warmup: int = 0
    """Warm-up steps."""


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions if a.option_strings}


def _toy(cls=Toy, **kwargs) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toy", exit_on_error=False)
    add_config_flags(parser, cls, **kwargs)
    return parser


# -- every field of the shipped configs has its flag, documented by the field's docstring ----------------


def _source_docstring(cls, name: str) -> str:
    """The docstring under field ``name``, found in the source text with a regex (not with ``ast``)."""
    import inspect

    match = re.search(rf'\n    {name}: [^\n]*\n    """(.*?)"""', inspect.getsource(cls), flags=re.S)
    assert match, f"{cls.__name__}.{name} has no docstring"
    return match.group(1)


def _plain(text: str) -> str:
    return " ".join(re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text.replace("``", "")).split())


@pytest.mark.parametrize(
    "command, cls, skipped",
    [("train", TrainConfig, set()), ("prepare", PrepareConfig, set()), ("finetune", FinetuneConfig, {"extra"})],
)
def test_every_config_field_has_a_flag_whose_help_is_its_docstring(command, cls, skipped):
    options = _options(_subparser(command))
    for f in dataclasses.fields(cls):
        if f.name in skipped:
            assert f.name not in options
            continue
        action = options[f.name]
        assert "--" + f.name.replace("_", "-") in action.option_strings
        assert action.default is None, f"--{f.name}: a flag not given must keep the YAML's value"
        doc = _plain(_source_docstring(cls, f.name))
        assert doc and action.help.replace("%%", "%").startswith(doc), f.name


def test_every_train_config_field_is_documented():
    docs = field_docs(TrainConfig)
    assert set(docs) == {f.name for f in dataclasses.fields(TrainConfig)}
    assert docs["eps"] == "Adam/LAMB epsilon."
    assert docs["micro_batch_size"].startswith("Sequences per forward pass per process;")
    assert "\n" in docs["micro_batch_size"]  # multi-line docstrings keep their lines, dedented
    assert all(not line.startswith(" ") for line in docs["micro_batch_size"].splitlines())


def test_train_help_lists_every_train_config_flag(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "--help"])
    out = capsys.readouterr().out
    for f in dataclasses.fields(TrainConfig):
        assert "--" + f.name.replace("_", "-") in out
    assert "Adam/LAMB epsilon." in out


# -- one edit: a new field is a new flag ----------------------------------------------------------------


def test_a_new_field_is_a_new_flag():
    before, after = _options(_toy(Toy)), _options(_toy(ToyWithOneMore))
    assert set(after) - set(before) == {"warmup"}
    assert after["warmup"].option_strings == ["--warmup"] and after["warmup"].help == "Warm-up steps."
    assert config_overrides(_toy(ToyWithOneMore).parse_args(["--warmup", "3"]), ToyWithOneMore) == {"warmup": 3}


def test_help_is_plain_text_and_percent_safe():
    parser = _toy()
    assert _options(parser)["rate"].help == "A rate; None: the model's own."
    assert "90 % of them text" in parser.format_help()


# -- types ----------------------------------------------------------------------------------------------


def test_nothing_given_overrides_nothing():
    assert config_overrides(_toy().parse_args([]), Toy) == {}


def test_bool_is_a_pair_of_flags():
    parser = _toy()
    assert config_overrides(parser.parse_args(["--quiet"]), Toy) == {"quiet": True}
    assert config_overrides(parser.parse_args(["--no-quiet"]), Toy) == {"quiet": False}


def test_literal_is_a_choice():
    parser = _toy()
    assert config_overrides(parser.parse_args(["--mode", "slow"]), Toy) == {"mode": "slow"}
    with pytest.raises(argparse.ArgumentError, match="invalid choice: 'medium'"):
        parser.parse_args(["--mode", "medium"])


class Speed(str, enum.Enum):
    FAST = "fast"
    SLOW = "slow"
    WARP = "warp"


@dataclass(frozen=True)
class ToyWithEnum:
    speed: Literal[Speed.FAST, Speed.SLOW] = Speed.FAST
    """How to run: two of the enum's members."""


def test_a_literal_of_enum_members_is_a_choice_of_their_spellings():
    parser = _toy(ToyWithEnum)
    action = _options(parser)["speed"]
    assert (action.type, action.choices) == (str, ["fast", "slow"])
    assert config_overrides(parser.parse_args(["--speed", "slow"]), ToyWithEnum) == {"speed": "slow"}
    assert "--speed {fast,slow}" in parser.format_help()
    for wrong in ("medium", "warp"):  # a member outside the Literal is refused like any other word
        with pytest.raises(argparse.ArgumentError, match=rf"invalid choice: '{wrong}' \(choose from 'fast', 'slow'\)"):
            parser.parse_args(["--speed", wrong])


def test_optional_numbers_parse_as_numbers():
    parser = _toy()
    assert config_overrides(parser.parse_args(["--rate", "0.5", "--steps", "7"]), Toy) == {"rate": 0.5, "steps": 7}
    with pytest.raises(argparse.ArgumentError, match="invalid int value"):
        parser.parse_args(["--steps", "seven"])


def test_tuples_and_lists():
    parser = _toy()
    got = config_overrides(parser.parse_args(["--betas", "0.8", "0.99", "--splits", "dev", "test"]), Toy)
    assert got == {"betas": (0.8, 0.99), "splits": ("dev", "test")}
    with pytest.raises(argparse.ArgumentError):
        parser.parse_args(["--betas", "0.8"])
    # a list flag may be repeated (`--input a --input b`) or take several values at once
    assert parser.parse_args(["--inputs", "a", "--inputs", "b", "c"]).inputs == ["a", "b", "c"]


def test_aliases_notes_and_exclusions():
    parser = _toy(aliases={"steps": ["--n"]}, notes={"steps": "Shortened to fit."}, exclude=["inputs"])
    options = _options(parser)
    assert options["steps"].option_strings == ["--steps", "--n"]
    assert options["steps"].help == "Optimiser steps. Shortened to fit."
    assert "inputs" not in options
    assert config_overrides(parser.parse_args(["--n", "4"]), Toy) == {"steps": 4}
    with pytest.raises(ValueError, match=r"has no field\(s\) \['stpes'\]"):
        _toy(aliases={"stpes": ["--n"]})


def test_a_field_that_cannot_be_a_flag_is_named():
    @dataclass
    class Odd:
        extra: dict = field(default_factory=dict)

    with pytest.raises(TypeError, match="Odd.extra: no command-line flag"):
        _toy(Odd)
    assert set(_options(_toy(Odd, exclude=["extra"]))) == {"help"}


# -- the commands: the flags given, overlaid on the YAML ------------------------------------------------


@pytest.fixture
def captured_train(monkeypatch, tmp_path):
    """Run `pretrain train ...` up to the call of :func:`pretrain.train.train`; return the config it gets."""
    import pretrain.train

    seen = {}

    def fake_train(model, cfg, **kwargs):
        seen.update(model=model, cfg=cfg, **kwargs)
        return SimpleNamespace(step=0, final_model_dir=None)

    monkeypatch.setattr(pretrain.train, "train", fake_train)

    def run(*flags: str) -> TrainConfig:
        from pretrain.cli import main

        base = ["train", "--data", "d", "--tokenizer", "t", "--output", str(tmp_path / "run")]
        assert main([*base, *flags]) == 0
        return seen["cfg"]

    return run


def test_train_overlays_the_flags_given_on_the_yaml(captured_train, tmp_path):
    yaml = TrainConfig.load(CONFIG_DIR / "train_tiny.yaml")
    cfg = captured_train("--lr", "0.002", "--no-unpad", "--betas", "0.8", "0.99", "--compile", "off")
    assert cfg == yaml.replace(
        output_dir=str(tmp_path / "run"), lr=0.002, unpad=False, betas=(0.8, 0.99), compile="off"
    )


def test_train_total_steps_shortens_the_warm_up_to_fit(captured_train):
    yaml = TrainConfig.load(CONFIG_DIR / "train_tiny.yaml")
    assert yaml.warmup_steps == 20
    assert (captured_train("--total-steps", "5").total_steps, captured_train("--total-steps", "5").warmup_steps) == (
        5,
        5,
    )
    assert captured_train("--total-steps", "50").warmup_steps == 20
    assert captured_train("--total-steps", "5", "--warmup-steps", "2").warmup_steps == 2  # one given is kept


def test_prepare_flags_reach_the_config(tmp_path):
    from pretrain.cli.prepare import config_from_args

    parser = _subparser("prepare")
    args = ["--input", "a", "--input", "b", "--tokenizer", "tok", "--output", "out", "--no-split-sentences"]
    cfg = config_from_args(parser.parse_args([*args, "--single-segment", "skip", "--max-seq-length", "64"]))
    assert cfg.inputs == ["a", "b"] and (cfg.tokenizer, cfg.output) == ("tok", "out")
    assert (cfg.split_sentences, cfg.single_segment, cfg.max_seq_length) == (False, "skip", 64)
    shipped = PrepareConfig.from_yaml(CONFIG_DIR / "prepare_tiny.yaml")
    from_yaml = config_from_args(parser.parse_args(["--config", str(CONFIG_DIR / "prepare_tiny.yaml"), "--seed", "7"]))
    assert from_yaml == dataclasses.replace(shipped, seed=7)


def test_finetune_keeps_its_short_spellings():
    from pretrain.cli.finetune import config_from_args

    parser = _subparser("finetune")
    argv = ["--model", "m", "--task", "ner", "--dataset", "snips", "--output", "o", "--seeds", "3", "--lr", "1e-4"]
    cfg = config_from_args(parser.parse_args([*argv, "--no-save-models", "--no-progress", "--label-all-pieces"]))
    assert (cfg.n_seeds, cfg.learning_rate) == (3, 1e-4)
    assert (cfg.save_models, cfg.progress, cfg.label_all_pieces) == (False, False, True)
    plain = config_from_args(parser.parse_args(argv))
    assert plain == FinetuneConfig(model="m", task="ner", dataset="snips", n_seeds=3, learning_rate=1e-4)
    assert config_from_args(parser.parse_args([*argv, "--predict-splits", "dev", "test"])).predict_splits == (
        "dev",
        "test",
    )


@pytest.mark.parametrize("task", ["foo", "slot"])
def test_finetune_names_the_task_choices_when_the_task_is_wrong(task, capsys):
    """As a user sees it: status 2 and argparse's own words with the spellings, never an enum's repr."""
    from pretrain.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["finetune", "--model", "m", "--task", task, "--dataset", "snips", "--output", "o"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        f"pretrain finetune: error: argument --task: invalid choice: '{task}' (choose from 'ner', 'classification')"
    )
    assert "DatasetTask" not in err


def test_finetune_task_flag_gives_the_config_its_task():
    from pretrain.cli.finetune import config_from_args
    from tokstudy.data.registry import DatasetTask

    parser = _subparser("finetune")
    action = _options(parser)["task"]
    assert (action.type, action.choices) == (str, ["ner", "classification"])
    argv = ["--model", "m", "--dataset", "sst2", "--output", "o", "--task", "classification"]
    assert config_from_args(parser.parse_args(argv)).task is DatasetTask.CLASSIFICATION
    assert "--task {ner,classification}" in parser.format_help()


def test_the_modules_docstring_examples_run():
    from tests.fixtures_doctest import assert_examples_pass

    assert_examples_pass("pretrain.cli.fields")


# -- what docs/pretrain.md says jsonargparse cannot do, pinned here ----------------------------------------


def test_a_flag_overrides_the_config_file_wherever_it_stands():
    from pretrain.cli.prepare import config_from_args

    parser = _subparser("prepare")
    yaml = str(CONFIG_DIR / "prepare_tiny.yaml")
    before, after = (config_from_args(parser.parse_args(argv)) for argv in (
        ["--seed", "7", "--config", yaml],
        ["--config", yaml, "--seed", "7"],
    ))  # fmt: skip
    assert before.seed == after.seed == 7 != PrepareConfig.from_yaml(yaml).seed


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["train", "--data", "d", "--tokenizer", "t", "--total-steps", "seven"], "--total-steps"),
        (["train", "--data", "d", "--tokenizer", "t", "--betas", "0.9"], "--betas"),
        (["prepare", "--single-segment", "join"], "--single-segment"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_flag_with_status_2(argv, flag, capsys):
    from pretrain.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].startswith(f"pretrain {argv[0]}: error: argument {flag}"), errors
