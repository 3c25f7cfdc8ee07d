"""Issue 33 item 6: the rough edges a newcomer hit when loading tokenizers.

Labels of generic file names, a folder holding several tokenizers, JSON that is no tokenizer (with the
position of a syntax error checked against where the file was cut), ``tiktoken:NAME`` offline, and the
training settings of a SentencePiece model read from the model (checked against sentencepiece's own
``sentencepiece_model_pb2``).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import sys
import warnings

import pytest

from tests.conftest import PROJECT_ROOT, corpus_path
from tests.fixtures_sentencepiece import train_unigram
from tokstudy.errors import TokenizerLoadError
from tokstudy.inputs import load_tokenizers
from tokstudy.tokenization.loading import load_tokenizer
from tokstudy.tokenization.sentencepiece_ import CrossWordPiecesWarning, SentencePieceSegmenter

TEXT = ["The European Commission said on Thursday it disagreed with German advice .", "Москва и Брюссель"] * 50


@pytest.fixture(scope="module")
def small_spm(tmp_path_factory):
    return train_unigram(TEXT, tmp_path_factory.mktemp("spm") / "small", 40, num_threads=1)


# ---- labels ----------------------------------------------------------------------------------------


def test_a_generic_file_is_labelled_by_its_own_name_not_its_folder(small_spm, tmp_path):
    """``data/tokenizer.model.v1`` was labelled "data"."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(small_spm, data / "tokenizer.model.v1")
    shutil.copy(small_spm, data / "tokenizer.model")
    assert load_tokenizer(data / "tokenizer.model.v1").name == "tokenizer.v1"
    assert load_tokenizer(data / "tokenizer.model").name == "tokenizer"
    # a directory given as such keeps the directory's name (a Hugging Face or Mistral download)
    hf = tmp_path / "albert-base-v2"
    hf.mkdir()
    shutil.copy(small_spm, hf / "spiece.model")
    assert load_tokenizer(hf).name == "albert-base-v2"


def test_two_files_of_one_name_are_told_apart_by_their_folders(small_spm, tmp_path):
    for folder in ("mistral-7b", "mixtral"):
        (tmp_path / folder).mkdir()
        shutil.copy(small_spm, tmp_path / folder / "tokenizer.model.v1")
    segs = load_tokenizers([str(tmp_path / "mistral-7b" / "tokenizer.model.v1"), str(tmp_path / "mixtral")])
    assert [s.name for s in segs] == ["tokenizer.v1", "mixtral"]
    segs = load_tokenizers([str(tmp_path / f / "tokenizer.model.v1") for f in ("mistral-7b", "mixtral")])
    assert [s.name for s in segs] == ["mistral-7b/tokenizer.v1", "mixtral/tokenizer.v1"]
    named = load_tokenizers([f"a={tmp_path / 'mistral-7b' / 'tokenizer.model.v1'}", str(tmp_path / "mixtral")])
    assert [s.name for s in named] == ["a", "mixtral"]
    with pytest.raises(TokenizerLoadError, match="names repeat"):  # the same file twice
        load_tokenizers([str(tmp_path / "mixtral" / "tokenizer.model.v1")] * 2)


