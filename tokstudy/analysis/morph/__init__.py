"""How a tokenizer's pieces fall on gold morpheme boundaries: MorphScore and boundary P / R / F1.

Where each part lives (each imports only the ones above it)::

    pieces.py   where a tokenizer's pieces cut a word, as byte offsets inside it
    scores.py   MorphScore, boundary precision / recall / F1, by frequency band: morph_scores, morph_table

The gold files are read by :mod:`tokstudy.data.segmentations`; the report section is
:mod:`tokstudy.report.morph`.
"""

from tokstudy.analysis.morph.pieces import piece_boundaries
from tokstudy.analysis.morph.scores import (
    BAND_EDGES,
    BandScores,
    BoundaryCounts,
    MorphResult,
    MorphScoreCounts,
    morph_scores,
    morph_table,
)

__all__ = [
    "BAND_EDGES",
    "BandScores",
    "BoundaryCounts",
    "MorphResult",
    "MorphScoreCounts",
    "morph_scores",
    "morph_table",
    "piece_boundaries",
]
