"""The attribution section: odds ratios per extra piece as Markdown, a finding, the matched view.

One place for the section's content, used by ``tokstudy attribute``, ``tokstudy report``
and the study's report (which writes the rows as JSON and reads them back). Every function
takes the typed rows of :mod:`tokstudy.report.attribution_rows`, so the same text comes out
of a live result and of a JSON file.

>>> from tokstudy.report.attribution_rows import RatioCells
>>> up = RatioCells(1.2, 1.1, 1.3)
>>> row = AttributionRow("sp32k", "ner", "conll2003:test", up, 1e-5, RatioCells(1.6, 1.5, 1.7), 1e-9, {},
...                      0.05, 1e-4, 1000, 100, 40, "length_chars", None, 0.95, "none", "")
>>> attribution_finding([row])[0].markdown()
'**yes** (yes in 1 of 1)'
"""

from __future__ import annotations

import math
from typing import Sequence

from tokstudy.report.attribution_rows import PIECE_LEVELS, AttributionRow, FrequencyRow
from tokstudy.report.numbers import format_p
from tokstudy.report.tables import markdown_table
from tokstudy.report.verdict import NO_FIT, Verdict, outcome_word

#: the finding the report states, decided by :func:`attribution_finding`.
CLAIM = "Segmentation predicts errors beyond frequency, entity status and length:"


def attribution_markdown(rows: Sequence[AttributionRow]) -> str:
    """Table: OR per extra piece adjusted and not, partial r, words, per tokenizer and model."""
    out = []
    for r in rows:
        out.append(
            {
                "model": r.model,
                "tokenizer": r.tokenizer,
                "OR per extra piece (adjusted)": r.adjusted.text(),
                "p": format_p(r.p_adjusted),
                "OR (unadjusted)": r.unadjusted.text(),
                "partial r": "–" if r.partial_r is None else f"{r.partial_r:.3f}",
                "partial p": format_p(r.partial_p),
                "words": r.n_words,
                "errors": r.n_errors,
            }
        )
    return markdown_table(out)


def by_pieces_markdown(rows: Sequence[AttributionRow]) -> str:
    """Adjusted odds ratios of 2, 3, 4+ pieces against one piece."""
    levels = [lv for lv in PIECE_LEVELS if any(lv in r.by_pieces for r in rows)]
    out = [
        {
            "model": r.model,
            "tokenizer": r.tokenizer,
            **{f"{lv} pieces vs 1": r.by_pieces[lv].text() if lv in r.by_pieces else "–" for lv in levels},
        }
        for r in rows
    ]
    return markdown_table(out)


def _pieces(n) -> str:
    """A column header: ``"1 piece"``, ``"2 pieces"``, ``"4+ pieces"``."""
    return f"{n} piece" if str(n) == "1" else f"{n} pieces"


def frequency_markdown(cells: Sequence[FrequencyRow]) -> str:
    """Error rate % (words) by pieces across, training-frequency bins down, per tokenizer and model."""
    table: dict = {}
    for c in cells:
        rate = "–" if c.error_rate is None else f"{100 * c.error_rate:.1f} ({c.n})"
        table.setdefault((c.model, c.tokenizer, c.train_frequency), {})[c.pieces] = rate
    out = [
        {"model": m, "tokenizer": t, "seen in training": f, **{_pieces(p): v for p, v in by.items()}}
        for (m, t, f), by in table.items()
    ]
    return markdown_table(out)


#: how one case (a model and tokenizer) is decided, stated in the section and in docs/analysis.md.
RULE = (
    "Each model and tokenizer is one case, decided by every test this section shows: the adjusted odds ratio "
    "per extra piece, the partial r, and the adjusted odds ratios of 2, 3 and 4+ pieces against one. A test "
    "points up when it shows more errors with more pieces (an odds ratio's interval above 1; a partial r above "
    "0 with p below 1 minus the confidence level, 0.05 at 95 %) and down when it shows fewer (an interval below "
    "1; a partial r below 0 with such a p); the odds ratios by pieces point up when one of their intervals lies "
    "above 1 and down when one lies below 1 (both, when both). A case is **yes** when every test shown points "
    "up and none down; **no (opposite direction)** when at least one points down and none up; **undecided** "
    "otherwise (a test not significant, or tests pointing both ways); **no fit** when the adjusted regression "
    "could not be fitted. A test the rows do not hold is left out."
)

UP, DOWN = "up", "down"


def _interval_direction(low, high) -> set[str]:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return set()
    return {UP} if low > 1 else {DOWN} if high < 1 else set()


def case_tests(row: AttributionRow) -> dict[str, set[str]]:
    """Where each test the row holds points: ``{"adjusted OR": {"up"}, "partial r": set(), ...}`` (see :data:`RULE`).

    An empty set is a test that is not significant; ``{"up", "down"}`` odds ratios by pieces pointing both ways.
    """
    tests = {"adjusted OR": _interval_direction(row.adjusted.low, row.adjusted.high)}
    r, p = row.partial_r, row.partial_p
    if r is not None and p is not None and not (math.isnan(r) or math.isnan(p)):
        alpha = 1 - row.confidence
        tests["partial r"] = set() if p >= alpha or r == 0 else {UP} if r > 0 else {DOWN}
    fitted = [row.by_pieces[lv] for lv in PIECE_LEVELS if lv in row.by_pieces and row.by_pieces[lv].value is not None]
    if fitted:
        tests["OR by pieces"] = set().union(*(_interval_direction(o.low, o.high) for o in fitted))
    return tests