def test_the_label_reaches_the_command_line_table(small_spm, tmp_path, capsys):
    from tokstudy.cli import main

    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(small_spm, data / "tokenizer.model.v1")
    conll = tmp_path / "x.conll"
    conll.write_text("European B-ORG\nCommission I-ORG\nsaid O\n", encoding="utf-8")
    code = main(
        ["stats", "-d", str(conll), "-t", str(data / "tokenizer.model.v1"), "--resamples", "0", "--no-progress"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "| tokenizer.v1 |" in out and "| data |" not in out


# ---- a folder holding several tokenizers -------------------------------------------------------------


def test_a_folder_with_several_tokenizers_names_them_and_asks_which(small_spm, tmp_path):
    shutil.copy(small_spm, tmp_path / "tokenizer.model.v1")
    shutil.copy(small_spm, tmp_path / "tokenizer.model.v3")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(tmp_path)
    assert str(info.value) == (
        f"{tmp_path}: directory holds 2 tokenizer files (tokenizer.model.v1, tokenizer.model.v3); which one? "
        f"Give it as the path, e.g. {tmp_path / 'tokenizer.model.v1'}"
    )
    (tmp_path / "tokenizer.model.v3").unlink()
    assert load_tokenizer(tmp_path).segment(["European"]).as_lists() == (
        load_tokenizer(small_spm).segment(["European"]).as_lists()
    )


def test_a_folder_without_tokenizer_says_what_it_holds(tmp_path):
    for name in ("README.md", "config.json"):
        (tmp_path / name).write_text("{}")
    with pytest.raises(TokenizerLoadError, match=r"holds no tokenizer .*; it holds README\.md, config\.json\)$"):
        load_tokenizer(tmp_path)


def test_a_folder_with_one_tiktoken_file_loads_it(tmp_path):
    pytest.importorskip("tiktoken")
    ranks = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256))
    (tmp_path / "o200k_base.tiktoken").write_text(ranks)
    seg = load_tokenizer(tmp_path)
    assert seg.kind == "tiktoken" and seg.name == tmp_path.name
    assert seg.segment(["ab"]).as_lists() == [["Ġ", "a", "b"]]


# ---- JSON that is no tokenizer -----------------------------------------------------------------------


def _tekken_text(*, indent: int | None) -> str:
    """A Tekken file of the 256 bytes, whose token strings hold characters of two UTF-8 bytes."""
    vocab = [
        {"rank": b, "token_bytes": base64.b64encode(bytes([b])).decode(), "token_str": "é" * 3} for b in range(256)
    ]
    config = {"pattern": r"\s+|\S+", "default_vocab_size": 266, "default_num_special_tokens": 10}
    return json.dumps({"config": config, "vocab": vocab, "special_tokens": []}, ensure_ascii=False, indent=indent)


