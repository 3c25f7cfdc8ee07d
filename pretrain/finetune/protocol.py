"""The paper's protocol (mean ± std over seeds, Welch's t-test, the ``*`` mark) for the fine-tuner.

The statistics live one floor down, in the torch-free library (:mod:`tokstudy.analysis.welch`),
so the study and the fine-tuner share one implementation; this module names them for
:mod:`pretrain.finetune.run` and :mod:`pretrain.finetune.results`.
"""

from __future__ import annotations

from tokstudy.analysis.welch import (
    ALPHA,
    Summary,
    significance_mark,
    summarize,
    welch_difference,
    welch_p,
    welch_t,
)

__all__ = ["ALPHA", "Summary", "significance_mark", "summarize", "welch_difference", "welch_p", "welch_t"]
