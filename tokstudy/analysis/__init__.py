"""Per-word segmentation analysis: the table, statistics with bootstrap CIs, error correlation, parity, streaming.

Start with :func:`tokstudy.analysis.table.segmentation_table`; every statistic in
:mod:`~tokstudy.analysis.stats`, :mod:`~tokstudy.analysis.model_errors.correlation` and
:mod:`~tokstudy.report` derives from the table it returns. See ``docs/analysis.md``.
"""
