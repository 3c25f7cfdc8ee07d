"""The trainer protocol is the study's only way to torch: the whole study runs on an in-memory fake
with torch and the pre-trainer made unimportable, a cached study calls no backend, and the real
backend (:class:`pretrain.study_backend.PretrainBackend`) has the protocol's exact signatures."""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tokstudy.study.backends import TrainerBackend
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study

ROOT = Path(__file__).resolve().parents[2]
TINY = Path(__file__).with_name("tiny_study.yaml")
#: Makes these packages unimportable in a child process, as if not installed (``import torch`` raises
#: ModuleNotFoundError; a ``None`` in ``sys.modules`` would instead trip scipy's check for torch arrays).
BLOCK = """
import sys
class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {blocked}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, _NotInstalled())
"""
NO_TORCH = BLOCK.format(blocked=("torch", "transformers", "deepspeed", "pretrain"))

STUDY_ON_THE_FAKE = """
import json
from pathlib import Path
from tests.study.fake_backend import FakeBackend
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study

config = load_study_config({tiny!r}, output_dir={out!r}, data_dir={empty!r})
backend = FakeBackend()
result = run_study(config, backend=backend, log=lambda m: None, progress=False)
print(json.dumps({{"calls": backend.calls, "report": str(result.report_markdown),
                  "torch": "torch" in sys.modules}}))
"""


class Refuses:
    """A backend that fails the test if the study calls it."""

    def pretrain(self, *a, **k):
        raise AssertionError("pretrain called on a cached study")

    def untrained_model(self, *a, **k):
        raise AssertionError("untrained_model called on a cached study")

    def finetune(self, *a, **k):
        raise AssertionError("finetune called on a cached study")


@pytest.fixture(scope="module")
def fake_study(tmp_path_factory):
    """The tiny study on the generated sample, run in a child process that cannot import torch or pretrain."""
    tmp = tmp_path_factory.mktemp("seam")
    empty = tmp / "no_corpora"
    empty.mkdir()
    out = tmp / "out"
    code = NO_TORCH + STUDY_ON_THE_FAKE.format(tiny=str(TINY), out=str(out), empty=str(empty))
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1]), out, empty


def test_the_whole_study_runs_on_a_fake_backend_without_torch(fake_study):
    child, out, _ = fake_study
    assert child["torch"] is False
    config = load_study_config(TINY)
    toks = {"sp-unigram-500", "sp-unigram-1k", "sp-unigram-2k"}
    calls = [tuple(c) for c in child["calls"]]
    assert {c[1] for c in calls if c[0] == "pretrain"} == toks and len([c for c in calls if c[0] == "pretrain"]) == 3
    assert {c[1] for c in calls if c[0] == "untrained_model"} == toks
    finetunes = [c for c in calls if c[0] == "finetune"]
    # every model (pre-trained and control) x task x seed, once each
    n_tasks, n_seeds = len(config.finetune.tasks), config.finetune.seeds
    assert len(finetunes) == len(set(finetunes)) == 2 * len(toks) * n_tasks * n_seeds
    md = Path(child["report"]).read_text(encoding="utf-8")
    assert "## Tables 1-2" in md and "## Table 4" in md and "sp-unigram-500 (no PT)" in md
    assert "Tagging tasks (F1) are labelled word by word" in md  # the tiny study's decoding, stated with the scores
    # the fake's numbers are what the tables show: pre-trained 80 + seed, controls 40 + seed
    scores = json.loads((out / "tables" / "scores.json").read_text())
    flat = json.dumps(scores)
    assert "80.5" in flat or "80.50" in md
    assert "80.50 ± 0.71" in md and "40.50 ± 0.71" in md
    # costs are the backend's record; the stage's own wall time is added by the study
    costs = json.loads((out / "tables" / "cost.json").read_text())
    assert set(costs["pretrain"]) == toks
    for cost in costs["pretrain"].values():
        assert cost["wall_seconds"] == 2.0 and cost["method"] == "fake backend" and cost["stage_seconds"] >= 0
    # the NER predictions the fake wrote were aligned and published where the app reads them
    assert sorted(p.name for p in (out / "predictions").iterdir()) == sorted(toks)


