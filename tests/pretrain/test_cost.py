"""What a run cost: wall time always, energy and CO2e from codecarbon when it is there, "not measured" otherwise."""

from __future__ import annotations

import json
import sys

import pytest

from pretrain.cost import Cost, CostMeter, add_costs, read_total, record_segment


def test_without_codecarbon_energy_is_not_measured(monkeypatch):
    monkeypatch.setitem(sys.modules, "codecarbon", None)  # import codecarbon -> ImportError
    clock = iter([100.0, 103.5])  # the meter's start and stop readings of time.perf_counter
    monkeypatch.setattr("pretrain.cost.time.perf_counter", lambda: next(clock))
    meter = CostMeter()
    cost = meter.stop()
    assert cost.wall_seconds == pytest.approx(3.5)  # the elapsed clock, not a speed
    assert cost.energy_kwh is None and cost.co2e_kg is None
    assert cost.method == "not measured: codecarbon is not installed"
    assert meter.stop() is cost  # idempotent


def test_a_failing_codecarbon_does_not_fail_the_run(monkeypatch):
    codecarbon = pytest.importorskip("codecarbon")

    class Broken:
        def __init__(self, **kwargs):
            raise RuntimeError("no hardware")

    monkeypatch.setattr(codecarbon, "OfflineEmissionsTracker", Broken)
    cost = CostMeter().stop()
    assert cost.energy_kwh is None and cost.method.startswith("not measured: codecarbon failed to start")


def test_codecarbon_measures_energy_and_co2e():
    pytest.importorskip("codecarbon")
    meter = CostMeter(country="FRA")
    sum(i * i for i in range(2_000_000))
    cost = meter.stop()
    assert cost.energy_kwh is not None and cost.energy_kwh > 0
    assert cost.co2e_kg is not None and cost.co2e_kg > 0
    # CO2e is energy x the grid's carbon intensity: France's is between 10 and 200 g/kWh
    assert 0.01 < cost.co2e_kg / cost.energy_kwh < 0.2
    assert "codecarbon" in cost.method and "grid FRA" in cost.method
    if cost.device == "cpu":
        assert "estimate" in cost.method
    assert cost.device_hours == pytest.approx(cost.wall_seconds / 3600 * cost.device_count)


def test_resumed_runs_add_their_segments(tmp_path):
    a = Cost(60.0, "cpu", 1, 0.25, 0.01, "m")
    b = Cost(30.0, "cpu", 1, 0.5, 0.02, "m")
    path = tmp_path / "cost.json"
    record_segment(path, a, resumed=False)
    record_segment(path, b, resumed=True)
    data = json.loads(path.read_text())
    assert len(data["segments"]) == 2
    total = read_total(path)
    assert total["wall_seconds"] == 90.0 and total["energy_kwh"] == pytest.approx(0.75)
    assert total["device_hours"] == pytest.approx(90 / 3600)
    record_segment(path, b, resumed=False)  # a fresh run starts a fresh file
    assert read_total(path)["wall_seconds"] == 30.0


def test_one_unmeasured_segment_makes_the_total_unmeasured():
    total = add_costs([Cost(1.0, "cpu", 1, 0.1, 0.01, "m"), Cost(1.0, "cpu", 1, None, None, "not measured: x")])
    assert total.wall_seconds == 2.0 and total.energy_kwh is None and total.co2e_kg is None
    assert add_costs([]) is None
