"""Training configuration, clear errors, and the sample draw."""

from __future__ import annotations

import gzip

import pytest

from tests.conftest import corpus_path
from tokstudy.errors import DataNotFoundError, TokenizerTrainingError
from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers


def _small_corpus(tmp_path, n=60):
    path = tmp_path / "en.txt.gz"
    src = corpus_path("raw_text") / "en.txt.gz"
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        lines = [next(fh) for _ in range(n)]
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(lines)
    return path


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe"])
def test_vocabulary_too_large_says_what_is_possible(tmp_path, algorithm):
    corpus = _small_corpus(tmp_path)
    cfg = TokenizerTrainingConfig(
        inputs=(corpus,),
        output_dir=tmp_path / "out",
        algorithm=algorithm,
        vocab_sizes=(50000,),
        sample_size=0,
        num_threads=1,
    )
    with pytest.raises(TokenizerTrainingError) as info:
        train_tokenizers(cfg, progress=False)
    msg = str(info.value)
    assert "50000 is too large" in msg and "at most" in msg and str(corpus) in msg and "<= " in msg
    largest = int(msg.split("<= ")[1].split(",")[0])
    ok = TokenizerTrainingConfig(
        inputs=(corpus,),
        output_dir=tmp_path / "out",
        algorithm=algorithm,
        vocab_sizes=(largest,),
        sample_size=0,
        num_threads=1,
    )
    (res,) = train_tokenizers(ok, progress=False)
    assert res.vocab_size == largest
    assert not list((tmp_path / "out").glob(".*tmp*"))  # the failed attempt left nothing behind


def test_vocabulary_too_small_for_the_alphabet(tmp_path):
    corpus = _small_corpus(tmp_path)
    cfg = TokenizerTrainingConfig(
        inputs=(corpus,), output_dir=tmp_path / "out", vocab_sizes=(10,), sample_size=0, num_threads=1
    )
    with pytest.raises(TokenizerTrainingError, match=r"too small .* at least \d+ pieces"):
        train_tokenizers(cfg, progress=False)


def test_hf_vocabulary_too_large(tmp_path):
    corpus = _small_corpus(tmp_path, n=20)
    cfg = TokenizerTrainingConfig(
        inputs=(corpus,), output_dir=tmp_path / "out", algorithm="hf-bpe", vocab_sizes=(50000,), sample_size=0
    )
    with pytest.raises(TokenizerTrainingError, match=r"50000 is too large .* could build only \d+ pieces"):
        train_tokenizers(cfg, progress=False)


def test_missing_input(tmp_path):
    cfg = TokenizerTrainingConfig(inputs=(tmp_path / "absent.txt",), output_dir=tmp_path / "out", vocab_sizes=(100,))
    with pytest.raises(DataNotFoundError, match="absent.txt"):
        train_tokenizers(cfg, progress=False)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"algorithm": "wordpieces"}, "algorithm must be one of"),
        ({"vocab_sizes": (0,)}, "positive integers"),
        ({"vocab_sizes": (100, 100)}, "duplicates"),
        ({"sample_size": -1}, "sample_size"),
        ({"character_coverage": 1.5}, "character_coverage"),
        ({"inputs": ()}, "at least one"),
        ({"num_threads": 0}, "num_threads"),
    ],
)
def test_config_validation(kwargs, message):
    base = dict(inputs=("x.txt",), output_dir="out")
    with pytest.raises(ValueError, match=message):
        TokenizerTrainingConfig(**{**base, **kwargs})


def test_config_accepts_single_values():
    cfg = TokenizerTrainingConfig(inputs="x.txt", output_dir="out", vocab_sizes=8000)
    assert cfg.inputs == ("x.txt",) and cfg.vocab_sizes == (8000,)
    assert cfg.directory_for(8000).name == "sp-unigram-8000"


def test_without_albert_specials(tmp_path):
    corpus = _small_corpus(tmp_path, n=600)
    cfg = TokenizerTrainingConfig(
        inputs=(corpus,),
        output_dir=tmp_path,
        vocab_sizes=(300,),
        sample_size=200,
        seed=5,
        albert_specials=False,
        num_threads=1,
    )
    (res,) = train_tokenizers(cfg, progress=False)
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(res.path / "spiece.model"))
    assert (sp.unk_id(), sp.id_to_piece(0)) == (0, "<unk>") and res.n_sentences == 200


@pytest.mark.parametrize("algorithm", ["sp-bpe", "hf-wordpiece"])
def test_a_failing_size_writes_nothing(tmp_path, algorithm):
    """Issue 15: a later size failing must not leave a finished smaller tokenizer behind."""
    corpus = _small_corpus(tmp_path, n=60)
    out = tmp_path / "out"
    cfg = TokenizerTrainingConfig(
        inputs=(corpus,), output_dir=out, algorithm=algorithm, vocab_sizes=(300, 60000, 90000), sample_size=0
    )
    with pytest.raises(
        TokenizerTrainingError, match=r"too large.*\(so are 60000\)|too large.*\(so are 90000\)"
    ) as info:
        train_tokenizers(cfg, progress=False)
    assert "Nothing was written" in str(info.value)
    assert not out.exists()  # not even the folder we would have created
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    with pytest.raises(TokenizerTrainingError):
        train_tokenizers(
            TokenizerTrainingConfig(
                inputs=(corpus,), output_dir=kept, algorithm=algorithm, vocab_sizes=(300, 90000), sample_size=0
            ),
            progress=False,
        )
    assert sorted(p.name for p in kept.iterdir()) == ["notes.txt"]


def test_all_sizes_written_in_the_order_given(tmp_path):
    corpus = _small_corpus(tmp_path, n=200)
    cfg = TokenizerTrainingConfig(
        inputs=(corpus,), output_dir=tmp_path / "out", algorithm="sp-bpe", vocab_sizes=(400, 300), sample_size=0
    )
    res = train_tokenizers(cfg, progress=False)
    assert [r.path.name for r in res] == ["sp-bpe-400", "sp-bpe-300"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["sp-bpe-300", "sp-bpe-400"]  # no staging left


def test_output_that_is_a_file_is_refused_before_any_work(tmp_path):
    corpus = _small_corpus(tmp_path, n=20)
    target = tmp_path / "existing.txt"
    target.write_text("x")
    for out in (target, target / "sub"):
        cfg = TokenizerTrainingConfig(inputs=(corpus,), output_dir=out, vocab_sizes=(100,), sample_size=0)
        with pytest.raises(TokenizerTrainingError, match="existing.txt.*existing file"):
            train_tokenizers(cfg, progress=False)
    assert target.read_text() == "x"
