"""The Morpheme boundaries page's data: gold files in, the library's results (:mod:`tokstudy.analysis.morph`) out.

An uploaded gold file is checked as every text upload is (:mod:`analysis_app.services.uploads`: size,
UTF-8, gzip) and stored under the app's upload folder with a fixed name keeping only its format's
suffix (``gold.tsv`` or ``gold.csv``, MorphScore's files being CSV); a path is confined to the allowed
folders by the page. Reading errors are the library's one line naming the file and line
(:class:`~tokstudy.errors.DataFormatError`), shown with the user's file name.

>>> stored_name("english_morph_data.csv"), stored_name("eng.word.dev.tsv")
('gold.csv', 'gold.tsv')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from analysis_app.services.uploads import check_size, sniff_text, store_as
from tokstudy.analysis.morph import morph_table
from tokstudy.data.segmentations import GoldSegmentations, language_from_name, read_segmentations
from tokstudy.report.morph import morph_rows


def stored_name(filename: str) -> str:
    """The fixed name an upload is stored under: ``gold.csv`` for a CSV (MorphScore), else ``gold.tsv``."""
    name = filename.lower().removesuffix(".gz")
    return "gold.csv" if name.endswith(".csv") else "gold.tsv"


def accept_gold_upload(filename: str, data: bytes, *, max_bytes: int) -> Path:
    """Validate an uploaded gold segmentation file and store it; returns the stored path."""
    check_size(data, max_bytes=max_bytes, filename=filename)
    return store_as(sniff_text(data, filename), "gold", stored_name(filename))


def read_gold(path: str, *, shown_as: str, language: str | None, skip_unspelled: bool) -> GoldSegmentations:
    """The gold file at ``path``; its language is given, else read from ``shown_as`` (the user's file name)."""
    return read_segmentations(path, language=language or language_from_name(shown_as), skip_unspelled=skip_unspelled)


def word_counts(datasets: Sequence) -> Counter:
    """Occurrences of each word in the datasets' sentences: the corpus of the frequency bands."""
    return Counter(w for ds in datasets for s in ds.sentences for w in s.words)


def morph_frame(gold: GoldSegmentations, segmenters: Sequence, counts: Counter | None = None) -> pd.DataFrame:
    """Every figure of every tokenizer (``band`` ``all``, then one row per frequency band when ``counts``)."""
    return pd.DataFrame(morph_rows(morph_table([gold], list(segmenters), corpus_counts=counts)))
