"""The per-word segmentation table: one row per word, every statistic derives from it.

Where each part lives (each imports only the ones above it)::

    columns.py    TokenizerColumns (one tokenizer's columns), the entity-position codes
    factorize.py  distinct values as integer codes, fast
    tags.py       IOB2 tags to integer columns
    words.py      the word columns of datasets: words, sentences, datasets, tags
    coverage.py   unknown and byte-fallback pieces per dataset and script
    wordtable.py  WordTable: the table's columns and their accessors
    io.py         export (rows, Arrow, CSV, Parquet) and reading Parquet back
    select.py     the table of some of its datasets, nothing segmented again
    frame.py      SegmentationTable: a WordTable with export and selection as methods
    build.py      segmentation_table(datasets, segmenters): the table, each tokenizer run once

>>> import tokstudy.analysis.table as t
>>> t.SegmentationTable.__module__
'tokstudy.analysis.table.frame'
"""

from tokstudy.analysis.table.build import segmentation_table, tokenizer_columns
from tokstudy.analysis.table.columns import BEGIN, INSIDE, OUTSIDE, POSITION_NAMES, TokenizerColumns
from tokstudy.analysis.table.frame import SegmentationTable, build_word_columns

__all__ = [
    "BEGIN",
    "INSIDE",
    "OUTSIDE",
    "POSITION_NAMES",
    "SegmentationTable",
    "TokenizerColumns",
    "build_word_columns",
    "segmentation_table",
    "tokenizer_columns",
]
