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
    assert load_tokenizer(res.path / "spiece.model").name == "spiece"  # a file: its own name
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


@pytest.fixture(scope="module")
def small_spm(tmp_path_factory):
    from tests.fixtures_sentencepiece import train_unigram

    text = ["The European Commission said on Thursday it disagreed with German advice .", "Москва и Брюссель"] * 50
    return train_unigram(text, tmp_path_factory.mktemp("spm") / "small", 40, num_threads=1)


@pytest.mark.parametrize("file_name", ["tokenizer.model.v1", "tokenizer.model.v3", "weights.bin", "spm"])
def test_sentencepiece_model_is_recognised_by_content(small_spm, tmp_path, file_name):
    """Mistral ships ``tokenizer.model.v1``; the suffix was refused before."""
    words = ["European", "Brussels", "Москва", ","]
    copy = tmp_path / "mistral-7b" / file_name
    copy.parent.mkdir()
    shutil.copy(small_spm, copy)
    seg = load_tokenizer(copy)
    assert seg.kind == "sentencepiece"
    assert seg.segment(words).as_lists() == load_tokenizer(small_spm).segment(words).as_lists()
    # a file is named after itself, its format extension dropped and Mistral's version kept (issue 33 item 6)
    assert seg.name == {"tokenizer.model.v1": "tokenizer.v1", "tokenizer.model.v3": "tokenizer.v3"}.get(
        file_name, file_name.split(".")[0]
    )
    if file_name.startswith("tokenizer.model.v"):  # a folder holding one: named after the folder
        folder = load_tokenizer(copy.parent)
        assert folder.name == "mistral-7b" and folder.segment(words).as_lists() == seg.segment(words).as_lists()


def test_tiktoken_ranks_named_model_are_tiktoken(tmp_path):
    """Llama 3's ``tokenizer.model`` is tiktoken ranks: routed by content, and its pattern asked for."""
    import base64

    pytest.importorskip("tiktoken")
    path = tmp_path / "llama" / "tokenizer.model"
    path.parent.mkdir()
    path.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    with pytest.raises(TokenizerLoadError, match=r"tokenizer\.model: the pre-tokenizer pattern .* not known"):
        load_tokenizer(path)
    seg = load_tokenizer(path.parent, tiktoken_pattern="cl100k")
    assert seg.kind == "tiktoken" and seg.name == "llama" and seg.segment(["ab"]).as_lists() == [["Ġ", "a", "b"]]
