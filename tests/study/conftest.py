"""What the study's tests on real data share: the tiny configuration, its tokenizers learnt from a small sample."""

from __future__ import annotations

from pathlib import Path

import yaml

TINY = Path(__file__).with_name("tiny_study.yaml")
#: sentences the tokenizers learn from in the tests that run the real pre-trainer, instead of the tiny
#: configuration's 20,000: training on those was half of such a run's time (about 30 s of a 50 s ``--jobs 1`` run
#: on 2 cores), and none of these tests depends on the sample's size; the largest vocabulary (2,000 pieces) still
#: has text to spare
TOKENIZER_SAMPLE = 4000


def tiny_config() -> dict:
    """``tiny_study.yaml`` as a dict, with tokenizers learnt from :data:`TOKENIZER_SAMPLE` sentences."""
    config = yaml.safe_load(TINY.read_text())
    config["tokenizers"]["sample_size"] = TOKENIZER_SAMPLE
    return config
