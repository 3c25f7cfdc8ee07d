"""One rule decides each attribution case from every test the section shows.

Two cases read against their own tables are built here from the numbers printed in
``examples/cpu_report/report.md`` (adjusted odds ratio, partial r and its p, odds ratios by pieces), and
checked against the committed ``tables/attribution.json`` they were printed from.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.report.attribution import RULE, attribution_finding, attribution_section, case_outcome, case_tests
from tokstudy.report.attribution_rows import AttributionRow, RatioCells
from tokstudy.report.verdict import NO_FIT, OPPOSITE, outcome_word

TABLES = PROJECT_ROOT / "examples" / "cpu_report" / "tables"


def row(adjusted, partial=None, pieces=None, *, model="m", tokenizer="t", confidence=0.95) -> AttributionRow:
    """An attribution row: ``adjusted`` = (OR, low, high), ``partial`` = (r, p), ``pieces`` = {level: (OR, lo, hi)};
    what the rule does not read is left empty."""
    r, p = partial if partial is not None else (None, None)
    return AttributionRow(
        tokenizer,
        model,
        "d",
        RatioCells(*adjusted),
        None,
        RatioCells(1.5, 1.4, 1.6),
        None,
        {level: RatioCells(*cells) for level, cells in (pieces or {}).items()},
        r,
        p,
        0,
        0,
        0,
        "",
        None,
        confidence,
        "",
        "",
    )


# the rows as examples/cpu_report/report.md prints them (attribution table and odds ratios by pieces)
CONLL2002_ES_8K = row(
    (1.009, 0.936, 1.087),
    (-0.010, 0.02),
    {"2": (0.285, 0.194, 0.421), "3": (0.266, 0.183, 0.387), "4+": (0.303, 0.200, 0.458)},
    model="conll2002_es-ner",
    tokenizer="sp-unigram-8k",
)
CONLL2003_8K = row(
    (1.060, 1.012, 1.110),
    (0.005, 0.31),
    {"2": (1.006, 0.811, 1.247), "3": (1.344, 1.073, 1.684), "4+": (1.234, 0.970, 1.569)},
    model="conll2003-ner",
    tokenizer="sp-unigram-8k",
)
CONLL2003_16K = row(
    (1.058, 1.011, 1.107),
    (0.005, 0.25),
    {"2": (1.186, 1.017, 1.382), "3": (1.488, 1.252, 1.768), "4+": (1.345, 1.107, 1.635)},
    model="conll2003-ner",
    tokenizer="sp-unigram-16k",
)


def test_a_significant_negative_association_is_no_opposite_direction():
    """conll2002_es at 8k: the adjusted OR holds 1, but r < 0 (p = 0.02) and every OR by pieces is below 1."""
    assert case_tests(CONLL2002_ES_8K) == {"adjusted OR": set(), "partial r": {"down"}, "OR by pieces": {"down"}}
    assert case_outcome(CONLL2002_ES_8K) is False and outcome_word(False) == OPPOSITE
    _, text = attribution_finding([CONLL2002_ES_8K])
    assert "no (opposite direction) (down: partial r, OR by pieces)" in text and "partial r -0.010 (p = 0.02)" in text


@pytest.mark.parametrize("case", [CONLL2003_8K, CONLL2003_16K], ids=["8k", "16k"])
def test_an_interval_above_one_with_a_partial_r_not_significant_is_undecided(case):
    """CoNLL-2003 at 8k and 16k: OR above 1 but partial r p = 0.31 / 0.25: not yes."""
    assert case_tests(case)["adjusted OR"] == {"up"} and case_tests(case)["partial r"] == set()
    assert case_outcome(case) is None
    assert "undecided (not significant: partial r)" in attribution_finding([case])[1]


def test_the_rows_as_printed_are_the_committed_rows():
    """The cases above, typed from the report, are decided as the committed attribution.json's rows are."""
    data = json.loads((TABLES / "attribution.json").read_text(encoding="utf-8"))["attribution"]
    rows = [AttributionRow.from_json(r) for r in data]
    by = {(r.model, r.tokenizer): r for r in rows}
    for case in (CONLL2002_ES_8K, CONLL2003_8K, CONLL2003_16K):
        committed = by[(case.model, case.tokenizer)]
        assert case_tests(committed) == case_tests(case)
        assert case_outcome(committed) == case_outcome(case)
    verdict, _ = attribution_finding(rows)
    assert verdict.markdown() == (
        "**mixed** (yes in 3 of 9, undecided in 2, no (opposite direction) in 1, no fit in 3)"
    )


