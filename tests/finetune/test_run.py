"""Fine-tuning end to end on real data: better than the baselines, predictions the analysis reads."""

from __future__ import annotations

import json
from collections import Counter

from pretrain.finetune.config import FinetuneConfig
from pretrain.finetune.run import finetune, load_run
from tests.conftest import corpus_path
from tests.finetune.conftest import QUICK
from tokstudy.analysis.stats.estimates import BootstrapSettings


def _snips(split, n):
    from tokstudy.data.registry import load_dataset

    ds = load_dataset("snips", split)
    return ds.with_meta(sentences=ds.sentences[:n])


def test_slot_filling_beats_majority_baselines(snips_run):
    run = load_run(snips_run)
    record = json.loads((snips_run / "seed-1" / "metrics.json").read_text())
    train, test = _snips("train", QUICK["max_train_sentences"]), _snips("test", QUICK["max_eval_sentences"])
    majority_tag = Counter(t for s in train for t in s.tags).most_common(1)[0][0]
    assert majority_tag == "O"
    baseline_acc = sum(t == majority_tag for s in test for t in s.tags) / test.n_words  # F1 of all-O is 0
    assert record["test"]["token_accuracy"] > baseline_acc + 0.05
    assert record["test"]["f1"] > 0.15
    assert run["summary"]["f1"]["values"] == [record["test"]["f1"]]
    assert run["metric"] == "f1" and run["seeds"] == [1]
    assert record["test"]["n_sentences"] == 300 and record["sizes"]["train"] == 1500


def test_predictions_load_in_the_analysis_and_align_with_the_dataset(snips_run, tiny_model):
    from tokstudy.analysis.model_errors.correlation import correlate_errors
    from tokstudy.analysis.model_errors.predictions import read_predictions
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter

    test = _snips("test", QUICK["max_eval_sentences"])
    preds = read_predictions(snips_run / "seed-1" / "predictions.test.tsv")
    assert len(preds) == len(test) and preds.n_words == test.n_words
    for p, s in zip(preds, test):
        assert p.words == s.words and p.gold == s.tags and p.sent_id == s.sent_id
    assert preds.metadata["dataset"] == "snips" and preds.metadata["split"] == "test"
    assert preds.metadata["seed"] == "1" and preds.metadata["model"] == str(tiny_model)
    # the path `tokstudy correlate` takes: table of the same split, predictions aligned word by word
    table = segmentation_table(test, SentencePieceSegmenter(tiny_model / "spiece.model"), progress=False)
    result = correlate_errors(table, preds, bootstrap=BootstrapSettings(50))
    assert result is not None
    # evaluation was cut to the split's first 300 sentences: the file declares it, so it also
    # aligns to the whole split (the study's max_eval case), over exactly those sentences
    assert preds.metadata["subset"] == f"first:{QUICK['max_eval_sentences']}"
    from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
    from tokstudy.data.registry import load_dataset

    full = segmentation_table(
        load_dataset("snips", "test"), SentencePieceSegmenter(tiny_model / "spiece.model"), progress=False
    )
    aligned = align_predictions(full, preds)
    assert aligned.subset == f"first {len(test)} of {len(load_dataset('snips', 'test'))} sentences"
    assert correlate_errors(full, aligned).n_words == result.n_words == test.n_words


def test_resume_reuses_finished_seeds(snips_run, tiny_model):
    seed_file = snips_run / "seed-1" / "metrics.json"
    before = seed_file.stat().st_mtime_ns
    cfg = FinetuneConfig(model=str(tiny_model), task="ner", dataset="snips", model_name="tiny", **QUICK)
    result = finetune(cfg, snips_run)
    assert seed_file.stat().st_mtime_ns == before and (snips_run / "run.json").is_file()
    assert result.seeds[0]["test"]["f1"] == load_run(snips_run)["summary"]["f1"]["values"][0]


def test_a_changed_training_setting_retrains(tiny_model, tmp_path):
    corpus_path("snips")
    small = {**QUICK, "epochs": 1, "max_train_sentences": 200, "max_eval_sentences": 50}
    cfg = FinetuneConfig(model=str(tiny_model), task="ner", dataset="snips", save_models=False, **small)
    finetune(cfg, tmp_path)
    seed_file = tmp_path / "seed-1" / "metrics.json"
    before = seed_file.stat().st_mtime_ns
    finetune(FinetuneConfig(**{**cfg.to_dict(), "progress": True}), tmp_path)  # not a training setting: reused
    assert seed_file.stat().st_mtime_ns == before
    finetune(FinetuneConfig(**{**cfg.to_dict(), "learning_rate": 1e-3}), tmp_path)
    assert seed_file.stat().st_mtime_ns != before
    assert load_run(tmp_path)["config"]["learning_rate"] == 1e-3


def test_intent_classification_beats_majority_class(tiny_model, tmp_path):
    corpus_path("snips")
    cfg = FinetuneConfig(
        model=str(tiny_model), task="classification", dataset="snips", save_models=False, **{**QUICK, "epochs": 3}
    )
    result = finetune(cfg, tmp_path / "intents")
    train, test = _snips("train", 1500), _snips("test", 300)
    majority = Counter(s.label for s in train).most_common(1)[0][0]
    baseline = sum(s.label == majority for s in test) / len(test)
    acc = result.seeds[0]["test"]["accuracy"]
    assert acc > baseline + 0.1, (acc, baseline)
    lines = (tmp_path / "intents" / "seed-1" / "predictions.test.tsv").read_text().splitlines()
    body = [l for l in lines if not l.startswith("#")][1:]
    assert len(body) == len(test) and not (tmp_path / "intents" / "seed-1" / "model").exists()


def test_windowed_prediction_gives_one_label_per_word(tiny_model):
    """A sentence much longer than the 64 positions is predicted word by word, and short ones match a direct call."""
    import torch

    from pretrain.finetune.features import word_pieces
    from pretrain.finetune.modeling import load_for_task
    from pretrain.finetune.predict import predict_tags

    labels = ["O", "B-X", "I-X"]
    torch.manual_seed(0)
    model, tok = load_for_task(tiny_model, "ner", labels)
    long = ("the european commission said on thursday it disagreed with german advice " * 20).split()
    short = ["play", "abba", "in", "the", "kitchen"]
    pieces = word_pieces(tok, [long])[0]
    assert sum(map(len, pieces)) > 3 * 64
    out = predict_tags(model, tok, [long, short], dict(enumerate(labels)), max_length=64, stride=16)
    assert [len(o) for o in out] == [len(long), len(short)] and all(t in labels for o in out for t in o)
    # independent reference for the short sentence: the model on [CLS] pieces [SEP], first piece of each word
    enc = tok(short, is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        best = model(**enc).logits.argmax(-1)[0].tolist()
    firsts = {}
    for pos, w in enumerate(enc.word_ids()):
        if w is not None and w not in firsts:
            firsts[w] = pos
    assert out[1] == [labels[best[firsts[w]]] for w in range(len(short))]