def case_outcome(row: AttributionRow) -> bool | None | str:
    """One row's answer by :data:`RULE`: ``True`` yes, ``False`` no (opposite direction), ``None`` undecided,
    :data:`~tokstudy.report.verdict.NO_FIT` when the adjusted model could not be fitted."""
    if not row.fitted:
        return NO_FIT
    tests = case_tests(row).values()
    if all(t == {UP} for t in tests):
        return True
    if not any(UP in t for t in tests) and any(DOWN in t for t in tests):
        return False
    return None


def _why(row: AttributionRow) -> str:
    """What kept a case from yes: ``" (not significant: partial r)"``, ``" (down: partial r, OR by pieces)"``,
    ``" (both ways: OR by pieces)"``."""
    tests = case_tests(row)
    outcome = case_outcome(row)
    if outcome is True or outcome == NO_FIT:
        return ""
    down = [k for k, t in tests.items() if DOWN in t]
    if outcome is False:
        return f" (down: {', '.join(down)})"
    groups = (
        ("not significant", [k for k, t in tests.items() if not t]),
        ("down", [k for k, t in tests.items() if t == {DOWN}]),
        ("both ways", [k for k, t in tests.items() if t == {UP, DOWN}]),
    )
    parts = [f"{what}: {', '.join(names)}" for what, names in groups if names]
    return f" ({'; '.join(parts)})" if parts else ""


def attribution_finding(rows: Sequence[AttributionRow]) -> tuple[Verdict, str]:
    """The verdict over every row (yes / no (opposite direction) / mixed / undecided, see
    :mod:`tokstudy.report.verdict`), each row decided by :data:`RULE`, and its evidence: each fitted row's adjusted
    odds ratio with its interval, its partial r, and its own answer with what kept it from yes."""
    verdict = Verdict.tally(case_outcome(r) for r in rows)
    fitted = [r for r in rows if r.fitted]
    if not fitted:
        return verdict, "no model could be fitted."
    level = fitted[0].confidence
    parts = [
        f"{r.label()}: OR per extra piece {r.adjusted.text()} (unadjusted "
        f"{r.unadjusted.text()}){_partial(r)}: {outcome_word(case_outcome(r))}{_why(r)}"
        for r in fitted
    ]
    unfitted = [r.label() for r in rows if not r.fitted]
    tail = f"; no fit for {', '.join(unfitted)} (see the notes below)" if unfitted else ""
    return verdict, "; ".join(parts) + tail + f" ({level:.0%} CIs, standard errors clustered by sentence)."


def _partial(row: AttributionRow) -> str:
    """``", partial r -0.010 (p = 0.02)"``, or nothing when the row has none."""
    if row.partial_r is None:
        return ""
    p = format_p(row.partial_p)
    return f", partial r {row.partial_r:.3f} (p {p if p.startswith('<') else '= ' + p})"


def finding_markdown(rows: Sequence[AttributionRow]) -> str:
    verdict, text = attribution_finding(rows)
    return f"- {CLAIM} {verdict.markdown()}. {text}"


def attribution_section(
    rows: Sequence[AttributionRow], cells: Sequence[FrequencyRow] = (), *, figure: str | None = None
) -> str:
    """The whole section (Markdown body, no heading): what was fitted, the finding, the tables."""
    covs = rows[0].covariates if rows else ""
    freq = rows[0].frequency_source if rows else None
    parts = [
        "Logistic regression of 'word mislabelled' on the word's extra pieces (pieces − 1), with covariates "
        f"`{covs}`; standard errors clustered by sentence (statsmodels). The odds ratio (OR) is per extra piece; "
        "the unadjusted OR comes from the same regression without covariates, so the gap between the two is what "
        "the covariates explain. The partial r is the Pearson correlation of pieces and error after both are "
        "regressed on the covariates (its p-value treats words as independent; the odds ratios' do not). "
        + (
            f"Training frequencies counted on `{freq}`."
            if freq
            else "**No training split was given, so frequency is not among the covariates.**"
        ),
        "",
        RULE,
        "",
        finding_markdown(rows),
        "",
        attribution_markdown(rows),
        "",
        "Adjusted odds ratios by number of pieces (against one-piece words):",
        "",
        by_pieces_markdown(rows),
    ]
    notes = [f"{r.label()}: {r.note}" for r in rows if r.note]
    if notes:
        parts += ["", "Notes: " + "; ".join(notes) + "."]
    if cells:
        parts += [
            "",
            "Error rate % (words) by number of pieces within training-frequency bins (no model needed):",
            "",
            frequency_markdown(cells),
        ]
    if figure:
        parts += ["", f"![odds ratios]({figure})"]
    return "\n".join(parts)
