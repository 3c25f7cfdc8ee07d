"""The fine-tuner's protocol is the library's statistics, not a copy (one implementation, one floor down)."""

from __future__ import annotations

import tokstudy.analysis.stats.welch as welch


def test_the_fine_tuner_uses_them():
    from pretrain.finetune import results, run

    assert results.summarize is welch.summarize and results.welch_p is welch.welch_p
    assert run.summarize is welch.summarize and run.Summary is welch.Summary
