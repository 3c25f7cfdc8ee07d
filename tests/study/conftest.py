"""What the study's tests on real data share: the tiny configuration, and its variant for the tests that kill a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

TINY = Path(__file__).with_name("tiny_study.yaml")


def tiny_config() -> dict:
    """``tiny_study.yaml`` as a dict, for a test to change before it writes its own copy."""
    return yaml.safe_load(TINY.read_text())


def killable_config(name: str) -> dict:
    """The tiny study for the tests that kill a run during pre-training and let it finish: a pre-training long
    enough to be killed after a checkpoint, on two vocabularies (one per worker of a ``local:2`` cluster) learnt from
    a quarter of the tiny study's sample (enough for 1,000 pieces; the tokenizers' time grows with the sample, and
    the killed run and its reference both train them), and the least after it that still makes a report: one seed
    of CoNLL-2003 NER, no control, analysed on its test split without the parity corpus.
    What follows pre-training at full size is tested by test_pipeline.py's shared run."""
    config = tiny_config()
    config["name"] = name
    config["tokenizers"].update(vocab_sizes=[500, 1000], sample_size=1000)
    config["pretrain"]["total_steps"] = 40
    config["finetune"].update(no_pretraining_control=False, seeds=1)
    config["finetune"]["tasks"] = [{"dataset": "conll2003", "task": "ner", "max_train": 60, "max_eval": 40}]
    config["analysis"].update(datasets=["conll2003:test"], parity_corpus=None)
    return config


def assert_retried_cost(out: Path, *, killed_at: float) -> str:
    """The one pre-training of the study in ``out`` whose attempt was killed at ``killed_at`` (``time.time()``):
    its cost in ``tables/cost.json`` counts two attempts, the pre-trainer's own record of the one that finished
    plus the killed one's time as its last record gives it (within the record's interval, and a second's slack for
    a loaded machine); the report says so. Returns the tokenizer's name."""
    from tokstudy.study.attempts import AttemptEnd, interval
    from tokstudy.study.stages import StageRunner

    costs = json.loads((out / "tables" / "cost.json").read_text())["pretrain"]
    retried = [name for name, cost in costs.items() if "attempts" in cost]
    assert len(retried) == 1, costs
    name = retried[0]
    cost = costs[name]
    lost, finished = StageRunner(out, log=lambda m: None).attempts(f"pretrain/{name}")
    assert (lost.end, finished.end) == (AttemptEnd.LOST, AttemptEnd.RETURNED)
    ran = killed_at - lost.started
    assert 0 < ran - interval(ran) - 1.0 <= lost.seconds <= ran
    trainer = json.loads((out / "pretrain" / name / "run" / "cost.json").read_text())["total"]
    assert cost["attempts"] == 2 and cost["lost_seconds"] == lost.seconds
    assert cost["wall_seconds"] == pytest.approx(trainer["wall_seconds"] + lost.seconds)
    assert "(2 attempts)" in (out / "report.md").read_text()
    return name
