"""The gpu-smoke study end to end on a CUDA machine (marked ``gpu``: skipped without one).

Run it on a fresh GPU machine with ``pytest -m gpu tests/study/test_gpu_smoke.py``; the whole study
should take <= 15 minutes on one H100 (the test allows 30 before failing on time).
"""

from __future__ import annotations

import time

import pytest

from tests.conftest import corpus_path
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study

torch = pytest.importorskip("torch")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def test_gpu_smoke_study_runs_end_to_end(tmp_path):
    for name in ("raw_text", "raw_text_large", "conll2003", "snips", "xquad_parallel"):
        corpus_path(name)
    config = load_study_config("gpu-smoke", output_dir=str(tmp_path / "gpu-smoke"))
    t0 = time.perf_counter()
    from pretrain.study_backend import PretrainBackend

    result = run_study(config, backend=PretrainBackend(), log=print, progress=False)
    minutes = (time.perf_counter() - t0) / 60
    print(f"gpu-smoke study: {minutes:.1f} min")
    md = result.report_markdown.read_text()
    for size in config.tokenizers.vocab_sizes:
        assert str(size) in md.replace(",", "")
    assert "conll2003" in md.lower() and "snips" in md.lower()
    assert minutes <= 30, f"the smoke study took {minutes:.1f} min (designed for <= 15 on one H100)"
