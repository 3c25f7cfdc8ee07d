"""The stages' typed outcomes: each crosses the disk through its one codec, a reused stage hands back the same
value it returned when it ran, and the files the study writes for itself are written whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokstudy.study.outcomes import (
    AnalysisWritten,
    BuiltTokenizer,
    FinetuneOutcome,
    ModelBuilt,
    ReportWritten,
    TaskTextWritten,
    TokenizersBuilt,
)
from tokstudy.study.stages import Stage, StageRunner

OUTCOMES = [
    TaskTextWritten(({"dataset": "conll2003", "language": "en", "path": "conll2003/en.txt", "sentences": 3},)),
    TokenizersBuilt((BuiltTokenizer("sp-unigram-2k", 2000, "tokenizers/sp-unigram-2k", 40),)),
    ModelBuilt("pretrain/a/run/final_model", {"wall_seconds": 2.0, "stage_seconds": 3.0}),
    ModelBuilt("control/a/random_init"),
    FinetuneOutcome("F1", 81.5, "finetune/a/t/seed0/seed-0/predictions.test.tsv", {"wall_seconds": 1.0}, 80.0, 2, {}),
    AnalysisWritten((), ("a", "b"), {"a": 500, "b": 1000}, "conll2003:test", ("tables/table4.json",), ()),
    ReportWritten("report.md", "report.html"),
]


@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda o: type(o).__name__)
def test_every_outcome_reads_back_what_it_wrote_through_json(outcome):
    text = json.dumps(outcome.to_json())
    assert type(outcome).from_json(json.loads(text)) == outcome


def test_the_records_the_stages_have_always_written_read_as_outcomes():
    """Done-records as the study writes them (keys spelt as in a results folder), a fine-tuning record from
    before dev_score, epochs_run and data were kept among them."""
    assert ModelBuilt.from_json({"model": "control/a/random_init"}) == ModelBuilt("control/a/random_init")
    old = FinetuneOutcome.from_json({"metric": "F1", "score": 70.0, "predictions": None, "cost": None})
    assert old == FinetuneOutcome("F1", 70.0) and old.dev_score is None and old.data is None
    built = TokenizersBuilt.from_json(
        {"tokenizers": [{"name": "t-1k", "vocab_size": 1000, "path": "tokenizers/t-1k", "n_sentences": 9}]}
    )
    assert built.dirs(Path("/r")) == {"t-1k": Path("/r/tokenizers/t-1k")}
    assert ModelBuilt("m").to_json() == {"model": "m"}  # a control's record has no cost, as it never had


def _built(work: Path, inputs: dict) -> TokenizersBuilt:
    return TokenizersBuilt((BuiltTokenizer("t-1k", 1000, "tokenizers/t-1k", len(inputs)),))


def _model(work: Path, inputs: dict) -> ModelBuilt:
    return ModelBuilt(str(inputs["tok"].dirs(Path("root"))["t-1k"]))


def test_a_reused_stage_hands_back_the_typed_value_and_its_dependants_get_it(tmp_path):
    stages = [Stage("tok", {"v": 1}, _built, codec=TokenizersBuilt), Stage("m", {}, _model, ("tok",), ModelBuilt)]
    first = StageRunner(tmp_path, log=lambda m: None).run_many(stages)
    record = json.loads((tmp_path / ".stages" / "tok.json").read_text())
    assert record["outputs"] == first[0].to_json()  # the record holds the codec's JSON
    again = StageRunner(tmp_path, log=lambda m: None)
    assert again.run_many(stages) == first and again.skipped == ["tok", "m"]
    assert first[1] == ModelBuilt("root/tokenizers/t-1k")


def test_config_json_is_whole_or_not_written(tmp_path, monkeypatch):
    """A write that fails half-way (a full disk) leaves the results folder's previous config.json as it was."""
    from tests.study.fake_backend import FakeBackend
    from tokstudy.study.config import load_study_config
    from tokstudy.study.pipeline import run_study

    config = load_study_config(Path(__file__).with_name("tiny_study.yaml"), output_dir=str(tmp_path))
    previous = json.dumps(config.to_dict(), indent=2)
    (tmp_path / "config.json").write_text(previous)

    def half_then_full(self, text, *args, **kwargs):
        with open(self, "w", encoding="utf-8") as fh:
            fh.write(text[: len(text) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_then_full)
    with pytest.raises(OSError):
        run_study(config, backend=FakeBackend(), log=lambda m: None, progress=False)
    monkeypatch.undo()
    assert (tmp_path / "config.json").read_text() == previous


def test_a_model_stage_takes_its_tokenizer_from_the_tokenizers_stage(tmp_path):
    """The control's body reads its tokenizer's folder from the outcome of the stage it depends on."""
    from tests.study.fake_backend import FakeBackend
    from tokstudy.study.config import StudyConfig
    from tokstudy.study.outcomes import TOKENIZERS
    from tokstudy.study.stage_bodies import control_stage

    built = TokenizersBuilt(
        (BuiltTokenizer("a-1k", 1000, "tokenizers/a-1k", 5), BuiltTokenizer("a-2k", 2000, "tokenizers/a-2k", 5))
    )
    backend = FakeBackend()
    work = tmp_path / "control" / "a-2k"
    got = control_stage(
        work, {TOKENIZERS: built}, root=tmp_path, tokenizer="a-2k", backend=backend, config=StudyConfig()
    )
    assert backend.calls == [("untrained_model", "a-2k")]
    assert got == ModelBuilt("control/a-2k/random_init") and got.path(tmp_path).is_dir()
