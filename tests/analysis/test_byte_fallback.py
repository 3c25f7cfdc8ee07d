"""Byte-fallback pieces (``<0xE1>``) counted and reported like unknown pieces: flags, figure, warning, outputs.

A SentencePiece BPE with ``byte_fallback`` is trained here on English sentences only, then meets
Amharic (Ethiopic script) words: it spells each of their characters as three UTF-8 byte pieces
and reports no unknown piece. Every count is checked against a recount from the model itself
(``SentencePieceProcessor.is_byte`` per id), and the figures that existed before are checked to
be the ones computed without the byte-fallback column.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace

import numpy as np
import pytest

from tokstudy.analysis.stats import table_statistics
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table
from tokstudy.analysis.table.coverage import BYTE_THRESHOLD, ByteFallbackWarning, byte_fallback_share
from tokstudy.data.types import Dataset, Sentence
from tokstudy.tokenization.loading import load_tokenizer

ENGLISH = "The European Commission said on Thursday it disagreed with German advice to consumers ."
AMHARIC = [  # (words, tags): Addis Ababa is the capital of Ethiopia
    (("አዲስ", "አበባ", "የኢትዮጵያ", "ዋና", "ከተማ", "ናት", "."), ("B-LOC", "I-LOC", "B-LOC", "O", "O", "O", "O")),
    (("ሰላም", "ለኢትዮጵያ", "ሕዝብ", "The", "Commission"), ("O", "B-LOC", "O", "O", "B-ORG")),
]


@pytest.fixture(scope="module")
def byte_bpe(tmp_path_factory):
    import sentencepiece as spm

    prefix = tmp_path_factory.mktemp("bytebpe") / "en-bpe"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([ENGLISH] * 100),
        model_prefix=str(prefix),
        vocab_size=320,
        model_type="bpe",
        byte_fallback=True,
        character_coverage=1.0,
        minloglevel=2,
    )
    return load_tokenizer(f"{prefix}.model")


def _datasets():
    amh = Dataset(tuple(Sentence(w, t, sent_id=i) for i, (w, t) in enumerate(AMHARIC)), name="amh", split="test")
    eng = Dataset((Sentence(tuple(ENGLISH.split()), ("O", "B-ORG", "I-ORG") + ("O",) * 11),), name="eng", split="test")
    return [amh, eng]


@pytest.fixture(scope="module")
def table(byte_bpe):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ByteFallbackWarning)
        return segmentation_table(_datasets(), [byte_bpe], progress=False)


def test_byte_pieces_are_flagged_from_the_model(byte_bpe):
    words = ["አዲስ", "Commission", "ok"]
    seg = byte_bpe.segment(words)
    sp = byte_bpe.processor
    assert seg.byte.tolist() == [sp.is_byte(int(i)) for i in seg.ids]
    assert seg.byte[: seg.offsets[1]].sum() == 9 and not seg.unk.any()  # three Ethiopic letters, three bytes each
    assert seg.pieces_of(2)[-1] == "<0x6B>"  # no 'k' in the English text
    assert all((p.startswith("<0x") and p.endswith(">")) == b for p, b in zip(seg.pieces, seg.byte.tolist()))


def test_hugging_face_byte_fallback_bpe_is_flagged():
    from tokenizers import Tokenizer, models, pre_tokenizers

    from tokstudy.tokenization.hf import HFTokenizerSegmenter

    vocab = {"<unk>": 0, **{f"<0x{b:02X}>": 1 + b for b in range(256)}, "▁": 257, "a": 258, "b": 259, "▁a": 260}
    for byte_fallback in (True, False):
        tok = Tokenizer(models.BPE(vocab, [("▁", "a")], unk_token="<unk>", byte_fallback=byte_fallback))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        seg = HFTokenizerSegmenter(tok, name="hf").segment(["ab", "ሰ"])
        if byte_fallback:
            assert seg.as_lists() == [["▁a", "b"], ["▁", "<0xE1>", "<0x88>", "<0xB0>"]]
            assert seg.byte.tolist() == [False, False, False, True, True, True]
        else:
            assert seg.byte is None and seg.unk.any()


def test_byte_fallback_figure_equals_a_recount(table, byte_bpe):
    res = table_statistics(table, bootstrap=BootstrapSettings(50, seed=3))
    summary = res.summary[0]
    sp = byte_bpe.processor
    inside = {"ne": table.inside, "non_ne": table.labelled & ~table.inside, "all": np.ones(len(table), bool)}
    for subset, mask in inside.items():
        words = [table.types[t] for t in table.word_type[mask]]
        ids = [sp.encode(w) for w in words]
        want = 100 * sum(sp.is_byte(i) for x in ids for i in x) / sum(map(len, ids))
        got = getattr(summary, subset).byte_fallback
        assert got.value == pytest.approx(want) and got.low <= got.value <= got.high, subset
    assert summary.all.unknown.value == 0 and summary.all.byte_fallback.value > 50


def test_figures_already_produced_are_unchanged(table):
    """The byte-fallback figure joins the bootstrap batch without moving any other figure."""
    col = table.column(table.tokenizer_names[0])
    before = table.with_tokenizers({col.name: replace(col, n_byte=None)})
    old, new = (
        table_statistics(before, bootstrap=BootstrapSettings(50, seed=3)),
        table_statistics(table, bootstrap=BootstrapSettings(50, seed=3)),
    )
    same = repr  # exact equality, NaN (an empty group's interval) equal to NaN
    assert same(old.table4) == same(new.table4) and same(old.by) == same(new.by)
    assert same(old.intrinsic) == same(new.intrinsic)
    for a, b in zip(old.summary, new.summary):
        for subset in ("ne", "non_ne", "all"):
            assert same(replace(getattr(a, subset), byte_fallback=None)) == same(
                replace(getattr(b, subset), byte_fallback=None)
            )
    assert old.summary[0].all.byte_fallback.value == 0


def test_warning_names_dataset_and_script(byte_bpe):
    with pytest.warns(ByteFallbackWarning) as caught:
        segmentation_table(_datasets(), [byte_bpe], progress=False)
    messages = [str(w.message) for w in caught if issubclass(w.category, ByteFallbackWarning)]
    assert len(messages) == 1  # the English dataset is below the threshold
    assert "'amh:test'" in messages[0] and "ETHIOPIC script" in messages[0] and "byte-fallback pieces" in messages[0]


def test_share_per_dataset_and_threshold(table):
    shares = {s.dataset: s for s in byte_fallback_share(table, table.tokenizer_names[0])}
    assert shares["eng:test"].share <= BYTE_THRESHOLD < shares["amh:test"].share
    assert "አ" in dict(shares["amh:test"].top_chars) or shares["amh:test"].top_chars == ()


def test_subsets_and_parquet_keep_the_counts(table, tmp_path):
    from tokstudy.analysis.table import SegmentationTable
    from tokstudy.analysis.table.io import to_parquet
    from tokstudy.analysis.table.select import select_datasets

    name = table.tokenizer_names[0]
    sub = select_datasets(table, ["amh:test"])
    assert sub.column(name).byte_counts().sum() == table.column(name).byte_counts()[table.dataset_code == 0].sum()
    to_parquet(table, tmp_path / "t.parquet")
    back = SegmentationTable.from_parquet(tmp_path / "t.parquet")
    assert np.array_equal(back.column(name).byte_counts(), table.column(name).byte_counts())


def test_stats_command_prints_the_column_the_json_and_the_warning(byte_bpe, tmp_path, capsys):
    from tokstudy.cli import main

    data = tmp_path / "amh.conll"
    data.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(*s)) for s in AMHARIC) + "\n", encoding="utf-8")
    out = tmp_path / "s.json"
    argv = ["stats", "-d", str(data), "-t", str(byte_bpe.model_file), "--resamples", "0", "--json", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "byte-fallback %" in captured.out
    warning = [line for line in captured.err.splitlines() if "byte-fallback pieces" in line]
    assert len(warning) == 1 and warning[0].startswith("tokstudy: warning:") and "ETHIOPIC" in warning[0]
    summary = json.loads(out.read_text())["summary"][0]
    assert summary["all"]["byte_fallback"]["value"] > 50 and summary["all"]["unknown"]["value"] == 0


def test_report_shows_the_column_and_the_warning(table, tmp_path):
    from tokstudy.report.writer import write_report

    write_report(table, tmp_path, boot=BootstrapSettings(0), figures=False)
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "byte-fallback %" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "**Warning:**" in index and "ETHIOPIC" in index


def test_app_summary_has_the_measure(table):
    from analysis_app.services.statistics import summary

    df = summary(table, table.tokenizer_names, n_resamples=0)
    assert "byte_fallback" in set(df["measure"])
