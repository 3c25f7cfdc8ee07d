"""Results tables: means, marks against Welch's test, and the three output formats."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy import stats

from pretrain.finetune.results import build_tables, compare_runs, to_csv, to_json, to_markdown, write_tables


def _run(model, dataset, metric, values, language="en"):
    return {
        "model_name": model,
        "dataset": dataset,
        "language": language,
        "metric": metric,
        "summary": {metric: {"values": values}},
    }


RUNS = [
    _run("32k", "conll2003", "f1", [0.880, 0.882, 0.879, 0.881]),
    _run("64k", "conll2003", "f1", [0.890, 0.893, 0.889, 0.892]),
    _run("32k", "snips", "f1", [0.950, 0.940, 0.955]),
    _run("64k", "snips", "f1", [0.951, 0.945, 0.949]),
    _run("32k", "wikiann", "f1", [0.80, 0.81], language="de"),
    _run("32k", "sst2", "accuracy", [0.85, 0.86]),
    _run("64k", "sst2", "accuracy", [0.87, 0.86]),
]


def test_tables_by_metric_with_marks_against_the_reference():
    f1, acc = build_tables(RUNS)
    assert f1.metric == "f1" and f1.rows == ("conll2003", "snips", "wikiann-de") and f1.models == ("32k", "64k")
    c = f1.cells[("conll2003", "64k")]
    assert c.summary.mean == pytest.approx(np.mean([0.890, 0.893, 0.889, 0.892]))
    p = stats.ttest_ind([0.890, 0.893, 0.889, 0.892], [0.880, 0.882, 0.879, 0.881], equal_var=False).pvalue
    assert c.p_value == pytest.approx(p) and c.mark == "*" and c.best
    assert f1.cells[("snips", "64k")].mark == ""  # not significant
    assert np.isnan(f1.cells[("conll2003", "32k")].p_value)
    assert ("wikiann-de", "64k") not in f1.cells
    assert acc.rows == ("sst2",)
    md = to_markdown([f1, acc])
    assert "| conll2003 | 88.05 ± 0.13 | **89.10 ± 0.18*** |" in md and "| wikiann-de | **80.50 ± 0.71** | – |" in md
    rows = list(csv.DictReader(io.StringIO(to_csv([f1, acc]))))
    assert len(rows) == 7 and rows[1]["significant"] == "True"
    data = json.loads(to_json([f1, acc]))
    assert [t["metric"] for t in data["tables"]] == ["f1", "accuracy"]
    with_ref = build_tables(RUNS, reference="64k")[0]
    assert with_ref.cells[("conll2003", "32k")].mark == "*" and np.isnan(with_ref.cells[("conll2003", "64k")].p_value)


def test_duplicates_and_unfinished_runs_are_errors(tmp_path):
    with pytest.raises(ValueError, match="second run of model '32k' on 'snips'"):
        build_tables(RUNS + [_run("32k", "snips", "f1", [0.9])])
    with pytest.raises(ValueError, match="reference model 'x'"):
        build_tables(RUNS, reference="x")
    (tmp_path / "half").mkdir()
    with pytest.raises(FileNotFoundError, match="half: no run.json; the run is missing or did not finish"):
        compare_runs([tmp_path / "half"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_write_tables(tmp_path):
    paths = write_tables(build_tables(RUNS), tmp_path / "t")
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["results.csv", "results.json", "results.md"]
    assert paths["md"].read_text().startswith("### Slot filling")
