"""The verdict over cases: yes / no (opposite direction) / mixed / undecided, always with its counts."""

from __future__ import annotations

import pytest

from tokstudy.report.verdict import NO_FIT, OPPOSITE, Verdict, outcome_word


@pytest.mark.parametrize(
    "outcomes, word, counts",
    [
        ([True, True, True], "yes", "yes in 3 of 3"),
        ([False, False], OPPOSITE, "no (opposite direction) in 2 of 2"),
        ([True, False, False], "mixed", "no (opposite direction) in 2 of 3, yes in 1"),
        ([True] * 5 + [None] + [NO_FIT] * 3, "mixed", "yes in 5 of 9, undecided in 1, no fit in 3"),
        ([None, None], "undecided", "undecided in 2 of 2"),
        ([True, NO_FIT], "yes", "yes in 1 of 2, no fit in 1"),
        ([NO_FIT], "undecided", "no fit in 1 of 1"),
        ([], "undecided", "no case"),
    ],
)
def test_verdict_word_and_counts(outcomes, word, counts):
    v = Verdict.tally(outcomes)
    assert (v.word, v.counts()) == (word, counts)
    assert v.markdown() == f"**{word}** ({counts})"
    assert v.holds == {"yes": True, OPPOSITE: False}.get(word)


def test_not_everywhere_is_never_no():
    """A claim that holds in most cases and is undecided in the rest is not answered "no"."""
    for undecided in range(1, 4):
        assert Verdict.tally([True] * 3 + [None] * undecided).word == "mixed"


def test_negative_counts_are_refused():
    with pytest.raises(ValueError):
        Verdict(yes=-1)


def test_a_case_against_the_claim_says_which_way():
    """ "no" alone reads as "no effect"; a case significantly the other way says so."""
    assert outcome_word(False) == OPPOSITE == "no (opposite direction)"
    assert Verdict.tally([False]).markdown() == "**no (opposite direction)** (no (opposite direction) in 1 of 1)"
    assert [outcome_word(o) for o in (True, None, NO_FIT)] == ["yes", "undecided", "no fit"]