def test_two_jobs_at_once_give_the_same_study(fake_study, tmp_path):
    """``jobs: 2``: the training runs go to two spawned processes, and every table is what one at a time gave."""
    from tests.study.fake_backend import FakeBackend

    _, out, empty = fake_study
    config = load_study_config(TINY, output_dir=str(tmp_path / "out"), data_dir=str(empty), jobs=2)
    result = run_study(config, backend=FakeBackend(), log=lambda m: None, progress=False)
    n_runs = 3 + 3 + 2 * 3 * len(config.finetune.tasks) * config.finetune.seeds  # pre-training, control, fine-tuning
    assert (
        sum(1 for s in result.executed if s.split("/")[0] in {"pretrain", "control", "finetune", "finetune-control"})
        == n_runs
    )
    for table in ("scores.json", "control.json", "table4.json"):
        assert (tmp_path / "out" / "tables" / table).read_text() == (out / "tables" / table).read_text(), table
    costs = json.loads((tmp_path / "out" / "tables" / "cost.json").read_text())
    assert all(c["method"] == "fake backend" for c in costs["pretrain"].values())


def test_a_finished_study_asks_the_backend_nothing(fake_study):
    _, out, empty = fake_study
    config = load_study_config(TINY, output_dir=str(out), data_dir=str(empty))
    again = run_study(config, backend=Refuses(), log=lambda m: None, progress=False)
    assert again.executed == [] and again.report_markdown.is_file()


def test_run_study_refuses_what_is_not_a_backend(tmp_path):
    config = load_study_config(TINY, output_dir=str(tmp_path / "out"))
    with pytest.raises(TypeError, match="TrainerBackend"):
        run_study(config, backend=object(), log=lambda m: None, progress=False)
    assert not (tmp_path / "out").exists()


def test_the_pretrain_backend_has_the_protocols_signatures():
    from pretrain.study_backend import PretrainBackend

    backend = PretrainBackend(cuda=False)
    assert isinstance(backend, TrainerBackend)
    for name in ("pretrain", "untrained_model", "finetune"):
        want = inspect.signature(getattr(TrainerBackend, name))
        got = inspect.signature(getattr(PretrainBackend, name))
        assert list(got.parameters) == list(want.parameters), name
        assert [p.kind for p in got.parameters.values()] == [p.kind for p in want.parameters.values()], name


def _finetune_call(monkeypatch, tmp_path, request) -> dict:
    """What the pre-trainer's backend hands ``pretrain.finetune`` for ``request`` (``cfg`` and ``data``), caught
    at the call, before any model is built."""
    import pretrain.study_backend as sb

    seen = {}

    class Stop(Exception):
        pass

    def fake_finetune(cfg, work, *, data):
        seen.update(cfg=cfg, data=data)
        raise Stop

    monkeypatch.setattr(sb, "finetune", fake_finetune)
    with pytest.raises(Stop):
        sb.PretrainBackend(cuda=False).finetune(tmp_path / "w", request, progress=False)
    return seen


def test_every_finetuning_setting_of_the_study_reaches_the_fine_tuner(monkeypatch, tmp_path):
    """Each field of the study's ``finetune`` section (all set away from their defaults) arrives unchanged in the
    ``FinetuneConfig`` the pre-trainer's backend builds: a new setting cannot be silently dropped on the way."""
    from tokstudy.data.types import Dataset, Sentence
    from tokstudy.study.backends import FinetuneRequest, TaskSplits
    from tokstudy.study.config import FinetuneSection, TaskSpec

    section = FinetuneSection(
        epochs=7,
        batch_size=8,
        learning_rate=2e-3,
        max_length=64,
        patience=4,
        dropout=0.2,
        token_dropout=0.1,
        decode="viterbi",
        decode_prior_scale=0.5,
        label_all_pieces=True,
        compare_labelling=True,
        holdout_fraction=0.1,
    )
    ds = Dataset([Sentence(("EU", "rejects"), ("B-ORG", "O"))], name="conll2003", language="en", split="train")
    request = FinetuneRequest(tmp_path / "m", TaskSpec("conll2003", "ner"), TaskSplits(ds, ds, ds), 0, section)
    seen = _finetune_call(monkeypatch, tmp_path, request)
    skip = {"tasks", "seeds", "no_pretraining_control", "compare_labelling"}
    assert seen["cfg"].piece_predictions is True  # compare_labelling: the run plan, and every NER run's pieces
    for f in dataclasses.fields(FinetuneSection):
        if f.name not in skip:
            assert getattr(seen["cfg"], f.name) == getattr(section, f.name), f.name
        assert getattr(section, f.name) != f.default or f.name in skip, f"{f.name} left at its default"


