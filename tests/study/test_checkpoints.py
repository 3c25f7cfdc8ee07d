"""The study on checkpoints pre-trained elsewhere: the shipped `malbert` configuration, run on tiny local models.

The three published mALBERT checkpoints cannot be downloaded here; the same configuration runs with its
checkpoints replaced by tiny ALBERT models written by ``save_pretrained`` (one of them laid out as a hub cache
entry and read offline, one a token-classification model fine-tuned "elsewhere", evaluated only) and its tasks cut
to a few hundred sentences. What the study reports is checked against independent computations: each checkpoint's
additional segmentation against its own Hugging Face tokenizer's ``word_ids()``, the evaluated model's F1 against
seqeval on its predictions file.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from pretrain.study_backend import PretrainBackend  # noqa: E402
from tests.fixtures_hf_models import _lines as english_lines  # noqa: E402
from tests.fixtures_hf_models import build_token_model, train_tokenizer  # noqa: E402
from tests.inputs.hub_cache import offline_cache, put_in_cache  # noqa: E402
from tokstudy.analysis.model_errors.predictions import read_predictions  # noqa: E402
from tokstudy.data.registry import load_dataset  # noqa: E402
from tokstudy.errors import PretrainedNotFoundError  # noqa: E402
from tokstudy.study.checkpoints import Checkpoint  # noqa: E402
from tokstudy.study.config import TaskSpec, load_study_config  # noqa: E402
from tokstudy.study.pipeline import run_study  # noqa: E402

HUB_NAME = "someone/tiny-albert-1k"


def test_the_shipped_malbert_configuration_is_the_papers_setting():
    config = load_study_config("malbert")
    assert [c.model for c in config.checkpoints] == [
        f"cservan/multilingual-albert-base-cased-{v}" for v in ("32k", "64k", "128k")
    ]
    assert not any(c.finetuned for c in config.checkpoints)
    assert config.finetune.seeds == 10
    assert {t.dataset for t in config.finetune.tasks} == {"conll2003", "multiconer2022", "snips", "massive"}
    assert config.analysis.datasets[0] == "conll2003:test"


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(checkpoints=(Checkpoint("a", "x/y"), Checkpoint("a", "x/z"))), "label(s) a given twice"),
        (dict(finetune="control"), "no_pretraining_control needs the study's own pre-training preset"),
        (dict(checkpoints=(Checkpoint("a", "x/y", finetuned=True),), finetune="classification"), "no task is NER"),
    ],
)
def test_what_a_study_on_checkpoints_cannot_do_is_refused_when_read(change, message):
    config = load_study_config("malbert")
    ft = config.finetune
    if change.get("finetune") == "control":
        change["finetune"] = dataclasses.replace(ft, no_pretraining_control=True)
    elif change.get("finetune") == "classification":
        change["finetune"] = dataclasses.replace(ft, tasks=(TaskSpec("snips", "classification"),))
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        dataclasses.replace(config, **change)


def test_a_label_map_belongs_to_a_finetuned_checkpoint_and_exists(tmp_path):
    with pytest.raises(ValueError, match="label_map applies to a finetuned checkpoint only"):
        Checkpoint("a", "x/y", label_map="map.yaml")
    with pytest.raises(ValueError, match=f"a: label_map: no file {tmp_path}/map.yaml"):
        Checkpoint("a", "x/y", finetuned=True, label_map=str(tmp_path / "map.yaml"))


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """Two pre-trained (fill-mask) ALBERTs with vocabularies of two sizes, and one fine-tuned for NER."""
    root = tmp_path_factory.mktemp("checkpoints")
    lines = english_lines(2000)
    small = train_tokenizer("albert", lines, vocab_size=1000)
    large = train_tokenizer("albert", lines, vocab_size=2000)
    return {
        "small": build_token_model("albert", root / "albert-1k", head="masked_lm", tokenizer=small).path,
        "large": build_token_model("albert", root / "albert-2k", head="masked_lm", tokenizer=large).path,
        "ner": build_token_model("albert", root / "albert-ner", head="token", tokenizer=large).path,
    }


def _config(tmp_path, checkpoints):
    """The shipped configuration, its checkpoints replaced by the local ones and its tasks cut."""
    config = load_study_config("malbert", output_dir=str(tmp_path / "results"))
    tasks = (TaskSpec("conll2003", "ner", max_train=200, max_eval=150),)
    return dataclasses.replace(
        config,
        allow_sample=False,
        checkpoints=checkpoints,
        finetune=dataclasses.replace(config.finetune, tasks=tasks, seeds=2, epochs=1, max_length=64),
        analysis=dataclasses.replace(
            config.analysis, datasets=("conll2003:test",), parity_corpus=None, bootstrap=100, n_examples=1
        ),
    )


@pytest.fixture(scope="module")
def study(checkpoints, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("study")
    with pytest.MonkeyPatch.context() as mp:
        cache = offline_cache(tmp_path, mp)  # HF_HUB_OFFLINE=1 and no socket may connect
        put_in_cache(cache, HUB_NAME, checkpoints["small"])
        config = _config(
            tmp_path,
            (
                Checkpoint("tiny-1k", HUB_NAME),
                Checkpoint("tiny-2k", str(checkpoints["large"])),
                Checkpoint("tiny-ner", str(checkpoints["ner"]), finetuned=True),
            ),
        )
        result = run_study(config, backend=PretrainBackend(cuda=False), log=lambda m: None, progress=False)
        again = run_study(config, backend=PretrainBackend(cuda=False), log=lambda m: None, progress=False)
    return config, result, again


@pytest.mark.slow  # the module's study: about 20 s
def test_the_study_fine_tunes_and_evaluates_the_checkpoints_without_training_a_tokenizer(study, checkpoints):
    config, result, again = study
    root = result.root
    trained = {f"finetune/{c}/{t}/seed{s}" for c in ("tiny-1k", "tiny-2k") for t in ("conll2003-ner",) for s in (0, 1)}
    assert trained <= set(result.executed)
    assert "evaluate/tiny-ner/conll2003-ner" in result.executed
    assert not any(s.startswith(("pretrain/", "control/", "finetune/tiny-ner")) for s in result.executed)
    assert not (root / "pretrain").exists()
    # each checkpoint's own tokenizer files, copied: the folder holds what its analysis read
    assert sorted(p.name for p in (root / "tokenizers").iterdir() if not p.name.startswith(".")) == [
        "tiny-1k",
        "tiny-2k",
        "tiny-ner",
    ]
    copied = root / "tokenizers" / "tiny-ner" / "tokenizer.json"
    assert copied.read_bytes() == (checkpoints["ner"] / "tokenizer.json").read_bytes()
    assert again.executed == [] and set(again.skipped) == set(result.executed)
    assert result.report_markdown.is_file()
    assert [c["label"] for c in json.loads((root / "config.json").read_text())["checkpoints"]] == [
        "tiny-1k",
        "tiny-2k",
        "tiny-ner",
    ]


def _hf_additional_segmentation(model_dir, ds):
    """NE and non-NE additional segmentation (pieces / words - 1, %) by the model's own tokenizer's word_ids()."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    pieces = {True: 0, False: 0}
    words = {True: 0, False: 0}
    for s in ds:
        ids = tok(list(s.words), is_split_into_words=True, add_special_tokens=False).word_ids()
        for i, tag in enumerate(s.tags):
            ne = tag != "O"
            pieces[ne] += sum(1 for w in ids if w == i)
            words[ne] += 1
    return {ne: 100 * (pieces[ne] / words[ne] - 1) for ne in (True, False)}


