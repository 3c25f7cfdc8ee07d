"""``pretrain evaluate`` on models fine-tuned elsewhere, end to end through both CLIs, and its one-line refusals:
each exits non-zero with one line on stderr and leaves no predictions file."""

from __future__ import annotations

import json
import shutil

import pytest

from pretrain.cli import main as pretrain_main
from tests.conftest import corpus_path
from tests.fixtures_hf_models import build_token_model
from tests.inputs.hub_cache import no_waiting, offline_cache, put_in_cache
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.cli import main as tokstudy_main

ONTONOTES = ("O", "B-PERSON", "I-PERSON", "B-GPE", "I-GPE", "B-ORG", "I-ORG", "B-DATE", "I-DATE")


@pytest.fixture(scope="module")
def conll_files(tmp_path_factory):
    """The first 60 sentences of CoNLL-2003 test and 300 of train, as CoNLL files (datasets given as paths)."""
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    root = tmp_path_factory.mktemp("conll")
    for split, n in (("test", 60), ("train", 300)):
        sentences = load_dataset("conll2003", split).sentences[:n]
        text = "".join("".join(f"{w} {t}\n" for w, t in zip(s.words, s.tags)) + "\n" for s in sentences)
        (root / f"{split}.conll").write_text(text, encoding="utf-8")
    return root


def _evaluate(model, dataset, tmp_path, *extra):
    out = tmp_path / "pred.tsv"
    argv = ["evaluate", "--model", str(model), "--dataset", str(dataset), "--predictions", str(out)]
    return pretrain_main(argv + ["--no-progress", *extra]), out


