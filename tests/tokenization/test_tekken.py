"""Mistral's Tekken JSON as a segmenter, checked against ``tiktoken.Encoding`` built from the same ranks and pattern.

The file is built here in the format ``mistral-common`` ships (``tekken.json``: a ``config`` with its
``pattern``, ``default_vocab_size`` and ``default_num_special_tokens``, a ``vocab`` list of
``{rank, token_bytes (base64), token_str}`` and ``special_tokens``), with ranks trained here by
tiktoken's reference BPE trainer under a pattern that is none of OpenAI's. The file's vocabulary
holds more entries than ``default_vocab_size`` leaves room for, as shipped files do.
"""

from __future__ import annotations

import base64
import json
import shutil

import pytest

from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization.loading import load_tokenizer
from tokstudy.tokenization.tiktoken_ import byte_to_unicode

tiktoken = pytest.importorskip("tiktoken")

#: a Tekken-style pattern (digits one by one, cased words kept whole): not one of OpenAI's
PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
TEXT = (
    "The European Commission said on Thursday it disagreed with German advice to consumers to shun British lamb "
    "until scientists determine whether mad cow disease can be transmitted to sheep. 1996-08-22 Brussels 12345 "
    "Европейская комиссия заявила в четверг, что не согласна с советом Германии. Москва Санкт-Петербург "
)
WORDS = ["Washington", "European", "Commission's", "1996-08-22", "12345", "Москва", "Санкт-Петербург", "(EU)", "ﬁ"]
N_SPECIAL, EXTRA = 10, 7


@pytest.fixture(scope="module")
def ranks():
    from tiktoken._educational import bpe_train

    return bpe_train(TEXT * 3, 400, PATTERN, visualise=None)


def tekken_data(ranks, *, n_special=N_SPECIAL, extra=EXTRA) -> dict:
    """Tekken JSON of ``ranks``, with ``extra`` vocabulary entries past ``default_vocab_size``."""
    ordered = sorted(ranks.items(), key=lambda x: x[1])
    vocab = [
        {"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": t.decode("utf-8", "replace")}
        for t, r in ordered
    ]
    vocab += [
        {"rank": len(ordered) + i, "token_bytes": base64.b64encode(f"<extra{i}>".encode()).decode(), "token_str": None}
        for i in range(extra)
    ]
    specials = [
        {"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]"])
    ]
    return {
        "config": {
            "pattern": PATTERN,
            "num_vocab_tokens": len(vocab),
            "default_vocab_size": len(ordered) + n_special,
            "default_num_special_tokens": n_special,
            "version": "v7",
        },
        "vocab": vocab,
        "special_tokens": specials,
    }


@pytest.fixture(scope="module")
def tekken_file(ranks, tmp_path_factory):
    path = tmp_path_factory.mktemp("mistral") / "tekken.json"
    path.write_text(json.dumps(tekken_data(ranks)), encoding="utf-8")
    return path


def _as_bytes(pieces):
    back = {c: b for b, c in enumerate(byte_to_unicode())}
    return [bytes(back[c] for c in p) for p in pieces]


def test_pieces_equal_tiktoken_with_the_same_ranks_and_pattern(ranks, tekken_file):
    seg = load_tokenizer(tekken_file)
    assert seg.kind == "tekken" and seg.name == "tekken"  # a file is named after itself (issue 33 item 6)
    assert load_tokenizer(tekken_file.parent).name == tekken_file.parent.name  # a folder after the folder
    assert seg.vocab_size == len(ranks) + N_SPECIAL  # the model's: special tokens included
    assert seg.encoding.n_vocab == len(ranks)  # the extra entries past default_vocab_size are not used
    enc = tiktoken.Encoding("ref", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
    words = WORDS + TEXT.split()
    for word, pieces in zip(words, seg.segment(words).as_lists()):
        want = [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(" " + word)]
        assert _as_bytes(pieces) == want, word
    # the pattern is the file's: under cl100k's, digits go in threes
    assert seg.segment(["12345"]).counts[0] == 1 + 5


def test_found_by_content_in_a_folder_and_under_another_name(tekken_file, tmp_path):
    reference = load_tokenizer(tekken_file).segment(WORDS).as_lists()
    assert load_tokenizer(tekken_file.parent).segment(WORDS).as_lists() == reference
    other = tmp_path / "mistral-nemo.json"
    shutil.copy(tekken_file, other)
    seg = load_tokenizer(other)
    assert seg.kind == "tekken" and seg.name == "mistral-nemo"
    assert seg.segment(WORDS).as_lists() == reference


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["vocab"][5].update(rank=9), r"vocab entry 5 has rank 9; expected ranks 0, 1, 2"),
        (lambda d: d["vocab"][3].update(token_bytes="!!"), r"vocab entry 3: expected \{'rank'"),
        (lambda d: d["config"].pop("default_vocab_size"), r"needs integer 'default_vocab_size'"),
        (lambda d: d["config"].update(default_vocab_size=10**6), r"Tekken vocab has \d+ entries"),
        (lambda d: d["config"].update(default_num_special_tokens=2), r"default_num_special_tokens=2 .* 4 special"),
    ],
    ids=["rank-order", "bad-base64", "no-vocab-size", "vocab-too-short", "too-few-special"],
)
def test_bad_tekken_file_names_file_and_entry(ranks, tmp_path, change, message):
    data = tekken_data(ranks)
    change(data)
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerLoadError, match=rf"tekken\.json: .*{message}"):
        load_tokenizer(path)


def test_other_json_names_both_formats_it_was_tried_as(tmp_path):
    """Neither shape: the message says so, with both formats (it named Hugging Face's only before issue 33)."""
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({"config": {}, "vocab": []}))
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(path)
    assert str(info.value) == (
        f"{path}: an object with the keys 'config', 'vocab', which is no tokenizer format tokstudy knows; tried "
        "as a Hugging Face tokenizer.json (an object with a 'model') and as a Mistral Tekken file (a 'config' with "
        "a 'pattern', and a 'vocab' list)"
    )


def test_a_tokenizer_json_the_hugging_face_loader_refuses_keeps_its_message(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({"model": {"type": "NoSuchModel"}}))
    with pytest.raises(TokenizerLoadError, match="not a valid Hugging Face tokenizer.json"):
        load_tokenizer(path)
