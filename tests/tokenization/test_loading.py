"""load_tokenizer picks the kind from the path and fails with the path and what was expected."""

from __future__ import annotations

import shutil

import pytest

from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization.loading import load_tokenizer


def test_missing_path_names_it(tmp_path):
    missing = tmp_path / "nope" / "spiece.model"
    with pytest.raises(TokenizerLoadError, match=str(missing)) as info:
        load_tokenizer(missing)
    assert "expected" in str(info.value)


def test_directory_without_tokenizer(tmp_path):
    (tmp_path / "README.md").write_text("hello")
    with pytest.raises(TokenizerLoadError, match=f"{tmp_path}.*expected tokenizer.json, spiece.model"):
        load_tokenizer(tmp_path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "broken.model",
            b"\x00\x01 definitely not a sentencepiece model",
            "broken.model.*not a valid SentencePiece model",
        ),
        (
            "tokenizer.json",
            b'{"version": "1.0", "model": {"type": "Nonsense"}}',
            "tokenizer.json.*not a valid Hugging Face tokenizer.json",
        ),
        ("weights.bin", b"\x00", "weights.bin.*expected .model, tokenizer.json, vocab.txt or .tiktoken"),
        ("vocab.txt", b"a\nb\n", "vocab.txt.*no unknown token"),
    ],
    ids=["corrupt-model", "corrupt-tokenizer-json", "unknown-file-type", "vocab-without-unknown-token"],
)
def test_bad_file_names_it(tmp_path, name, content, message):
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.raises(TokenizerLoadError, match=message):
        load_tokenizer(bad)


def test_names_and_kinds(trained, tmp_path):
    res = trained("sp-unigram")[0]
    assert load_tokenizer(res.path).name == res.path.name
    assert load_tokenizer(res.path, name="spm-small").name == "spm-small"
    assert load_tokenizer(res.path / "spiece.model").name == res.path.name
    copy = tmp_path / "my_model.model"
    shutil.copy(res.path / "spiece.model", copy)
    assert load_tokenizer(copy).name == "my_model"
    assert load_tokenizer(res.path / "tokenizer.json").kind == "hf-tokenizers"
    assert load_tokenizer(res.path).vocab_size == res.vocab_size


def test_public_api_exports():
    import tokstudy
    import tokstudy.tokenization as tt

    assert tokstudy.load_tokenizer is load_tokenizer is tt.load_tokenizer
    assert tokstudy.train_tokenizers is tt.train_tokenizers