UP, FLAT, DOWN = (1.2, 1.1, 1.3), (1.0, 0.9, 1.1), (0.8, 0.7, 0.9)


@pytest.mark.parametrize(
    "case, outcome",
    [
        (row(UP, (0.03, 1e-5), {"2": FLAT, "3": UP}), True),  # every test up
        (row(UP), True),  # the adjusted OR is the only test the row holds
        (row(UP, (0.03, 1e-5)), True),
        (row(DOWN), False),  # an interval below 1 alone
        (row(FLAT, (-0.02, 1e-3)), False),  # only the partial r, down
        (row(FLAT, None, {"4+": DOWN}), False),  # only an OR by pieces, down
        (row(FLAT, (0.01, 0.4), {"2": FLAT}), None),  # nothing significant
        (row(UP, (0.03, 1e-5), {"2": DOWN}), None),  # tests pointing both ways
        (row(UP, (0.03, 1e-5), {"2": UP, "3": DOWN}), None),  # ORs by pieces pointing both ways
        (row(DOWN, (0.03, 1e-5)), None),  # adjusted down, r up
        (row(UP, (0.03, 0.04), confidence=0.99), None),  # p = 0.04 is not significant at 99 %
        (row(UP, (0.03, 0.04)), True),  # ... and is at 95 %
        (row(UP, (0.0, 1e-9)), None),  # r = 0 points nowhere
        (row((1.2, float("nan"), float("nan")), (0.03, 1e-5)), None),  # no interval: undecided
        (row((None, None, None), (0.03, 1e-5)), NO_FIT),  # no adjusted fit: no fit, whatever r says
        (row(UP, (None, None), {"2": (None, None, None)}), True),  # tests without numbers are left out
    ],
)
def test_synthetic_cases(case, outcome):
    assert case_outcome(case) == outcome


def test_each_case_says_what_kept_it_from_yes():
    _, text = attribution_finding(
        [
            row(UP, (0.03, 1e-5), {"2": UP, "3": DOWN}, tokenizer="a"),
            row(UP, (0.01, 0.3), {"2": DOWN}, tokenizer="b"),
            row(UP, (0.03, 1e-5), tokenizer="c"),
        ]
    )
    assert "m / a: " in text and "partial r 0.030 (p = 1e-05): undecided (both ways: OR by pieces)" in text
    assert "undecided (not significant: partial r; down: OR by pieces)" in text
    assert text.count(": yes") == 1


def test_the_verdict_over_cases_names_the_opposite_direction():
    verdict, text = attribution_finding([row(DOWN), row(FLAT, (-0.02, 1e-3))])
    assert verdict.markdown() == "**no (opposite direction)** (no (opposite direction) in 2 of 2)"
    assert verdict.holds is False
    assert attribution_finding([row(UP), row(DOWN)])[0].word == "mixed"


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_the_rule_is_stated_in_the_section_and_in_the_docs():
    extra = {"covariates": "length_chars", "n_words": 1, "n_errors": 1, "p_adjusted": 0.013}
    section = attribution_section([replace(CONLL2003_8K, **extra)])
    assert RULE in section
    docs = (PROJECT_ROOT / "docs" / "analysis.md").read_text(encoding="utf-8")
    assert _words(RULE.replace("**", "")) in _words(docs.replace("**", "").replace("> ", ""))
