"""The one-lease study (``make gpu-check STUDY=lease``, benchmarks/gpu_lease.py) cannot rot between GPU leases.

Its parts are tested directly: the plan fits the lease, the toy configuration changes sizes only, the fallback
reads the tokenizer trainer's own message, the packed report holds no weights, and the lease tables recount
the study's records. The dry run (``make gpu-check DRY_RUN=1 STUDY=lease``, as a user types it) runs the whole
study at toy sizes on CPU through the same commands and must end with every step ok.
"""

from __future__ import annotations

import csv
import json
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from tests.pretrain.gpu_dry_run import make_gpu_check_dry_run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_lease  # noqa: E402
import study_f1_minutes  # noqa: E402

from tokstudy.configfile import build_config  # noqa: E402
from tokstudy.study.config import StudyConfig  # noqa: E402


def _lease_config() -> dict:
    return yaml.safe_load(gpu_lease.CONFIG.read_text())


def test_the_planned_stages_and_one_curve_point_fit_the_lease():
    planned = gpu_lease.plan(_lease_config())
    assert set(planned) == {"install", "tokenizers", "prepare", "pretrain", "finetune", "report"}
    spare = gpu_lease.LEASE_SECONDS - gpu_lease.RESERVE_SECONDS - sum(planned.values())
    assert spare >= gpu_lease.CURVE_POINT_SECONDS, planned
    assert gpu_lease.LEASE_SECONDS <= 9 * 60


def test_the_toy_configuration_changes_sizes_only():
    real, toy = _lease_config(), gpu_lease.toy_config(_lease_config())
    build_config(StudyConfig, toy, source="toy")  # a valid study configuration
    assert len(toy["tokenizers"]["vocab_sizes"]) == len(real["tokenizers"]["vocab_sizes"]) == 3
    for section, kept in {
        "tokenizers": ("algorithm", "corpora", "add_task_text", "seed"),
        "pretrain": ("corpora", "add_task_text", "max_seq_length", "compile", "seed"),
        "finetune": ("seeds", "patience", "learning_rate", "dropout", "token_dropout", "label_all_pieces", "decode",
                     "decode_prior_scale", "max_length"),
        "analysis": ("datasets", "seed"),
    }.items():  # fmt: skip
        assert {k: toy[section].get(k) for k in kept} == {k: real[section].get(k) for k in kept}, section
    assert [t["dataset"] for t in toy["finetune"]["tasks"]] == [t["dataset"] for t in real["finetune"]["tasks"]]
    assert real["tokenizers"]["vocab_sizes"] == [32000, 64000, 128000]  # the paper's; toy_config did not touch it


def test_the_fallback_reads_the_trainers_message(tmp_path):
    """The message comes from the tokenizer trainer itself (a real too-large size on a tiny text), not a copy."""
    from tokstudy.errors import TokenizerTrainingError
    from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers

    text = tmp_path / "en.txt"
    text.write_text("\n".join(f"the cat number {i} sat on mat {i % 7}" for i in range(300)) + "\n")
    with pytest.raises(TokenizerTrainingError) as err:
        train_tokenizers(
            TokenizerTrainingConfig(inputs=(text,), output_dir=tmp_path / "tok", vocab_sizes=(40, 50000)),
            progress=False,
        )
    sizes, limit = gpu_lease.fallback_sizes(f"tokstudy study: error: {err.value}", [40, 50000])
    assert limit == err.value.max_vocab_size and 40 < limit < 1000
    assert sizes == [40, limit]  # below a thousand the limit itself (rounding down: the doctest)
    assert gpu_lease.fallback_sizes("all fine", [40]) is None