@pytest.mark.parametrize("indent", [1, None], ids=["pretty", "one-line"])
@pytest.mark.parametrize("file_name", ["tekken.json", "mistral.json", "tok.bin"])
def test_a_cut_tekken_file_is_reported_where_it_was_cut(tmp_path, indent, file_name):
    text = _tekken_text(indent=indent)
    opening = text.rindex('"token_str": "', 0, len(text) // 2) + len('"token_str": ')  # the value's opening quote
    path = tmp_path / file_name
    path.write_text(text[: opening + 3], encoding="utf-8")  # cut two characters into the string
    line = text.count("\n", 0, opening) + 1
    column = opening - (text.rfind("\n", 0, opening) + 1) + 1  # in characters, 1-based
    assert text.splitlines()[line - 1][column - 1] == '"'
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: not valid JSON at column {column}: Unterminated string")
    assert "Mistral Tekken" in message and "\n" not in message
    if file_name != "tekken.json":
        assert "tried as a Hugging Face tokenizer.json" in message


def test_json_of_another_shape_names_its_keys_and_the_formats_tried(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": 1}')
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(path)
    assert str(info.value).startswith(f"{path}: an object with the keys 'a', which is no tokenizer format")
    assert "Hugging Face tokenizer.json" in str(info.value) and "Mistral Tekken" in str(info.value)


def test_the_whole_tekken_file_still_loads(tmp_path):
    pytest.importorskip("tiktoken")
    path = tmp_path / "mistral.json"
    path.write_text(_tekken_text(indent=1), encoding="utf-8")
    assert load_tokenizer(path).kind == "tekken"


# ---- tiktoken:NAME offline ---------------------------------------------------------------------------


def test_tiktoken_name_offline_names_the_cache_variable(tmp_path):
    """No network (a proxy that refuses every connection) and an empty cache: the message says where tiktoken
    looked and how to fill it, in one line."""
    pytest.importorskip("tiktoken")
    cache = tmp_path / "cache"
    cache.mkdir()
    refused = "http://127.0.0.1:9"
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "PYTHONPATH": str(PROJECT_ROOT)}
    env.update({k: refused for k in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")})
    env.pop("NO_PROXY", None), env.pop("no_proxy", None)
    conll = tmp_path / "x.conll"
    conll.write_text("Paris B-LOC\n", encoding="utf-8")
    cmd = [
        sys.executable,
        "-m",
        "tokstudy",
        "segment",
        "-d",
        conll,
        "-t",
        "tiktoken:r50k_base",
        "-o",
        tmp_path / "s.csv",
    ]
    done = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith("tokstudy segment: error: tiktoken:r50k_base: could not load the encoding")
    assert f"TIKTOKEN_CACHE_DIR={cache}" in lines[0] and "--tiktoken-pattern" in lines[0]


# ---- SentencePiece training settings, read from the model --------------------------------------------


@pytest.fixture(scope="module")
def settings_models(tmp_path_factory) -> dict[str, object]:
    """Unigram models of 2000 pieces trained on the first 3000 sentences of raw_text/en, with the settings
    that decide how a word stands in a sentence varied."""
    from tokstudy.data.rawtext import iter_sentences

    sentences = list(itertools.islice(iter_sentences(corpus_path("raw_text") / "en.txt.gz"), 3000))
    d = tmp_path_factory.mktemp("spm_settings")
    options = {
        "default": {},
        "no_whitespace_split": {"split_by_whitespace": False},
        "no_split_no_prefix": {"split_by_whitespace": False, "add_dummy_prefix": False},
        "suffix_no_extra": {"treat_whitespace_as_suffix": True, "remove_extra_whitespaces": False},
    }
    return {k: train_unigram(sentences, d / k, 2000, num_threads=1, **v) for k, v in options.items()}


def _reference(path):
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2", reason="needs protobuf for the reference")
    proto = pb.ModelProto()
    proto.ParseFromString(path.read_bytes())
    return proto


@pytest.mark.parametrize("kind", ["default", "no_whitespace_split", "no_split_no_prefix", "suffix_no_extra"])
def test_settings_equal_sentencepieces_own_reading_of_the_model(settings_models, kind):
    proto = _reference(settings_models[kind])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seg = SentencePieceSegmenter(settings_models[kind])
    s = seg.settings
    assert s.split_by_whitespace == proto.trainer_spec.split_by_whitespace
    assert s.treat_whitespace_as_suffix == proto.trainer_spec.treat_whitespace_as_suffix
    assert s.add_dummy_prefix == proto.normalizer_spec.add_dummy_prefix
    assert s.remove_extra_whitespaces == proto.normalizer_spec.remove_extra_whitespaces
    # pieces that span a word boundary, recounted on the proto's own piece list
    kinds = (proto.SentencePiece.NORMAL, proto.SentencePiece.USER_DEFINED)
    across = [p.piece for p in proto.pieces if p.type in kinds and "\u2581" in p.piece[1:]]
    assert list(seg.cross_word_pieces) == (across if not s.split_by_whitespace else [])
    warned = [w for w in caught if issubclass(w.category, CrossWordPiecesWarning)]
    assert len(warned) == (1 if seg.cross_word_pieces else 0)
    if warned:
        assert "split_by_whitespace=false" in str(warned[0].message) and len(across) > 0


def test_a_model_without_whitespace_split_does_merge_words_in_running_text(settings_models):
    """What the warning says: in a sentence, the model gives pieces that hold two words."""
    with pytest.warns(CrossWordPiecesWarning):
        sp = SentencePieceSegmenter(settings_models["no_whitespace_split"]).processor
    pieces = sp.encode("one of the most important parts of the United States", out_type=str)
    assert any("\u2581" in p[1:] for p in pieces)


def test_words_after_the_anchor_keep_their_own_text(settings_models):
    """A model with neither whitespace split nor dummy prefix: each word's pieces are the word's text (with its
    boundary marker) wherever the anchor did not merge with it."""
    with pytest.warns(CrossWordPiecesWarning):
        seg = SentencePieceSegmenter(settings_models["no_split_no_prefix"])
    words = "The European Commission said on Thursday it disagreed with German advice of the".split()
    merged = 0
    for word, pieces in zip(words, seg.segment(words).as_lists()):
        if pieces and pieces[0].startswith("a\u2581"):
            merged += 1
            continue
        assert "".join(pieces) == "\u2581" + word, (word, pieces)
    assert merged < len(words)


def test_a_model_trained_by_tokstudy_is_read_with_defaults(small_spm):
    seg = SentencePieceSegmenter(small_spm)
    assert seg.settings.split_by_whitespace and seg.settings.add_dummy_prefix and seg.cross_word_pieces == ()
