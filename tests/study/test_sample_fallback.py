"""Without the corpora, the study runs on the generated sample and its report says so plainly."""

from __future__ import annotations

import pytest
import yaml

from pretrain.study_backend import PretrainBackend
from tests.study.conftest import TINY, tiny_config
from tests.study.fake_backend import FakeBackend
from tokstudy.errors import DataNotFoundError
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study


@pytest.mark.slow
def test_study_on_the_generated_sample(tmp_path):
    empty = tmp_path / "no_corpora"
    empty.mkdir()
    smaller = tiny_config()  # what the report says of the sample needs every section, not every seed and control
    smaller["finetune"].update(no_pretraining_control=False, seeds=1)
    path = tmp_path / "tiny-one-seed.yaml"
    path.write_text(yaml.safe_dump(smaller))
    config = load_study_config(path, output_dir=str(tmp_path / "out"), data_dir=str(empty))
    result = run_study(config, backend=PretrainBackend(), log=lambda m: None, progress=False)
    md = result.report_markdown.read_text()
    assert "SYNTHETIC SAMPLE" in md and "not real text" in md
    assert "wikiann:ru:test" in md  # named as skipped, not silently dropped
    assert "conll2003-sample:test" in md or "conll2003-sample" in md
    assert (result.root / "sample_data" / "ner" / "test.conll").is_file()
    assert "## Table 4" in md and "## Tables 1-2" in md


def test_no_sample_makes_missing_corpora_an_error(tmp_path):
    empty = tmp_path / "no_corpora"
    empty.mkdir()
    config = load_study_config(TINY, output_dir=str(tmp_path / "out"), data_dir=str(empty), allow_sample=False)
    with pytest.raises(DataNotFoundError, match="not found"):
        run_study(config, backend=FakeBackend(), log=lambda m: None, progress=False)