def _refused(capsys, rc, out, *fragments):
    """One line on stderr holding ``fragments``, a non-zero status, no predictions file, nothing on stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert rc != 0 and len(lines) == 1, captured.err
    assert lines[0].startswith("pretrain evaluate: error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert not out.exists() and captured.out == ""
    assert not list(out.parent.glob("*.tmp*"))


def test_evaluate_then_correlate_and_pieces(hf_token_models, conll_files, tmp_path, capsys):
    model = hf_token_models["roberta"]
    pieces = tmp_path / "pred.pieces.tsv"
    dataset = conll_files / "test.conll"
    rc, out = _evaluate(model.path, dataset, tmp_path, "--piece-predictions", str(pieces), "--aggregate", "average")
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    metrics = json.loads(captured.out)
    assert metrics["n_sentences"] == 60 and metrics["label_map"]["S-person"] == "B-PER"
    assert "labels -> dataset tags: O:O, B-person:B-PER, I-person:I-PER, E-person:I-PER" in captured.err
    meta = read_predictions(out).metadata
    assert meta["aggregate"] == "average" and "E-location:I-LOC" in meta["label_map"].split(",")
    assert tokstudy_main(["correlate", "--predictions", str(out), "-t", str(model.path), "-d", str(dataset)]) == 0
    assert "Pearson r" in capsys.readouterr().out
    assert tokstudy_main(["pieces", str(pieces), "-d", str(dataset)]) == 0
    assert "average" in capsys.readouterr().out


def test_viterbi_reads_the_training_tags(hf_token_models, conll_files, tmp_path, capsys):
    model, dataset = hf_token_models["albert"], conll_files / "test.conll"
    rc, out = _evaluate(model.path, dataset, tmp_path, "--viterbi", str(conll_files / "train.conll"))
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert read_predictions(out).metadata["decode"] == "viterbi"
    rc, out = _evaluate(model.path, dataset, tmp_path / "again", "--viterbi")
    _refused(capsys, rc, out, "--viterbi", "TRAIN_FILE")


def test_ontonotes_types_need_a_map_and_unmapped_labels_are_counted(conll_files, hf_token_models, tmp_path, capsys):
    tok = _tokenizer(hf_token_models["bert"].path)
    onto = build_token_model("bert", tmp_path / "onto", labels=ONTONOTES, tokenizer=tok).path
    dataset = conll_files / "test.conll"
    rc, out = _evaluate(onto, dataset, tmp_path)
    _refused(capsys, rc, out, "gold tag(s) B-LOC", "B-MISC", "B-GPE:O", "--label-map")
    (tmp_path / "map.yaml").write_text("GPE: LOC\n", encoding="utf-8")
    rc, out = _evaluate(onto, dataset, tmp_path, "--label-map", str(tmp_path / "map.yaml"))
    _refused(capsys, rc, out, "B-MISC", "B-GPE:B-LOC")
    rc, out = _evaluate(onto, dataset, tmp_path, "--label-map", str(tmp_path / "map.yaml"), "--unseen-labels", "map_o")
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    metrics = json.loads(captured.out)
    assert metrics["labels_to_o"] == ["B-DATE", "I-DATE"]
    (note,) = metrics["notes"]
    assert note.startswith("test test: gold tag(s) the model cannot predict (B-MISC (") and note.endswith("mapped to O")
    assert f"read as O: B-DATE I-DATE ({metrics['n_unmapped_words']} words)" in captured.err
    assert read_predictions(out).metadata["labels_to_o"] == "B-DATE,I-DATE"
    (tmp_path / "bad.yaml").write_text("NORP: LOC\n", encoding="utf-8")
    rc, out = _evaluate(onto, dataset, tmp_path / "bad", "--label-map", str(tmp_path / "bad.yaml"))
    _refused(capsys, rc, out, "bad.yaml: label map names 'NORP', which is neither a label nor a type of the model")
    generic = build_token_model("bert", tmp_path / "generic", labels=("LABEL_0", "LABEL_1"), tokenizer=tok).path
    rc, out = _evaluate(generic, dataset, tmp_path / "bad")
    _refused(capsys, rc, out, "generic (LABEL_0, LABEL_1)", "--label-map FILE")


def _tokenizer(path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path))


def test_hub_names_come_from_the_cache_offline(hf_token_models, conll_files, tmp_path, monkeypatch, capsys):
    cache = offline_cache(tmp_path, monkeypatch)  # HF_HUB_OFFLINE=1, and no socket may connect
    put_in_cache(cache, "someone/bert-ner", hf_token_models["bert"].path)
    rc, out = _evaluate("someone/bert-ner", conll_files / "test.conll", tmp_path)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    meta = read_predictions(out).metadata
    assert meta["model"] == "someone/bert-ner" and meta["model_name"] == "bert-ner"
    with no_waiting():  # one line at once: no retry loop
        rc, out = _evaluate("nobody-here/bert-ner-absent", conll_files / "test.conll", tmp_path / "absent")
    _refused(capsys, rc, out, "nobody-here/bert-ner-absent", "download nobody-here/bert-ner-absent")


@pytest.mark.parametrize("head", ["masked_lm", "sequence"])
def test_a_model_without_a_token_classification_head(head, hf_token_models, conll_files, tmp_path, capsys):
    tok = _tokenizer(hf_token_models["bert"].path)
    model = build_token_model("bert", tmp_path / head, head=head, tokenizer=tok).path
    rc, out = _evaluate(model, conll_files / "test.conll", tmp_path)
    arch = "BertForMaskedLM" if head == "masked_lm" else "BertForSequenceClassification"
    _refused(capsys, rc, out, f"not a token-classification model (config.json names {arch})")


def test_a_slow_tokenizer(hf_token_models, conll_files, tmp_path, capsys):
    from transformers import BertTokenizerLegacy

    model = tmp_path / "slow"
    shutil.copytree(hf_token_models["bert"].path, model)
    vocab = _tokenizer(model).get_vocab()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (model / name).unlink()
    (tmp_path / "vocab.txt").write_text("".join(f"{p}\n" for p in sorted(vocab, key=vocab.get)), encoding="utf-8")
    BertTokenizerLegacy(str(tmp_path / "vocab.txt"), do_lower_case=False).save_pretrained(model)
    rc, out = _evaluate(model, conll_files / "test.conll", tmp_path)
    _refused(capsys, rc, out, "BertTokenizerLegacy is not fast; word alignment needs tokenizer.json")


def test_a_tokenizer_larger_than_the_embeddings(hf_token_models, conll_files, tmp_path, capsys):
    from transformers import AutoConfig, AutoModelForTokenClassification

    model = tmp_path / "small-vocab"
    shutil.copytree(hf_token_models["bert"].path, model)
    config = AutoConfig.from_pretrained(str(model))
    config.vocab_size = 500
    AutoModelForTokenClassification.from_config(config).save_pretrained(model)
    capsys.readouterr()  # transformers' own progress bar
    rc, out = _evaluate(model, conll_files / "test.conll", tmp_path)
    _refused(capsys, rc, out, "the tokenizer has 2000 ids but the model's embedding matrix has 500 rows")


def test_options_for_other_models_are_refused_for_ours(hf_token_models, conll_files, tmp_path, capsys):
    model = tmp_path / "ours"
    shutil.copytree(hf_token_models["bert"].path, model)
    (model / "finetune.json").write_text("{}", encoding="utf-8")
    rc, out = _evaluate(model, conll_files / "test.conll", tmp_path, "--aggregate", "max")
    _refused(capsys, rc, out, "--aggregate: for models not saved by `pretrain finetune`")
