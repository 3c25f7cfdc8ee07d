"""``pretrain prepare`` end to end on real text: content, determinism, reuse, atomicity, edge cases, CLI."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from pretrain.data.config import PrepareConfig
from pretrain.data.prepare import prepare
from pretrain.data.store import ExampleStore
from pretrain.data.tokenizer_tables import load_tokenizer_tables
from tests.conftest import PROJECT_ROOT, corpus_path
from tests.fixtures_sentencepiece import train_unigram
from tokstudy.errors import DataFormatError, TokenizerLoadError

_TOKENIZER: dict[str, Path] = {}
TOKENIZER_LANGUAGES = ("en", "de", "fr", "ru", "zh", "ja", "sw")


def multilingual_tokenizer(tmp_path_factory) -> Path:
    """An ALBERT-style SentencePiece model (pad 0, unk 1, [CLS] [SEP] [MASK]) on several languages, trained once."""
    if "dir" not in _TOKENIZER:
        root = corpus_path("raw_text")
        lines = []
        for lang in TOKENIZER_LANGUAGES:
            with gzip.open(root / f"{lang}.txt.gz", "rt", encoding="utf-8") as f:
                lines += [x.strip() for x in itertools.islice(f, 1200) if x.strip()]
        out = tmp_path_factory.mktemp("prepare_tok")
        (out / "train.txt").write_text("\n".join(lines), encoding="utf-8")
        train_unigram(out / "train.txt", out / "spiece", 3000, albert=True, character_coverage=0.9995, num_threads=1)
        _TOKENIZER["dir"] = out
    return _TOKENIZER["dir"]


@pytest.fixture(scope="module")
def tok(tmp_path_factory) -> Path:
    return multilingual_tokenizer(tmp_path_factory)


def config(tok, out, **kw) -> PrepareConfig:
    base = dict(
        inputs=[str(corpus_path("raw_text_large") / "en.txt.gz")],
        tokenizer=str(tok),
        output=str(out),
        max_examples=1500,
        shuffle_buffer=500,
    )
    return PrepareConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def en_store(tok, tmp_path_factory):
    out = tmp_path_factory.mktemp("prep") / "en"
    prepare(config(tok, out), progress=False)
    return ExampleStore(out)


def decode_restored(sp, store, i):
    """A and B of example i with the original tokens put back, decoded to text."""
    a = store.arrays
    ids = np.array(a["input_ids"][i]).astype(np.int64)
    pos, lab = np.array(a["mlm_positions"][i]), np.array(a["mlm_labels"][i])
    ids[pos[pos >= 0]] = lab[pos >= 0]
    n, b = int(a["lengths"][i]), int(a["segment_b_start"][i])
    return sp.decode(ids[1 : b - 1].tolist()), sp.decode(ids[b : n - 1].tolist())


def test_examples_are_real_text_in_sop_order(en_store, tok):
    store = en_store
    store.verify()
    sp, tables = load_tokenizer_tables(tok)
    assert len(store) == 1500
    meta = store.meta
    assert meta["task"] == "sop" and meta["vocab_size"] == sp.get_piece_size()
    assert meta["special_ids"] == {
        "pad": 0,
        "unk": 1,
        "cls": sp.piece_to_id("[CLS]"),
        "sep": sp.piece_to_id("[SEP]"),
        "mask": sp.piece_to_id("[MASK]"),
    }
    assert meta["tokenizer"]["sha256"] == tables.sha256
    assert meta["config"]["seed"] == 12345 and "output" not in meta["config"]
    # the whole corpus decoded the way pieces decode, to look the examples up in
    from pretrain.data.documents import split_sentences
    from tokstudy.data.rawtext import read_raw_text

    docs = []
    for d in read_raw_text(corpus_path("raw_text_large") / "en.txt.gz"):
        segs = sp.encode([s for line in d.lines for s in split_sentences(line)], out_type=int)
        docs.append(" ".join(sp.decode(s) for s in segs if s))
    corpus = "\n".join(docs)
    in_order = 0
    for i in range(0, len(store), 5):
        a, b = decode_restored(sp, store, i)
        assert a and b
        fa, fb = corpus.find(a), corpus.find(b)
        assert fa >= 0 and fb >= 0, (i, a[:80], b[:80])
        label = int(store.arrays["sentence_order_label"][i])
        in_order += (fa < fb) == (label == 0)
    assert in_order / len(range(0, len(store), 5)) > 0.98  # (a repeated phrase can be found earlier)
    labels = np.asarray(store.arrays["sentence_order_label"])
    from scipy import stats

    assert stats.binomtest(int(labels.sum()), len(labels), 0.5).pvalue > 0.001
    s = meta["stats"]
    assert s["examples"] == 1500 and s["tokens"] == int(np.asarray(store.lengths, np.int64).sum())
    assert s["masked_tokens"] == int((np.asarray(store.arrays["mlm_positions"]) >= 0).sum())


def test_determinism_by_seed(en_store, tok, tmp_path):
    again = tmp_path / "again"
    prepare(config(tok, again), progress=False)
    for f in sorted(p.name for p in en_store.path.iterdir()):
        assert (again / f).read_bytes() == (en_store.path / f).read_bytes(), f
    other = tmp_path / "other"
    prepare(config(tok, other, seed=7), progress=False)
    assert (other / "input_ids.npy").read_bytes() != (again / "input_ids.npy").read_bytes()


def test_reuse_and_rebuild(tok, tmp_path):
    out = tmp_path / "s"
    cfg = config(tok, out, max_examples=200)
    first = prepare(cfg, progress=False)
    assert not first.reused and first.num_examples == 200 and first.tokens > 0
    stamp = (out / "input_ids.npy").stat().st_mtime_ns
    second = prepare(cfg, progress=False)
    assert second.reused and second.num_examples == 200 and second.tokens == first.tokens
    assert (out / "input_ids.npy").stat().st_mtime_ns == stamp
    # a changed setting, or force, rebuilds
    third = prepare(config(tok, out, max_examples=200, masked_lm_prob=0.2), progress=False)
    assert not third.reused
    assert json.loads((out / "meta.json").read_text())["config"]["masked_lm_prob"] == 0.2
    assert not prepare(config(tok, out, max_examples=200, masked_lm_prob=0.2), progress=False, force=True).reused
    # a damaged store is not reused
    (out / "lengths.npy").write_bytes(b"garbage")
    assert not prepare(config(tok, out, max_examples=200, masked_lm_prob=0.2), progress=False).reused
    assert len(ExampleStore(out)) == 200


def test_failure_leaves_no_partial_store(tok, tmp_path, monkeypatch):
    out = tmp_path / "s"
    prepare(config(tok, out, max_examples=100), progress=False)
    from pretrain.data import masking

    calls = {"n": 0}
    original = masking.NgramMasker.mask

    def failing(self, *a, **k):
        calls["n"] += 1
        if calls["n"] > 150:
            raise RuntimeError("disk full")
        return original(self, *a, **k)

    monkeypatch.setattr(masking.NgramMasker, "mask", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        prepare(config(tok, out, max_examples=300, shuffle_buffer=50), progress=False)
    assert [p.name for p in tmp_path.iterdir()] == ["s"]  # no temporary directory left
    assert len(ExampleStore(out)) == 100  # the old store is intact


def test_multilingual_single_sentence_corpus(tok, tmp_path):
    """raw_text: one sentence per document; temperature sampling across en/zh/sw."""
    langs = ["en", "sw", "zh"]
    cfg = config(
        tok,
        tmp_path / "m",
        inputs=["raw_text"],
        languages=langs,
        max_examples=3000,
        language_alpha=0.3,
        split_sentences=False,
    )
    prepare(cfg, progress=False)
    store = ExampleStore(tmp_path / "m")
    store.verify()
    s = store.meta["stats"]
    assert set(s["languages"]) == set(langs)
    total = sum(v["bytes"] for v in s["languages"].values())
    for lang, v in s["languages"].items():
        assert v["bytes"] / total == pytest.approx(v["probability"], abs=0.02), lang
        assert v["examples"] > 0
    assert s["languages"]["zh"]["rate"] > 1 > s["languages"]["en"]["rate"]
    pairs = s["pairs"]
    # en/zh documents are one sentence: most chunks are single segments, split in two (sw has verses)
    assert pairs["single_segment_split"] > 0.6 * pairs["chunks"]
    assert len(store) == pairs["chunks"] - pairs.get("single_segment_skipped", 0)


def test_edge_cases_corpus(tok, tmp_path):
    text = (
        "First document. It has two sentences.\n   \n\n\n"
        "Word\n\n"
        "x\n\n"
        + " ".join(["supercalifragilistic expialidocious"] * 400)
        + "\n\n"
        + "\u200b\u200b\n"  # only characters the normaliser removes
        + "\t\t\n"
        + "Ein letzter Satz. Und noch einer!\nZweite Zeile.\n"
    )
    path = tmp_path / "xx.txt"
    path.write_text(text, encoding="utf-8")
    cfg = PrepareConfig(
        inputs=[str(path)],
        tokenizer=str(tok),
        output=str(tmp_path / "e"),
        max_seq_length=32,
        max_predictions=5,
        short_seq_prob=0.0,
    )
    prepare(cfg, progress=False)
    store = ExampleStore(tmp_path / "e")
    store.verify()
    pairs = store.meta["stats"]["pairs"]
    assert pairs["long_segments_cut"] == 1  # the 800-word line
    assert pairs["empty_segments_dropped"] >= 1  # the zero-width line
    assert np.asarray(store.lengths).max() <= 32
    assert len(store) > 40  # the long line gives many examples
    batch = store.get_batch(np.arange(len(store)))
    assert batch["input_ids"].shape[1] <= 32


def test_nsp_task(tok, tmp_path):
    cfg = config(tok, tmp_path / "n", task="nsp", max_examples=800)
    prepare(cfg, progress=False)
    store = ExampleStore(tmp_path / "n")
    assert store.task == "nsp"
    labels = np.asarray(store.arrays["sentence_order_label"])
    assert abs(labels.mean() - 0.5) < 0.06


def test_bad_tokenizer_and_config(tmp_path):
    import sentencepiece as spm

    with pytest.raises(TokenizerLoadError, match="no sentencepiece model"):
        load_tokenizer_tables(tmp_path)
    lines = [x.strip() for x in itertools.islice(gzip.open(corpus_path("raw_text") / "en.txt.gz", "rt"), 500)]
    (tmp_path / "t.txt").write_text("\n".join(lines))
    spm.SentencePieceTrainer.train(
        input=str(tmp_path / "t.txt"), model_prefix=str(tmp_path / "spiece"), vocab_size=300, minloglevel=2
    )
    with pytest.raises(TokenizerLoadError, match=r"lacks ALBERT special pieces \['pad', 'cls', 'sep', 'mask'\]"):
        load_tokenizer_tables(tmp_path)
    with pytest.raises(ValueError, match="task must be one of"):
        PrepareConfig(task="mlm")
    with pytest.raises(ValueError, match="max_predictions"):
        PrepareConfig(max_seq_length=16, max_predictions=14)
    (tmp_path / "c.yaml").write_text("inputs: [a]\nmax_seq_lenght: 64\n")
    with pytest.raises(DataFormatError, match=r"c.yaml: unknown key 'max_seq_lenght' in PrepareConfig"):
        PrepareConfig.from_yaml(tmp_path / "c.yaml")


def test_shipped_configs_load():
    files = sorted((PROJECT_ROOT / "pretrain" / "configs").glob("prepare_*.yaml"))
    assert {f.name for f in files} >= {"prepare_tiny.yaml", "prepare_base.yaml"}
    for f in files:
        cfg = PrepareConfig.from_yaml(f)
        assert cfg.inputs and cfg.tokenizer and cfg.output
    assert PrepareConfig.from_yaml(files[-1], seed=3, output="x").seed == 3


def test_cli(tok, tmp_path, capsys):
    from pretrain.cli import main

    with pytest.raises(SystemExit):
        main(["prepare", "--help"])
    assert "--tokenizer" in capsys.readouterr().out
    out = tmp_path / "cli"
    args = [
        "prepare",
        "--config",
        str(PROJECT_ROOT / "pretrain/configs/prepare_tiny.yaml"),
        "--input",
        str(corpus_path("raw_text_large") / "en.txt.gz"),
        "--tokenizer",
        str(tok),
        "--output",
        str(out),
        "--max-examples",
        "100",
        "--no-progress",
    ]
    assert main(args) == 0
    assert "100 examples" in capsys.readouterr().out and len(ExampleStore(out)) == 100
    assert main(args) == 0
    assert "reused" in capsys.readouterr().out
    assert main(["prepare", "--input", "nowhere/xx", "--tokenizer", str(tok), "--output", str(out)]) == 1
    assert "nowhere/xx" in capsys.readouterr().err
