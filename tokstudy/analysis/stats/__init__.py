"""Statistics with sentence-bootstrap intervals: segmentation over the per-word table, intrinsic metrics, parity, seeds.

Where each part lives (each imports only the ones above it)::

    estimates.py        the results: frozen dataclasses, one per kind of figure (Estimate, ...)
    bootstrap.py        per-sentence sums, resample weights, percentile intervals
    groupings.py        which words a figure covers: SUBSETS, GROUPINGS, Grouping, Groupings
    ratio_batch.py      RatioBatch: many ratio figures, each named by a FigureKey, one bootstrap pass
    intrinsic.py        entropy, Rényi efficiency, vocabulary use of a piece-count vector
    intrinsic_table.py  the intrinsic metrics over the table, per tokenizer and group
    segmentation.py     Table 4, the summaries, the breakdowns (per group and subset): table_statistics and its parts
    per_language.py     Table 4 per dataset and language, the script of each
    shredded.py         the words a tokenizer shreds most, against a second one
    parity.py           tokenizer parity on parallel text
    welch.py            scores over seeds: mean ± std, Welch's t-test

The names below are the statistics' public API (``from tokstudy.analysis.stats import table_statistics``).
"""

from tokstudy.analysis.stats.estimates import (
    AdditionalSegmentation,
    BootstrapSettings,
    Estimate,
    GroupedEstimates,
    SegmentationSummary,
    SubsetSummary,
    TableStatistics,
)
from tokstudy.analysis.stats.groupings import GROUPINGS, SUBSETS, default_groupings, group_codes, subset_mask
from tokstudy.analysis.stats.segmentation import (
    additional_segmentation,
    additional_segmentation_by,
    compare_tokenizers,
    segmentation_summary,
    table_statistics,
)

__all__ = [
    "GROUPINGS",
    "SUBSETS",
    "AdditionalSegmentation",
    "BootstrapSettings",
    "Estimate",
    "GroupedEstimates",
    "SegmentationSummary",
    "SubsetSummary",
    "TableStatistics",
    "additional_segmentation",
    "additional_segmentation_by",
    "compare_tokenizers",
    "default_groupings",
    "group_codes",
    "segmentation_summary",
    "subset_mask",
    "table_statistics",
]
