"""Per-word segmentation analysis, one subpackage per concept (each imports only the ones above it)::

    table/         the per-word table every statistic derives from: segmentation_table, SegmentationTable
    stats/         statistics over the table with sentence-bootstrap intervals (Table 4, summaries,
                   breakdowns, intrinsic metrics), parity on parallel text, scores over seeds
    model_errors/  a fine-tuned model's predictions aligned to the table: error correlation, attribution
    corpus/        statistics of raw-text corpora bigger than memory: corpus_stats

Start with :func:`tokstudy.analysis.table.segmentation_table`; every statistic in
:mod:`~tokstudy.analysis.stats`, :mod:`~tokstudy.analysis.model_errors.correlation` and
:mod:`~tokstudy.report` derives from the table it returns. Input specs (``conll2003:test``,
``NAME=PATH``) are turned into datasets and tokenizers by :mod:`tokstudy.inputs`. See ``docs/analysis.md``.
"""
