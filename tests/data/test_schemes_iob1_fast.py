"""The IOB1 fast path of ``to_iob2`` gives what the full conversion gives, and leaves every tag it
would report or repair to it."""

from __future__ import annotations

import random

import pytest

from tokstudy.data import schemes
from tokstudy.errors import TagSchemeError

TAGS = ["O", "O", "O", "I-PER", "I-LOC", "B-PER", "B-LOC", "I-", "X-PER", "B", "E-LOC", "S-PER"]


def _full(tags, lenient, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(schemes, "_valid_iob1_to_iob2", lambda tags: None)
        try:
            return schemes.to_iob2(tags, "IOB1", lenient=lenient)
        except TagSchemeError as exc:
            return str(exc)


@pytest.mark.parametrize("lenient", [False, True])
def test_fast_path_equals_the_full_conversion_on_random_sequences(lenient, monkeypatch):
    rng = random.Random(0)
    fast_used = 0
    for _ in range(3000):
        tags = [rng.choice(TAGS) for _ in range(rng.randint(0, 8))]
        try:
            got = schemes.to_iob2(tags, "IOB1", lenient=lenient)
        except TagSchemeError as exc:
            got = str(exc)
        assert got == _full(tags, lenient, monkeypatch), tags
        fast_used += schemes._valid_iob1_to_iob2(tags) is not None
    assert fast_used > 300  # the fast path was exercised, not only the fallback


def test_fast_path_converts_conll2003_style_tags():
    assert schemes._valid_iob1_to_iob2(["I-ORG", "I-ORG", "O", "I-PER", "B-PER", "I-LOC"]) == (
        "B-ORG",
        "I-ORG",
        "O",
        "B-PER",
        "B-PER",
        "B-LOC",
    )
    assert schemes._valid_iob1_to_iob2(["O", "B-PER"]) is None  # a forbidden B-: the full path reports it
