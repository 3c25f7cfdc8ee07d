"""The error analysis reads the runs typed: a run's record reads back as the same run, and a control is skipped."""

from __future__ import annotations

from tests.study.test_compare_labelling import _pieces
from tokstudy.analysis.model_errors.piece_predictions import piece_predictions_path
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.study.error_analysis import pieces_table, scored_runs
from tokstudy.study.scored_runs import ScoredRun


def test_a_runs_record_reads_back_as_the_run():
    run = ScoredRun("sp8k", "conll2003-ner", 2, False, 71.5, "F1", predictions="p.tsv", stage="finetune/x")
    assert scored_runs([run.row(), run]) == [run, run]


def test_the_pieces_table_takes_the_pretrained_models_first_seed_only(tmp_path):
    def run(seed, pretrained):
        words = tmp_path / f"seed{seed}{pretrained}" / "predictions.test.tsv"
        words.parent.mkdir()
        words.write_text("", encoding="utf-8")
        _pieces(piece_predictions_path(words), seed)
        return ScoredRun("sp8k", "ner", seed, pretrained, 80.0, "F1", predictions=str(words.relative_to(tmp_path)))

    control = run(0, False)  # seed 0, but the no-pre-training control: not a model the section shows
    table = pieces_table(tmp_path, [run(1, True), control, run(2, True)], bootstrap=BootstrapSettings(0))
    assert [r["model"] for r in table.data] == ["sp8k ner"]
    assert pieces_table(tmp_path, [control], bootstrap=BootstrapSettings(0)) is None
