"""tiktoken encodings as segmenters: a ``.tiktoken`` rank file and ``tiktoken:<name>``.

The encoding is built here from its own mergeable ranks (tiktoken's reference BPE trainer on
a slice of the real raw text; no network), written as a ``.tiktoken`` file, loaded with
``load_tokenizer``, and its per-word pieces compared on real CoNLL-2003 and WikiANN
sentences with the sentence encoded as running text (``" " + " ".join(words)``, the
prefix-space convention of byte-level BPE), each token assigned to a word by the
character offsets tiktoken itself reports.
"""

from __future__ import annotations

import base64
import gzip
import itertools

import pytest

from tests.conftest import corpus_path
from tests.tokenization.conftest import conll_sentences, tsv_sentences
from tokstudy.errors import DataFormatError, TokenizerLoadError, TokstudyError
from tokstudy.tokenization.loading import load_tokenizer
from tokstudy.tokenization.tiktoken_ import PATTERNS, byte_to_unicode

tiktoken = pytest.importorskip("tiktoken")


@pytest.fixture(scope="module")
def ranks():
    """Mergeable ranks trained by tiktoken's own reference trainer on English and Russian text."""
    from tiktoken._educational import bpe_train

    root = corpus_path("raw_text")
    lines = []
    for lang in ("en", "ru"):
        with gzip.open(root / f"{lang}.txt.gz", "rt", encoding="utf-8") as fh:
            lines += [l.strip() for l in itertools.islice(fh, 150)]
    return bpe_train("\n".join(lines), 420, PATTERNS["cl100k"], visualise=None)


def write_ranks(path, ranks):
    path.write_text(
        "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in sorted(ranks.items(), key=lambda x: x[1]))
    )
    return path


@pytest.fixture(scope="module")
def rank_file(ranks, tmp_path_factory):
    """The ranks as ``tiny.tiktoken``, its pattern (cl100k's, as trained) in the sidecar ``tiny.tiktoken.pattern``."""
    path = write_ranks(tmp_path_factory.mktemp("tiktoken") / "tiny.tiktoken", ranks)
    path.with_name("tiny.tiktoken.pattern").write_text("cl100k\n")
    return path


def _unicode_to_byte():
    return {c: b for b, c in enumerate(byte_to_unicode())}


def test_byte_map_is_the_byte_level_bpe_one():
    """Pieces read like Hugging Face byte-level pieces: the same 256 characters, space -> Ġ."""
    from tokenizers import pre_tokenizers

    assert sorted(byte_to_unicode()) == sorted(pre_tokenizers.ByteLevel.alphabet())
    assert byte_to_unicode()[ord(" ")] == "Ġ"


@pytest.mark.parametrize("source", ["conll2003", "wikiann-ru"])
def test_pieces_equal_the_running_text_encoding(ranks, rank_file, source):
    from tokenizers import pre_tokenizers

    sents = (
        conll_sentences(corpus_path("conll2003") / "eng.testb.gz", 300)
        if source == "conll2003"
        else tsv_sentences(corpus_path("wikiann") / "ru.test.tsv.gz", 300)
    )
    enc = tiktoken.Encoding("tiny", pat_str=PATTERNS["cl100k"], mergeable_ranks=ranks, special_tokens={})
    seg = load_tokenizer(rank_file)
    assert seg.kind == "tiktoken" and seg.context.family == "byte-level" and "'Ġ'" in seg.describe_boundary_policy()
    distinct = list(dict.fromkeys(w for s in sents for w in s))
    got = dict(zip(distinct, seg.segment(distinct).as_lists()))
    back = _unicode_to_byte()
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    for words in sents:
        text = " " + " ".join(words)
        owner = [i for i, w in enumerate(words) for _ in range(1 + len(w))]
        tokens = enc.encode_ordinary(text)
        _, starts = enc.decode_with_offsets(tokens)
        want = [[] for _ in words]
        for t, start in zip(tokens, starts):
            want[owner[min(start, len(owner) - 1)]].append(enc.decode_single_token_bytes(t))
        for w, expected in zip(words, want):
            pieces = got[w]
            assert [bytes(back[c] for c in p) for p in pieces] == expected, (w, pieces, expected)
            # the same characters Hugging Face's byte-level pre-tokenizer gives the word with its space
            assert "".join(pieces) == "".join(x for x, _ in byte_level.pre_tokenize_str(" " + w))


def test_japan_is_one_piece_with_its_space(rank_file):
    seg = load_tokenizer(rank_file)
    the = seg.segment(["the", "", "the"])
    assert the.as_lists()[0] == the.as_lists()[2] and the.pieces_of(0)[0].startswith("Ġ")
    assert the.counts.tolist()[1] == 0  # empty words get zero pieces
    assert not the.unk.any()


