"""A verdict over several cases: yes / no (opposite direction) / mixed / undecided, always with its counts.

A claim such as "segmentation predicts errors beyond frequency" is tested once per case (per
model and tokenizer, per step between two vocabulary sizes, ...). Each case comes out *yes* (its
interval, or Welch's test, is on the claim's side), *no (opposite direction)* (it is significantly on
the other side: fewer errors with more pieces, a score that falls), *undecided* (the interval holds
the null value, one seed allows no test, or its tests disagree) or *no fit* (nothing could be
estimated). The verdict over the cases is:

* **yes** when every case that could be tested is a yes, **no (opposite direction)** when every one is;
* **undecided** when none of them is decided (or nothing could be tested);
* **mixed** otherwise: some cases decided, not all the same way.

So a claim that holds in most cases and is undecided in one is *mixed*, never *no*: "no" is kept for
evidence against the claim, and says which evidence: an effect in the opposite direction, not the
absence of one (that is *undecided*). The counts always go with the word, so a reader sees how many
cases each answer came from.

>>> v = Verdict.tally([True] * 5 + [None] + [NO_FIT] * 3)
>>> v.word, v.counts()
('mixed', 'yes in 5 of 9, undecided in 1, no fit in 3')
>>> Verdict.tally([True, True]).markdown()
'**yes** (yes in 2 of 2)'
>>> Verdict.tally([False, None]).counts()
'no (opposite direction) in 1 of 2, undecided in 1'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

#: the outcome of a case where nothing could be estimated (a fit that failed, an undefined r)
NO_FIT = "no fit"
#: the word of a case (and of a verdict) significantly against the claim: an effect the other way, which
#: "no" alone would not tell from the absence of an effect
OPPOSITE = "no (opposite direction)"


def outcome_word(outcome: bool | None | str) -> str:
    """``True`` -> ``"yes"``, ``False`` -> :data:`OPPOSITE`, ``None`` -> ``"undecided"``, :data:`NO_FIT` as is."""
    return {True: "yes", False: OPPOSITE, None: "undecided"}.get(outcome, NO_FIT)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Verdict:
    """How many cases came out each way (see the module docstring for the rule)."""

    yes: int = 0
    """Cases on the claim's side (e.g. an interval above 1)."""
    no: int = 0
    """Cases on the other side, significantly (an interval below 1): :data:`OPPOSITE`."""
    undecided: int = 0
    """Cases whose interval holds the null value, or that allow no test (one seed)."""
    no_fit: int = 0
    """Cases where nothing could be estimated."""

    def __post_init__(self) -> None:
        if min(self.yes, self.no, self.undecided, self.no_fit) < 0:
            raise ValueError(f"negative count in {self}")

    @classmethod
    def tally(cls, outcomes: Iterable[bool | None | str]) -> "Verdict":
        """Count outcomes: ``True`` yes, ``False`` no, ``None`` undecided, :data:`NO_FIT` no fit."""
        words = [outcome_word(o) for o in outcomes]
        return cls(words.count("yes"), words.count(OPPOSITE), words.count("undecided"), words.count(NO_FIT))

    @property
    def total(self) -> int:
        return self.yes + self.no + self.undecided + self.no_fit

    @property
    def word(self) -> str:
        """``"yes"``, ``"no (opposite direction)"``, ``"mixed"`` or ``"undecided"``."""
        tested = self.yes + self.no + self.undecided
        if tested and self.yes == tested:
            return "yes"
        if tested and self.no == tested:
            return OPPOSITE
        if self.yes == 0 and self.no == 0:
            return "undecided"
        return "mixed"

    @property
    def holds(self) -> bool | None:
        """``True`` for yes, ``False`` for no (opposite direction), ``None`` for mixed or undecided."""
        return {"yes": True, OPPOSITE: False}.get(self.word)

    def counts(self) -> str:
        """``"yes in 5 of 9, undecided in 1, no fit in 3"``: the largest answer first, with the total."""
        parts = [(n, w) for n, w in ((self.yes, "yes"), (self.no, OPPOSITE), (self.undecided, "undecided")) if n]
        parts.sort(key=lambda p: -p[0])
        if self.no_fit:
            parts.append((self.no_fit, NO_FIT))
        if not parts:
            return "no case"
        (n, w), rest = parts[0], parts[1:]
        return ", ".join([f"{w} in {n} of {self.total}"] + [f"{w2} in {n2}" for n2, w2 in rest])

    def markdown(self) -> str:
        """``"**mixed** (yes in 5 of 9, undecided in 1, no fit in 3)"``."""
        return f"**{self.word}** ({self.counts()})"
