"""Bad input gives a clear error naming the place, and nothing that looks complete is left behind."""

from __future__ import annotations

import shutil

import pytest

from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.data import holdout, prepare_task
from pretrain.finetune.run import RUN_FILE, finetune
from tests.conftest import corpus_path
from tokstudy.data.types import Dataset, Sentence


def _ds(rows, split, name="toy"):
    return Dataset(
        tuple(Sentence(tuple(w), tuple(t), sent_id=i, label=l) for i, (w, t, l) in enumerate(rows)),
        name=name,
        split=split,
        source=f"/data/{name}/{split}",
    )


TRAIN = _ds(
    [(["play", "abba"], ["O", "B-artist"], "PlayMusic"), (["rain", "today"], ["O", "B-date"], "GetWeather")], "train"
)


def test_atis_test_labels_unseen_in_train():
    from tokstudy.data.registry import load_dataset

    corpus_path("atis")
    train, dev, test = (load_dataset("atis", s) for s in ("train", "dev", "test"))
    with pytest.raises(ValueError, match=r"atis dev .*I-return_date\.day_number") as exc:
        prepare_task(train, dev, test, task="ner")
    assert "never seen in train" in str(exc.value) and "unseen_labels='keep'" in str(exc.value)
    with pytest.raises(ValueError, match=r"atis test .*B-booking_class.*I-state_name"):
        prepare_task(train, train, test, task="ner")
    kept = prepare_task(train, dev, test, task="ner", unseen_labels="keep")
    assert kept.test is test and any("kept as gold" in n for n in kept.notes)
    mapped = prepare_task(train, dev, test, task="ner", unseen_labels="map_o")
    known = set(mapped.labels)
    assert all(t in known for s in mapped.test for t in s.tags)
    for s in mapped.test:  # still valid IOB2 after mapping
        assert all(not (t.startswith("I-") and (i == 0 or s.tags[i - 1][2:] != t[2:])) for i, t in enumerate(s.tags))
    with pytest.raises(ValueError, match=r"atis test .*atis_day_name"):
        prepare_task(train, train, test, task="classification")


def test_empty_split_and_missing_labels():
    empty = Dataset((), name="toy", split="dev", source="/data/toy/dev")
    with pytest.raises(ValueError, match=r"toy dev \(/data/toy/dev\): the split is empty"):
        prepare_task(TRAIN, empty, TRAIN, task="ner")
    untagged = Dataset((Sentence(("a",), None, sent_id=3, line=7),), name="toy", split="test")
    with pytest.raises(ValueError, match=r"toy test: sentence 3 \(line 7\) has no tags"):
        prepare_task(TRAIN, TRAIN, untagged, task="ner")
    with pytest.raises(ValueError, match="has no sentence label"):
        prepare_task(TRAIN, TRAIN, untagged, task="classification")


def test_holdout_is_seeded_and_disjoint():
    big = _ds([([f"w{i}"], ["O"], "x") for i in range(100)], "train")
    rest, dev = holdout(big, 0.1, 0)
    assert len(dev) == 10 and len(rest) == 90 and dev.split == "dev-holdout"
    assert not {s.words for s in rest} & {s.words for s in dev}
    assert holdout(big, 0.1, 0)[1].sentences == dev.sentences
    with pytest.raises(ValueError, match="too few"):
        holdout(_ds([(["a"], ["O"], "x")], "train"), 0.5, 0)


def test_not_a_model_directory(tmp_path):
    from pretrain.finetune.modeling import check_model_dir, load_for_task

    with pytest.raises(FileNotFoundError, match="does not exist"):
        check_model_dir(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"empty: not a Hugging Face model directory \(no config.json\)"):
        load_for_task(tmp_path / "empty", "ner", ["O"])
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="got a file"):
        check_model_dir(tmp_path / "file")


def test_tokenizer_larger_than_embedding_matrix(tiny_model, tmp_path):
    from transformers import AlbertConfig, AlbertModel

    from pretrain.finetune.modeling import load_for_task
    from tests.finetune.conftest import TINY

    bad = tmp_path / "small-vocab"
    shutil.copytree(tiny_model, bad)
    for f in bad.glob("*.safetensors"):
        f.unlink()
    AlbertModel(AlbertConfig(vocab_size=500, **TINY)).save_pretrained(bad)
    with pytest.raises(
        ValueError,
        match=r"small-vocab: tokenizer/model vocabulary mismatch: the tokenizer has 2000 ids "
        r"but the model's embedding matrix has 500 rows",
    ):
        load_for_task(bad, "ner", ["O", "B-X"])


def test_failed_run_leaves_nothing_that_looks_complete(tiny_model, tmp_path, monkeypatch):
    import pretrain.finetune.run as run_mod

    data = prepare_task(TRAIN, TRAIN, TRAIN, task="ner")
    cfg = FinetuneConfig(
        model=str(tiny_model), task="ner", dataset="toy", n_seeds=2, epochs=1, max_length=32, stride=4, progress=False
    )
    out = tmp_path / "run"
    finetune(cfg, out, data=data)
    assert (out / RUN_FILE).is_file()

    calls = {"n": 0}
    real = run_mod.write_split_predictions

    def failing(*args, **kwargs):
        calls["n"] += 1
        raise OSError("disk full")

    monkeypatch.setattr(run_mod, "write_split_predictions", failing)
    with pytest.raises(OSError, match="disk full"):
        finetune(FinetuneConfig(**{**cfg.to_dict(), "epochs": 2}), out, data=data)
    # the stale run.json of the old settings is gone; the failed seed left no partial directory
    assert not (out / RUN_FILE).exists()
    assert sorted(p.name for p in out.iterdir()) == ["seed-1", "seed-2"]
    assert calls["n"] == 1
    monkeypatch.setattr(run_mod, "write_split_predictions", real)


def test_config_validation():
    with pytest.raises(ValueError, match="task='pos'"):
        FinetuneConfig(model="m", task="pos", dataset="x")
    with pytest.raises(ValueError, match="map_o' only applies to token tasks"):
        FinetuneConfig(model="m", task="classification", dataset="x", unseen_labels="map_o")
    with pytest.raises(ValueError, match=r"<dict>: unknown key 'lr' in FinetuneConfig; expected one of"):
        FinetuneConfig.from_dict({"model": "m", "task": "ner", "dataset": "x", "lr": 1e-3})
    with pytest.raises(ValueError, match="missing required setting"):
        FinetuneConfig.from_dict({"task": "ner"})