def test_lone_space_piece_switch(rank_file):
    on = load_tokenizer(rank_file)
    off = load_tokenizer(rank_file, count_lone_boundary=False)
    words = ["1234", "(", "Москва"]
    a, b = on.segment(words), off.segment(words)
    for pa, pb in zip(a.as_lists(), b.as_lists()):
        assert pb == ([p for p in pa if p != "Ġ"] or pa[:1])
    assert "not counted" in off.describe_boundary_policy()


def test_pattern_by_name_and_file_name(rank_file, tmp_path):
    from tokstudy.tokenization.tiktoken_ import pattern_for

    assert pattern_for(tmp_path / "o200k_base.tiktoken", None) == PATTERNS["o200k"]
    assert pattern_for(tmp_path / "x.tiktoken", "r50k") == PATTERNS["r50k"]
    assert pattern_for(tmp_path / "x.tiktoken", "cl100k_base") == PATTERNS["cl100k"]
    gpt2 = load_tokenizer(rank_file, tiktoken_pattern="gpt2")  # the argument wins over the sidecar
    assert gpt2.encoding._pat_str == PATTERNS["r50k"]
    assert load_tokenizer(rank_file).encoding._pat_str == PATTERNS["cl100k"]  # the sidecar


def test_file_of_unknown_pattern_is_refused_never_cl100k(ranks, tmp_path):
    """A file named after no OpenAI encoding, without a pattern: an error naming the file and the ways to give it."""
    from tokstudy.tokenization.tiktoken_ import pattern_for

    path = write_ranks(tmp_path / "bengali-32k.tiktoken", ranks)
    for attempt in (lambda: load_tokenizer(path), lambda: pattern_for(path, None)):
        with pytest.raises(TokenizerLoadError, match=r"bengali-32k\.tiktoken: the pre-tokenizer pattern") as info:
            attempt()
        message = str(info.value)
        assert "--tiktoken-pattern" in message and "bengali-32k.tiktoken.pattern" in message


@pytest.mark.parametrize("given", ["r50k", "gpt2", "p50k_base", "regex"])
def test_sidecar_gives_the_pattern(ranks, tmp_path, given):
    path = write_ranks(tmp_path / "mine.tiktoken", ranks)
    regex = r""" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+"""
    path.with_name("mine.tiktoken.pattern").write_text((regex if given == "regex" else given) + "\n")
    seg = load_tokenizer(path)
    expected = regex if given == "regex" else PATTERNS["r50k"]
    assert seg.encoding._pat_str == expected
    enc = tiktoken.Encoding("ref", pat_str=expected, mergeable_ranks=ranks, special_tokens={})
    words = ["Washington", "don't", "12345", "Москва", "(EU)"]
    back = _unicode_to_byte()
    for word, pieces in zip(words, seg.segment(words).as_lists()):
        want = [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(" " + word)]
        assert [bytes(back[c] for c in p) for p in pieces] == want, word


@pytest.mark.parametrize("bad", ["cl100", "", "   "], ids=["typo", "empty", "blank"])
def test_unknown_pattern_name_is_refused(rank_file, tmp_path, bad):
    with pytest.raises(TokenizerLoadError, match="is not a pre-tokenizer pattern; expected one of cl100k"):
        load_tokenizer(rank_file, tiktoken_pattern=bad)
    sidecar = write_ranks(tmp_path / "s.tiktoken", {bytes([b]): b for b in range(256)}).with_name("s.tiktoken.pattern")
    sidecar.write_text(bad)
    with pytest.raises(TokenizerLoadError, match=r"s\.tiktoken\.pattern: .* is not a pre-tokenizer pattern"):
        load_tokenizer(tmp_path / "s.tiktoken")


def test_bad_rank_file_names_file_and_line(rank_file, tmp_path):
    bad = tmp_path / "bad.tiktoken"
    lines = rank_file.read_text().splitlines()
    lines[2] = "not-base64!! 2"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"bad\.tiktoken:3: expected '<base64 token> <rank>'"):
        load_tokenizer(bad)


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [("QQ==\n", DataFormatError, r"bad\.tiktoken:1: .*got 1 fields"), ("", TokenizerLoadError, "empty tiktoken file")],
    ids=["one-field", "empty"],
)
def test_short_rank_file_is_refused(tmp_path, text, error, message):
    (tmp_path / "bad.tiktoken").write_text(text)
    with pytest.raises(error, match=message):
        load_tokenizer(tmp_path / "bad.tiktoken")


def test_unknown_encoding_name_is_a_clean_error():
    with pytest.raises(TokstudyError, match="tiktoken:no_such_encoding"):
        load_tokenizer("tiktoken:no_such_encoding")


def test_core_imports_without_tiktoken():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['tiktoken'] = None\n"
        "import tokstudy, tokstudy.tokenization.loading, tokstudy.analysis.table\n"
        "from tokstudy.tokenization.loading import load_tokenizer\n"
        "try:\n    load_tokenizer('tiktoken:cl100k_base')\n"
        "except Exception as e:\n    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("TokenizerLoadError") and "pip install" in out
