"""The typed cost records and their one JSON codec: a stage's record decoded once, ``cost.json`` and ``cost.csv``
written back with the same keys in the same order, and the committed reports' ``cost.json`` read and rewritten
byte for byte."""

from __future__ import annotations

import json

import pytest

from tests.conftest import PROJECT_ROOT
from tests.fixtures_doctest import assert_examples_pass
from tests.study.fake_backend import FAKE_COST
from tokstudy.study.attempts import Attempt, AttemptEnd
from tokstudy.study.control_and_cost import sum_costs, with_attempts
from tokstudy.study.run_cost import CostTable, RunCost, SummedCost


@pytest.mark.parametrize("report", ["cpu_report", "multilingual_report"])
def test_a_committed_cost_json_reads_and_writes_back_byte_for_byte(report):
    path = PROJECT_ROOT / "examples" / report / "tables" / "cost.json"
    text = path.read_text(encoding="utf-8")
    table = CostTable.from_json(json.loads(text))
    assert json.dumps(table.to_json(), indent=2, ensure_ascii=False) + "\n" == text
    assert all(isinstance(c, RunCost) for c in table.pretrain.values() if c is not None)
    assert all(isinstance(c, SummedCost) for by in table.finetune.values() for c in by.values() if c is not None)


def test_a_trainers_extra_keys_pass_through_before_what_the_study_adds():
    record = {**FAKE_COST, "tokens_seen": 1234, "by_step": {"10": 0.5}, "stage_seconds": 3.0}
    cost = RunCost.from_json(record)
    assert dict(cost.extra) == {"tokens_seen": 1234, "by_step": {"10": 0.5}}
    assert cost.to_json() == record and list(cost.to_json()) == list(record)
    lost, done = Attempt("w1", 0.0, 1.5, AttemptEnd.LOST), Attempt("w2", 2.0, 3.0, AttemptEnd.RETURNED)
    retried = with_attempts(record, [lost, done])
    assert list(retried.to_json()) == [*record, "attempts", "lost_seconds"]
    assert RunCost.from_json(retried.to_json()) == retried  # cost.json reads back as what was written


def test_a_record_without_the_trainers_measure_is_not_measured():
    """A backend that returned no cost leaves only the stage's own time: the run's cost is not known."""
    assert RunCost.from_json({"stage_seconds": 4.0}) is None
    assert RunCost.from_json(None) is None and RunCost.from_json({}) is None


def test_a_field_not_recorded_is_not_written_but_energy_always_is():
    assert RunCost(5.0).to_json() == {"wall_seconds": 5.0, "energy_kwh": None, "co2e_kg": None, "method": ""}


def test_a_sum_writes_its_attempts_only_when_a_run_was_retried():
    one = RunCost(60.0, energy_kwh=0.5, co2e_kg=0.1, method="m", device_hours=1 / 60)
    plain = sum_costs([one, None, one])
    assert plain.to_json() == {
        "wall_seconds": 120.0,
        "device_hours": 2 / 60,
        "energy_kwh": 1.0,
        "co2e_kg": 0.2,
        "runs": 2,
        "method": "m",
    }
    assert SummedCost.from_json(plain.to_json()) == plain
    retried = sum_costs([one, RunCost(90.0, method="x", attempts=2, lost_seconds=30.0)])
    assert retried.to_json()["attempts"] == 3 and retried.to_json()["lost_seconds"] == 30.0
    assert (retried.device_hours, retried.energy_kwh, retried.method) == (None, None, "m; x")
    assert SummedCost.from_json(retried.to_json()) == retried


def test_cost_csv_rows_are_the_json_entries_after_stage_task_and_model():
    table = CostTable({"a": RunCost(1.0, method="m"), "b": None}, {"t": {"a": sum_costs([RunCost(2.0)])}})
    rows = table.rows()
    assert rows[0] == {"stage": "pretrain", "task": "", "model": "a", **table.pretrain["a"].to_json()}
    assert rows[1] == {"stage": "pretrain", "task": "", "model": "b"}
    assert rows[2] == {"stage": "finetune", "task": "t", "model": "a", **table.finetune["t"]["a"].to_json()}
    assert [c.wall_seconds for c in table.every()] == [1.0, 2.0]


def test_docstring_examples():
    assert_examples_pass("tokstudy.study.run_cost")
