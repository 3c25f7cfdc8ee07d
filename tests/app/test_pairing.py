"""Which tokenizer a model was trained with (``analysis_app.services.pairing``): by the vocabulary file its
folder carries, found where the predictions header says or in the results folder it was moved to; never by name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analysis_app.services.pairing import pair, vocabulary_digests
from analysis_app.services.sources import PredictionSource, TokenizerSource

VOCABS = {"spm-600": b"the 600-piece vocabulary", "spm-1200": b"the 1200-piece vocabulary"}


@pytest.fixture
def study(tmp_path) -> Path:
    """``results/`` with two tokenizer folders and, under ``pretrain/``, a model folder per tokenizer holding a
    byte copy of its ``spiece.model`` (what the exporter writes)."""
    root = tmp_path / "results"
    for name, vocab in VOCABS.items():
        for folder in (root / "tokenizers" / name, root / "pretrain" / name / "run" / "final_model"):
            folder.mkdir(parents=True)
            (folder / "spiece.model").write_bytes(vocab)
    return root


def _tokenizers(root: Path) -> list[TokenizerSource]:
    return [TokenizerSource(name, str(root / "tokenizers" / name), "results") for name in VOCABS]


def _preds(root: Path, model: str) -> PredictionSource:
    return PredictionSource(model, str(root / "predictions" / model / "conll2003_test.tsv"), "conll2003_test")


def test_each_model_pairs_with_the_tokenizer_whose_vocabulary_it_carries(study):
    for name in VOCABS:
        model = study / "pretrain" / name / "run" / "final_model"
        got = pair(_preds(study, name), {"model": str(model)}, _tokenizers(study))
        assert got.known and got.tokenizer == name
        assert str(model) in got.reason and "SentencePiece model" in got.reason


def test_by_content_not_by_name(study):
    """A model published under ``predictions/spm-1200/`` whose folder carries spm-600's vocabulary is spm-600's."""
    model = study / "pretrain" / "spm-1200" / "run" / "final_model"
    (model / "spiece.model").write_bytes(VOCABS["spm-600"])
    assert pair(_preds(study, "spm-1200"), {"model": str(model)}, _tokenizers(study)).tokenizer == "spm-600"


def test_a_moved_results_folder_still_pairs(study, tmp_path):
    """The header keeps the path the fine-tuner saw; the folder was moved since: found under the new root."""
    moved = tmp_path / "elsewhere" / "results"
    shutil.move(study, moved)
    old = study / "pretrain" / "spm-1200" / "run" / "final_model"
    assert not old.exists()
    got = pair(_preds(moved, "spm-1200"), {"model": str(old)}, _tokenizers(moved))
    assert got.tokenizer == "spm-1200"
    assert str(moved / "pretrain" / "spm-1200" / "run" / "final_model") in got.reason


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ({}, "its predictions file records no model (no `model=` line in its header)"),
        ({"model": "  "}, "its predictions file records no model (no `model=` line in its header)"),
        ({"model": "albert-base"}, "the model its predictions name (albert-base) is not a folder holding a vocabulary"),
    ],
)
def test_no_pairing_without_a_model_folder(study, metadata, reason):
    got = pair(_preds(study, "spm-600"), metadata, _tokenizers(study))
    assert not got.known and got.tokenizer is None and got.reason.startswith(reason)


def test_a_vocabulary_no_loaded_tokenizer_has_is_not_guessed(study):
    model = study / "pretrain" / "other" / "final_model"
    model.mkdir(parents=True)
    (model / "spiece.model").write_bytes(b"a vocabulary of its own")
    got = pair(_preds(study, "other"), {"model": str(model)}, _tokenizers(study))
    assert (
        got.tokenizer is None
        and got.reason == f"the vocabulary of the model it names ({model}) is none of the loaded tokenizers'"
    )


def test_a_model_folder_without_a_vocabulary_is_not_a_model_folder(study):
    empty = study / "pretrain" / "empty"
    empty.mkdir(parents=True)
    assert not pair(_preds(study, "x"), {"model": str(empty)}, _tokenizers(study)).known


def test_an_uploaded_model_file_and_a_tokenizer_json(study, tmp_path):
    """A tokenizer loaded as a lone ``.model`` file (an upload) pairs with the model folder's ``spiece.model``;
    a Hugging Face tokenizer by its ``tokenizer.json``, which must then be the same file."""
    upload = tmp_path / "uploads" / "mine.model"
    upload.parent.mkdir()
    upload.write_bytes(VOCABS["spm-1200"])
    model = study / "pretrain" / "spm-1200" / "run" / "final_model"
    toks = [TokenizerSource("mine", str(upload), "upload")]
    assert pair(_preds(study, "m"), {"model": str(model)}, toks).tokenizer == "mine"

    bpe, bpe_model = tmp_path / "bpe", tmp_path / "bpe-model"
    for folder, text in ((bpe, '{"model": 1}'), (bpe_model, '{"model": 1}')):
        folder.mkdir()
        (folder / "tokenizer.json").write_text(text)
    toks = [TokenizerSource("bpe", str(bpe), "path")]
    assert pair(_preds(study, "m"), {"model": str(bpe_model)}, toks).tokenizer == "bpe"
    (bpe_model / "tokenizer.json").write_text('{"model": 2}')
    assert not pair(_preds(study, "m"), {"model": str(bpe_model)}, toks).known


def test_several_sentencepiece_models_name_none(tmp_path):
    (tmp_path / "a.model").write_bytes(b"a")
    (tmp_path / "b.model").write_bytes(b"b")
    assert vocabulary_digests(tmp_path) == {}
    assert set(vocabulary_digests(tmp_path / "a.model")) == {"SentencePiece model"}