def test_table4_is_each_checkpoints_own_tokenizer_counted_independently(study, checkpoints):
    config, result, _ = study
    table4 = json.loads((result.root / "tables" / "table4.json").read_text())
    rows = {r["tokenizer"]: r for r in table4}
    assert set(rows) == {"tiny-1k", "tiny-2k", "tiny-ner"}
    ds = load_dataset("conll2003", "test", data_dir=config.data_dir)
    for label, model in (("tiny-1k", checkpoints["small"]), ("tiny-2k", checkpoints["large"])):
        expected = _hf_additional_segmentation(model, ds)
        assert rows[label]["ne"]["value"] == pytest.approx(expected[True], abs=1e-6)
        assert rows[label]["non_ne"]["value"] == pytest.approx(expected[False], abs=1e-6)


def test_the_evaluated_checkpoints_score_is_seqeval_on_its_predictions(study):
    from seqeval.metrics import f1_score

    _, result, _ = study
    record = json.loads((result.root / ".stages" / "evaluate__tiny-ner__conll2003-ner.json").read_text())
    predictions = read_predictions(result.root / record["outputs"]["predictions"])
    gold = [list(s.gold) for s in predictions.sentences]
    pred = [list(s.pred) for s in predictions.sentences]
    assert len(gold) == 150
    assert record["outputs"]["score"] == pytest.approx(100 * f1_score(gold, pred), abs=1e-9)


def test_a_checkpoint_not_in_the_cache_offline_is_one_line_before_anything_is_written(tmp_path, monkeypatch):
    offline_cache(tmp_path, monkeypatch)
    config = _config(tmp_path, (Checkpoint("absent", "nobody/absent-albert"),))
    with pytest.raises(PretrainedNotFoundError, match="nobody/absent-albert.*not in the cache"):
        run_study(config, backend=PretrainBackend(cuda=False), log=lambda m: None, progress=False)
    assert not (tmp_path / "results").exists()
