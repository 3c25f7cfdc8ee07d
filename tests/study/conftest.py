"""What the study's tests on real data share: the tiny configuration, and its variant for the tests that kill a run."""

from __future__ import annotations

from pathlib import Path

import yaml

TINY = Path(__file__).with_name("tiny_study.yaml")


def tiny_config() -> dict:
    """``tiny_study.yaml`` as a dict, for a test to change before it writes its own copy."""
    return yaml.safe_load(TINY.read_text())


def killable_config(name: str) -> dict:
    """The tiny study for the tests that kill a run during pre-training and let it finish: a pre-training long
    enough to be killed after a checkpoint, on two vocabularies (one per worker of a ``local:2`` cluster), and the
    least after it that still makes a report: one seed of CoNLL-2003 NER, no control, analysed on its test split
    without the parity corpus.
    What follows pre-training at full size is tested by test_pipeline.py's shared run."""
    config = tiny_config()
    config["name"] = name
    config["tokenizers"]["vocab_sizes"] = [500, 1000]
    config["pretrain"]["steps"] = 40
    config["finetune"].update(no_pretraining_control=False, seeds=1)
    config["finetune"]["tasks"] = [{"dataset": "conll2003", "task": "ner", "max_train": 60, "max_eval": 40}]
    config["analysis"].update(datasets=["conll2003:test"], parity_corpus=None)
    return config
