"""Which words a figure covers: the subsets (NE, non-NE, all words) and the groupings (entity type, position, ...).

A :class:`Grouping` is built eagerly, once per table, from the table's columns: row codes ``0..k-1`` (one
figure per group), ``-1`` leaves a row out, and no codes at all means every row. The statistics
(:mod:`tokstudy.analysis.stats.segmentation`, :mod:`tokstudy.analysis.stats.intrinsic_table`) ask a
:class:`Groupings` for them by name, so each is computed once however many tokenizers use it.

>>> from tokstudy.data.types import Dataset, Sentence
>>> from tokstudy.analysis.table import build_word_columns
>>> t = build_word_columns([Dataset((Sentence(("EU", "rejects", "it"), ("B-ORG", "O", "O")),), "demo", "en", "test")])
>>> g = Groupings.of(t, [("position", "all")])
>>> g.subsets["ne"].codes.tolist(), g.by[("position", "all")].groups
([0, -1, -1], ('O', 'B', 'I'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from tokstudy.analysis.table import POSITION_NAMES, SegmentationTable

#: the sets of words every statistic is given for: inside gold entities, labelled outside them, every word.
SUBSETS = ("ne", "non_ne", "all")
#: what a figure can be broken down by.
GROUPINGS = ("entity_type", "position", "language", "dataset", "split")


@dataclass(frozen=True, eq=False)
class Grouping:
    """The rows each group of a breakdown covers.

    Attributes:
        name: what the rows are grouped by (``"subset"``, ``"entity_type"``, ``"entity_type (ne)"`` ...);
            one name, one set of codes.
        groups: the groups, in code order.
        codes: ``int64`` group of each row, ``-1`` to leave it out; ``None`` for every row in one group.
    """

    name: str
    groups: tuple[str, ...]
    codes: np.ndarray | None


def subset_mask(table: SegmentationTable, subset: str) -> np.ndarray:
    """Boolean row mask of ``"ne"``, ``"non_ne"`` or ``"all"`` words."""
    if subset == "ne":
        return table.inside
    if subset == "non_ne":
        return table.labelled & ~table.inside
    if subset == "all":
        return np.ones(len(table), dtype=bool)
    raise ValueError(f"unknown subset {subset!r}; expected one of {SUBSETS}")


def subset_grouping(table: SegmentationTable, subset: str) -> Grouping:
    """The words of one subset as a one-group grouping named ``"subset"`` (no codes for ``"all"``)."""
    if subset == "all":
        return Grouping("subset", ("all",), None)
    return Grouping("subset", (subset,), np.where(subset_mask(table, subset), 0, -1).astype(np.int64))


def group_codes(table: SegmentationTable, by: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """Row codes and group names for a grouping in :data:`GROUPINGS`."""
    if by == "entity_type":
        return table.entity_type_code.astype(np.int64), table.entity_types
    if by == "position":
        return table.position.astype(np.int64), POSITION_NAMES
    if by == "language":
        return table.language_code.astype(np.int64), table.languages
    if by == "dataset":
        return table.dataset_code.astype(np.int64), table.datasets
    if by == "split":
        return table.split_code.astype(np.int64), table.splits
    raise ValueError(f"unknown grouping {by!r}; expected one of {GROUPINGS}")


def grouping_by(table: SegmentationTable, by: str, subset: str = "all") -> Grouping:
    """The words of ``subset`` grouped by ``by`` (named ``by``, or ``"by (subset)"`` for a subset of the words)."""
    codes, names = group_codes(table, by)
    if subset != "all":
        codes = np.where(subset_mask(table, subset), codes, -1)
    return Grouping(by if subset == "all" else f"{by} ({subset})", tuple(names), codes)


@dataclass(frozen=True)
class Groupings:
    """The groupings one computation needs, each built once from the table.

    Attributes:
        subsets: the one-group grouping of each of :data:`SUBSETS`.
        by: ``(by, subset) -> ``:func:`grouping_by` of it, for the pairs asked for.
    """

    subsets: dict[str, Grouping]
    by: dict[tuple[str, str], Grouping]

    @classmethod
    def of(cls, table: SegmentationTable, by: Iterable[tuple[str, str]] = ()) -> "Groupings":
        """The subsets and the ``(by, subset)`` groupings of ``table``."""
        return cls(
            {s: subset_grouping(table, s) for s in SUBSETS},
            {(b, s): grouping_by(table, b, s) for b, s in dict.fromkeys(by)},
        )


def default_groupings(table: SegmentationTable) -> list[str]:
    """Entity type and position, plus language and dataset when the table has several."""
    return (
        ["entity_type", "position"]
        + (["language"] if len(table.languages) > 1 else [])
        + (["dataset"] if len(table.datasets) > 1 else [])
    )