def test_the_packed_report_holds_the_report_and_no_weights(tmp_path):
    results = tmp_path / "gpu-lease"
    for rel in ("report.md", "tables/scores.csv", ".stages/report.json", "pretrain/sp-unigram-32k/run/metrics.csv",
                "pretrain/sp-unigram-32k/run/checkpoints/step_00000140/trainer_state.json",
                "pretrain/sp-unigram-32k/final_model/config.json", "pretrain/sp-unigram-32k/examples/meta.json",
                "finetune/sp-unigram-32k/conll2003-ner/seed0/seed-0/predictions.test.tsv", "weights.bin"):  # fmt: skip
        (results / rel).parent.mkdir(parents=True, exist_ok=True)
        (results / rel).write_text("x")
    with tarfile.open(gpu_lease.pack(results, tmp_path / "lease-report.tar.gz")) as tar:
        names = sorted(tar.getnames())
    assert names == [
        "gpu-lease/.stages/report.json",
        "gpu-lease/finetune/sp-unigram-32k/conll2003-ner/seed0/seed-0/predictions.test.tsv",
        "gpu-lease/pretrain/sp-unigram-32k/run/metrics.csv",
        "gpu-lease/report.md",
        "gpu-lease/tables/scores.csv",
    ]


def _fake_study(root: Path) -> None:
    """Two vocabularies' stage records, pre-training metrics and fine-tuning records, and one curve point."""
    stages = root / ".stages"
    stages.mkdir(parents=True)
    for tok, score, seconds in (("sp-unigram-32k", 81.5, 90.0), ("sp-unigram-64k", 83.0, 96.0)):
        (stages / f"pretrain__{tok}.json").write_text(json.dumps({"name": f"pretrain/{tok}", "seconds": seconds}))
        run = root / "pretrain" / tok / "run"
        run.mkdir(parents=True)
        with (run / "metrics.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["step", "loss", "mlm_accuracy", "tokens_per_s", "elapsed_s"])
            for step, acc, rate, elapsed in ((35, 0.1, 100.0, 5.0), (70, 0.2, 300.0, 9.0), (105, 0.3, 200.0, 13.0),
                                             (140, 0.4, 400.0, 18.0)):  # fmt: skip
                w.writerow([step, 5 - acc, acc, rate, elapsed])
        name = f"finetune/{tok}/conll2003-ner/seed0"
        outputs = {"score": score, "dev_score": score + 2, "epochs_run": 4}
        (stages / f"{name.replace('/', '__')}.json").write_text(
            json.dumps({"name": name, "seconds": 30.0, "outputs": outputs})
        )
        seed = root / name / "seed-0"
        seed.mkdir(parents=True)
        train = {"steps": 880, "seconds": 11.0, "train_items": 14100, "epochs_run": 4.0, "device": "cuda:0"}
        (seed / "metrics.json").write_text(json.dumps({"train": train}))
    (root / "curve").mkdir()
    points = [{"tokenizer": "sp-unigram-32k", "step": 70, "share": 0.4, "score": 70.0, "dev_score": 72.0},
              {"tokenizer": "sp-unigram-32k", "step": 0, "share": 0.0, "score": 40.0, "dev_score": 41.0}]  # fmt: skip
    (root / "curve" / "points.json").write_text(json.dumps(points))


def test_the_lease_tables_recount_the_records(tmp_path):
    _fake_study(tmp_path)
    pre = {p["tokenizer"]: p for p in study_f1_minutes.pretraining(tmp_path)}
    assert pre["sp-unigram-32k"]["steps"] == 140 and pre["sp-unigram-32k"]["mlm_accuracy"] == 0.4
    assert pre["sp-unigram-32k"]["train_minutes"] == pytest.approx(18 / 60)
    assert pre["sp-unigram-32k"]["tokens_per_s"] == 300.0  # median of the rows after the first: 200, 300, 400
    fine = study_f1_minutes.finetuning(tmp_path)
    assert [f["windows_per_s"] for f in fine] == pytest.approx([14100 * 4 / 11.0] * 2)
    assert [f["steps_per_s"] for f in fine] == pytest.approx([80.0] * 2)
    curve = study_f1_minutes.curve(tmp_path)
    assert [(p["tokenizer"], p["step"], p["score"]) for p in curve] == [
        ("sp-unigram-32k", 0, 40.0),
        ("sp-unigram-32k", 70, 70.0),
        ("sp-unigram-32k", 140, 81.5),
        ("sp-unigram-64k", 140, 83.0),
    ]
    assert [p["minutes"] for p in curve] == pytest.approx([0.0, 9 / 60, 18 / 60, 18 / 60])
    assert [p["mlm_accuracy"] for p in curve] == [None, 0.2, 0.4, 0.4]
    text = study_f1_minutes.lease_tables(tmp_path)
    assert "| sp-unigram-32k | 140 | 0.30 | 1.50 | 300 | 0.400 | 4.600 |" in text
    assert "| sp-unigram-32k | 70 | 0.15 | 0.200 | 70.00 | 72.00 |" in text


def test_the_curve_takes_the_kept_checkpoints_nearest_each_share(tmp_path):
    for step in (140, 280, 420, 560, 700):
        (tmp_path / "checkpoints" / f"step_{step:08d}").mkdir(parents=True)
    assert gpu_lease.curve_points(tmp_path) == [(0.4, 280), (0.0, 0), (0.8, 560), (0.2, 140), (0.6, 420)]
    assert gpu_lease.curve_points(tmp_path / "none") == []


def test_the_doctests_run():
    import doctest

    assert doctest.testmod(gpu_lease).failed == 0


@pytest.mark.slow
def test_make_gpu_check_dry_run_of_the_lease_study_passes(tmp_path, shared_data):
    """`make gpu-check DRY_RUN=1 STUDY=lease` as a user types it: the study, the curve, lease.md and the packed
    report, on CPU at toy sizes."""
    out = tmp_path / "out"
    summary = make_gpu_check_dry_run(out, shared_data, "STUDY=lease", timeout=1200)
    assert [s["name"] for s in summary["steps"]] == ["install", "study", "curve"]
    assert summary["ok"] and "lease study" in summary["mode"]
    lease = (out / "lease.md").read_text()
    for size in ("1k", "1500", "2k"):
        assert f"| sp-unigram-{size} | 20 |" in lease  # its pre-training row: 20 steps and a final MLM accuracy
    assert "| sp-unigram-1k | 0 | 0.00 | - |" in lease  # the curve's point from the initial weights
    assert "| sp-unigram-1k | 10 |" in lease  # and from the checkpoint at half the steps
    with tarfile.open(out / "lease-report.tar.gz") as tar:
        names = set(tar.getnames())
    assert {"gpu-lease/report.md", "gpu-lease/lease.md", "gpu-lease/curve/points.json"} <= names
    assert len(list(out.iterdir())) <= 8  # what a device command brings back


def test_the_study_f1_minutes_doctests_run():
    import doctest

    assert doctest.testmod(study_f1_minutes).failed == 0


def test_the_pretraining_keeps_every_checkpoint_the_curve_fine_tunes(tmp_path):
    from pretrain.study_backend import pretrain_train_config
    from tokstudy.study.config import load_study_config

    train = pretrain_train_config(load_study_config("gpu-lease").pretrain, tmp_path, cuda=True)
    assert train.keep_last * train.checkpoint_every >= train.total_steps  # none deleted before the curve reads it
    assert train.checkpoint_every % train.log_every == 0  # a logged MLM accuracy and time at every checkpoint
    assert train.compile == "off" and train.deepspeed_config == "ds_gpu_bf16.json"


def test_a_curve_point_is_given_the_longest_fine_tuning_of_the_study(tmp_path):
    assert gpu_lease.point_seconds(tmp_path) == gpu_lease.CURVE_POINT_SECONDS  # nothing finished: the floor
    _fake_study(tmp_path)
    record = tmp_path / ".stages" / "finetune__sp-unigram-64k__conll2003-ner__seed0.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "seconds": 75.5}))
    assert gpu_lease.point_seconds(tmp_path) == 75.5