@pytest.mark.parametrize(
    "blocked, install",
    [
        (("torch", "transformers", "deepspeed", "pretrain"), "pip install -e '.[pretrain]'"),
        (("deepspeed",), "pip install --no-build-isolation 'deepspeed==0.19.8'"),
    ],
)
def test_tokstudy_study_without_torch_names_the_install(blocked, install, tmp_path):
    empty = tmp_path / "no_corpora"
    empty.mkdir()
    argv = ["study", str(TINY), "-o", str(tmp_path / "out"), "--data-dir", str(empty), "-q"]
    code = BLOCK.format(blocked=blocked) + f"from tokstudy.cli import main\nsys.exit(main({argv!r}))\n"
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1, res.stderr
    assert "tokstudy study: error:" in res.stderr and install in res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "out" / "tokenizers").exists()  # refused before any work


def test_the_protocols_docstring_example_runs():
    import doctest

    import tokstudy.study.backends as backends

    result = doctest.testmod(backends)
    assert result.failed == 0 and result.attempted > 0


def test_new_finetuning_settings_at_their_default_keep_earlier_results(fake_study, tmp_path):
    """``dropout`` and ``token_dropout`` came later: at their defaults they are not in the stage keys (a results
    folder of an earlier version is reused); set, they retrain every fine-tuning run and nothing else."""
    import dataclasses
    import shutil

    from tests.study.fake_backend import FakeBackend

    _, out, empty = fake_study
    record = json.loads(next((out / ".stages").glob("finetune__*.json")).read_text())
    assert set(record["params"]["common"]) == {"epochs", "batch_size", "learning_rate", "max_length", "patience"}
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    config = load_study_config(TINY, output_dir=str(copy), data_dir=str(empty))
    finetune = dataclasses.replace(config.finetune, token_dropout=0.1, decode="viterbi", decode_prior_scale=0.5)
    config = dataclasses.replace(config, finetune=finetune)
    backend = FakeBackend()
    result = run_study(config, backend=backend, log=lambda m: None, progress=False)
    md = result.report_markdown.read_text(encoding="utf-8")
    assert "Tagging tasks (F1) are decoded with Viterbi" in md and "prior scale of 0.5" in md
    kinds = {c[0] for c in backend.calls}
    assert kinds == {"finetune"}, kinds
    n_finetune = 2 * 3 * len(config.finetune.tasks) * config.finetune.seeds
    assert len(backend.calls) == n_finetune
    assert {s.split("/")[0] for s in result.executed} == {"finetune", "finetune-control", "analysis", "report"}


def test_a_task_of_its_own_dropout_retrains_that_task_only(fake_study, tmp_path):
    """A task's ``dropout`` / ``token_dropout`` came later too: unset, the task's stage key is as before; set on one
    task, only that task's runs train again."""
    import dataclasses
    import shutil

    from tests.study.fake_backend import FakeBackend

    _, out, empty = fake_study
    record = json.loads(next((out / ".stages").glob("finetune__*.json")).read_text())
    assert not {"dropout", "token_dropout"} & set(record["params"]["task"])
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    config = load_study_config(TINY, output_dir=str(copy), data_dir=str(empty))
    first, *rest = config.finetune.tasks
    tasks = (dataclasses.replace(first, token_dropout=0.1), *rest)
    config = dataclasses.replace(config, finetune=dataclasses.replace(config.finetune, tasks=tasks))
    backend = FakeBackend()
    run_study(config, backend=backend, log=lambda m: None, progress=False)
    assert {c[0] for c in backend.calls} == {"finetune"}
    assert len(backend.calls) == 2 * 3 * config.finetune.seeds  # (pre-trained + control) x 3 tokenizers x seeds
    assert {c[3] for c in backend.calls} == {first.label}, backend.calls


def test_a_corpus_without_a_test_split_is_scored_on_dev_with_a_held_out_dev(monkeypatch, tmp_path):
    """MultiCoNER (like SST-2) has no test split: the study scores it on dev and hands the backend no dev, and the
    pre-trainer's backend holds out 5 % of the training sentences for early stopping."""
    from tokstudy.data.types import Dataset, Sentence
    from tokstudy.study.backends import FinetuneRequest, TaskSplits
    from tokstudy.study.config import FinetuneSection, TaskSpec

    sentences = [Sentence((f"w{i}", "berlin"), ("O", "B-LOC")) for i in range(40)]
    train = Dataset(sentences, name="multiconer2022", language="de", split="train")
    test = Dataset(sentences[:5], name="multiconer2022", language="de", split="dev")
    request = FinetuneRequest(
        tmp_path / "m", TaskSpec("multiconer2022:de"), TaskSplits(train, None, test), 0, FinetuneSection()
    )
    data = _finetune_call(monkeypatch, tmp_path, request)["data"]
    assert (len(data.train), len(data.dev), data.dev.split) == (38, 2, "dev-holdout")
    assert data.test.split == "dev" and len(data.test) == 5
