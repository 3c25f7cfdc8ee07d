"""Additional segmentation per group *and* subset of words, every figure in one bootstrap pass.

:func:`~tokstudy.analysis.stats.table_statistics` breaks every word down by entity type,
language, dataset, ...; a study also wants the breakdown of NE and non-NE words apart (Table 4
per language). :func:`breakdowns` plans all of them into one
:class:`~tokstudy.analysis.stats.ratio_batch.RatioBatch` with the planner of
:mod:`tokstudy.analysis.stats.segmentation` (one implementation of a grouped figure), so one set of
resamples serves every (grouping, subset, tokenizer); each result equals
:func:`~tokstudy.analysis.stats.additional_segmentation_by` with the same arguments.

>>> # by = breakdowns(table, ["sp8k", "sp32k"], groupings=["language"], subsets=["ne", "non_ne"])
>>> # [(g.tokenizer, g.subset, g.groups["ru"].value) for g in by["language"]]
"""

from __future__ import annotations

from typing import Sequence

from tokstudy.analysis.stats.estimates import BootstrapSettings, GroupedEstimates
from tokstudy.analysis.stats.groupings import SUBSETS, Groupings
from tokstudy.analysis.stats.ratio_batch import RatioBatch
from tokstudy.analysis.stats.segmentation import GroupedPlan
from tokstudy.analysis.table import SegmentationTable


def breakdowns(
    table: SegmentationTable,
    tokenizers: Sequence[str] | None = None,
    *,
    groupings: Sequence[str],
    subsets: Sequence[str] = SUBSETS,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, list[GroupedEstimates]]:
    """``{grouping: [GroupedEstimates per tokenizer, then per subset]}``, bootstrapped together.

    ``groupings`` are names of :data:`~tokstudy.analysis.stats.groupings.GROUPINGS`; ``subsets`` of
    :data:`~tokstudy.analysis.stats.groupings.SUBSETS` (``"ne"``, ``"non_ne"``, ``"all"``).
    """
    names = list(tokenizers or table.tokenizer_names)
    settings = BootstrapSettings(n_resamples, confidence, seed)
    batch = RatioBatch(table, settings)
    groups = Groupings.of(table, [(g, s) for g in groupings for s in subsets])
    plans = {
        g: [GroupedPlan.register(batch, groups, table, t, g, s) for t in names for s in subsets] for g in groupings
    }
    est = batch.run()
    return {g: [p.result(est, settings) for p in ps] for g, ps in plans.items()}
