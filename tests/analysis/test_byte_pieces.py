"""Byte pieces (bytes, not whole characters) counted and warned about whatever made them (issue 33 item 3).

A byte-level BPE flags nothing: trained on English only, it meets Amharic (Ethiopic script, three UTF-8
bytes a character) and spells it byte by byte, with 0 unknown and 0 byte-fallback pieces. Two such
tokenizers are trained here, a Hugging Face ``tokenizers`` ByteLevel BPE and a tiktoken encoding
(tiktoken's own reference trainer), and every count is checked against an independent recount: each
piece's bytes as the tokenizer library itself decodes them (``Tokenizer.decode`` of one id, which gives
U+FFFD for bytes that are not whole characters; tiktoken's ``decode_single_token_bytes``), counted as a
byte piece when they are not complete UTF-8 characters.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from tokstudy.analysis.stats import table_statistics
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.stats.per_language import language_coverage, language_table
from tokstudy.analysis.table import segmentation_table
from tokstudy.analysis.table.bytepieces import (
    BYTE_PIECE_THRESHOLD,
    BytePiecesWarning,
    byte_piece_flags,
    byte_pieces_share,
)
from tokstudy.analysis.table.coverage import ByteFallbackWarning, UnknownPiecesWarning
from tokstudy.data.types import Dataset, Sentence
from tokstudy.tokenization.loading import load_tokenizer
from tokstudy.tokenization.tiktoken_ import byte_to_unicode

ENGLISH = [
    "The European Commission said on Thursday it disagreed with German advice to consumers .",
    "Germany 's representative to the European Union 's veterinary committee Werner Zwingmann said .",
    "Peter Blackburn reported from Brussels on Friday that the market was quiet .",
]
AMHARIC = [  # (words, tags): Addis Ababa is the capital of Ethiopia; peace to the people of Ethiopia
    (("አዲስ", "አበባ", "የኢትዮጵያ", "ዋና", "ከተማ", "ናት", "."), ("B-LOC", "I-LOC", "B-LOC", "O", "O", "O", "O")),
    (("ሰላም", "ለኢትዮጵያ", "ሕዝብ", "The", "Commission"), ("O", "B-LOC", "O", "O", "B-ORG")),
    (("ኃይለ", "ሥላሴ", "በአዲስ", "አበባ", "ተወለዱ"), ("B-PER", "I-PER", "O", "B-LOC", "O")),
]


def _datasets():
    amh = Dataset(tuple(Sentence(w, t, sent_id=i) for i, (w, t) in enumerate(AMHARIC)), name="amh", split="test")
    eng = Dataset(
        tuple(Sentence(tuple(s.split()), ("O",) * len(s.split()), sent_id=i) for i, s in enumerate(ENGLISH)),
        name="eng",
        split="test",
    )
    return [amh, eng]


@pytest.fixture(scope="module")
def hf_file(tmp_path_factory):
    """A ByteLevel BPE (GPT-2 style) trained on English plus one Amharic word, so that a few Ethiopic bytes
    merge into two-byte pieces (part of a character, not one byte) while the rest stay single bytes."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(ENGLISH * 20 + ["ሰላም ሰላም"] * 3, trainer=trainer)
    path = tmp_path_factory.mktemp("bytelevel") / "tokenizer.json"
    tok.save(str(path))
    return path


@pytest.fixture(scope="module")
def table(hf_file):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownPiecesWarning)
        return segmentation_table(_datasets(), [load_tokenizer(str(hf_file), name="bytelevel")], progress=False)


def _hf_recount(path, words):
    """(byte pieces, pieces) of ``words`` from the library itself: one id decoded alone holds U+FFFD when its
    bytes are not whole UTF-8 characters."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    ids = [i for w in words for i in tok.encode(" " + w, add_special_tokens=False).ids]
    return sum("\ufffd" in tok.decode([i]) for i in ids), len(ids)


def _words(table, mask):
    return [table.types[t] for t in table.word_type[mask]]


def test_share_per_dataset_equals_the_library_recount(table, hf_file):
    shares = {s.dataset: s for s in byte_pieces_share(table, "bytelevel")}
    for d, label in enumerate(table.datasets):
        partial, total = _hf_recount(hf_file, _words(table, table.dataset_code == d))
        assert (shares[label].n_partial, shares[label].n_pieces) == (partial, total), label
    assert shares["amh:test"].share > 0.8 and shares["eng:test"].n_partial == 0
    # the tokenizer merged some Ethiopic bytes: byte pieces are not only single bytes
    col = table.column("bytelevel")
    multi = [p for p in col.type_pieces if len(p) > 1 and byte_piece_flags([p], byte_level=True)[0]]
    assert multi, "expected a merged piece that is still part of a character"


def test_summary_and_language_figures_equal_the_recount(table, hf_file):
    res = table_statistics(table, bootstrap=BootstrapSettings(30, seed=1))
    masks = {"ne": table.inside, "non_ne": table.labelled & ~table.inside, "all": np.ones(len(table), bool)}
    for subset, mask in masks.items():
        partial, total = _hf_recount(hf_file, _words(table, mask))
        got = getattr(res.summary[0], subset).byte_pieces
        assert got.value == pytest.approx(100 * partial / total) and got.low <= got.value <= got.high, subset
    assert res.summary[0].all.byte_fallback.value == 0 and res.summary[0].all.unknown.value == 0
    rows = {r.dataset: r for r in language_table(table, bootstrap=BootstrapSettings(0)).rows}
    partial, total = _hf_recount(hf_file, _words(table, table.dataset_code == table.datasets.index("amh:test")))
    assert rows["amh:test"].byte_pieces.value == pytest.approx(100 * partial / total)
    assert rows["amh:test"].unknown.value == 0


def test_warning_names_the_dataset_and_script(hf_file):
    with pytest.warns(BytePiecesWarning) as caught:
        segmentation_table(_datasets(), [load_tokenizer(str(hf_file), name="bytelevel")], progress=False)
    messages = [str(w.message) for w in caught if w.category is BytePiecesWarning]
    assert len(messages) == 1  # English is below the threshold
    assert "'amh:test'" in messages[0] and "ETHIOPIC script" in messages[0] and "byte pieces" in messages[0]
    assert not any(w.category is ByteFallbackWarning for w in caught)


def test_language_coverage_names_the_language(table):
    found = [c for c in language_coverage(table) if c.kind == "byte pieces"]
    assert len(found) == 1 and [s.dataset for s in found[0].languages] == ["amh:test"]
    message = found[0].message()
    assert f"more than {100 * BYTE_PIECE_THRESHOLD:g} %" in message and "Ge'ez" in message


def test_tiktoken_encoding_equals_its_own_byte_recount():
    """A tiktoken encoding trained by tiktoken's reference trainer on English: its pieces of Amharic are bytes."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken._educational import bpe_train

    from tokstudy.tokenization.tiktoken_ import PATTERNS, TiktokenSegmenter

    ranks = bpe_train("\n".join(ENGLISH * 4), 300, PATTERNS["cl100k"], visualise=None)
    enc = tiktoken.Encoding("tiny", pat_str=PATTERNS["cl100k"], mergeable_ranks=ranks, special_tokens={})
    with pytest.warns(BytePiecesWarning):
        t = segmentation_table(_datasets(), [TiktokenSegmenter(enc, name="tiny")], progress=False)
    for s in byte_pieces_share(t, "tiny"):
        d = t.datasets.index(s.dataset)
        raw = [enc.decode_single_token_bytes(i) for w in _words(t, t.dataset_code == d) for i in enc.encode(" " + w)]
        assert (s.n_partial, s.n_pieces) == (sum(not _whole(b) for b in raw), len(raw)), s.dataset
    assert {s.dataset: s.share for s in byte_pieces_share(t, "tiny")}["amh:test"] > 0.8


def _whole(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_flags_of_byte_fallback_and_byte_level_pieces():
    as_piece = lambda raw: "".join(byte_to_unicode()[b] for b in raw)  # noqa: E731
    ha = "ሀ".encode()  # three bytes
    pieces = [as_piece(b" " + ha), as_piece(ha[:1]), as_piece(ha[1:]), as_piece(b"\xc3"), "Ġa", "<|endoftext|>"]
    assert byte_piece_flags(pieces, byte_level=True).tolist() == [False, True, True, True, False, False]
    fallback = ["▁a", "<0xE1>", "<0x41>", "<0xE1>"]
    flags = np.array([False, True, True, False])  # the last is a literal text piece, not a fallback
    assert byte_piece_flags(fallback, byte_level=False, fallback=flags).tolist() == [False, True, False, False]
    assert not byte_piece_flags(["▁ሀ", "ሀ"], byte_level=False).any()  # whole characters, no bytes


def test_subsets_and_parquet_keep_the_counts(table, tmp_path):
    from tokstudy.analysis.table import SegmentationTable
    from tokstudy.analysis.table.io import to_parquet
    from tokstudy.analysis.table.select import select_datasets

    col = table.column("bytelevel")
    sub = select_datasets(table, ["amh:test"])
    assert sub.column("bytelevel").partial_counts().sum() == col.partial_counts()[table.dataset_code == 0].sum()
    to_parquet(table, tmp_path / "t.parquet")
    back = SegmentationTable.from_parquet(tmp_path / "t.parquet")
    assert np.array_equal(back.column("bytelevel").partial_counts(), col.partial_counts())


def test_stats_command_prints_the_column_and_names_the_language(hf_file, tmp_path, capsys):
    from tokstudy.cli import main

    data = tmp_path / "amh.conll"
    data.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(*s)) for s in AMHARIC) + "\n", encoding="utf-8")
    eng = tmp_path / "eng.conll"
    eng.write_text("\n\n".join("\n".join(f"{w} O" for w in s.split()) for s in ENGLISH) + "\n", encoding="utf-8")
    out, csv = tmp_path / "s.json", tmp_path / "languages.csv"
    argv = ["stats", "-d", str(data), "-t", str(hf_file), "--resamples", "0", "--json", str(out), "--no-progress"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "byte pieces %" in captured.out
    warning = [line for line in captured.err.splitlines() if "byte pieces" in line]
    assert len(warning) == 1 and warning[0].startswith("tokstudy: warning:") and "ETHIOPIC" in warning[0]
    assert json.loads(out.read_text())["summary"][0]["all"]["byte_pieces"]["value"] > 80
    argv = ["stats", "-d", str(data), "-d", str(eng), "-t", str(hf_file), "--resamples", "0", "--no-progress"]
    assert main([*argv, "--languages-csv", str(csv)]) == 0
    captured = capsys.readouterr()
    warning = [line for line in captured.err.splitlines() if "byte pieces" in line]
    assert len(warning) == 1 and "1 of 2 languages" in warning[0]
    assert "byte pieces %" in captured.out
    header = csv.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert "byte_pieces_pct" in header and "unknown_pct" in header


def test_sentencepiece_byte_fallback_gives_equal_byte_pieces_and_one_warning(tmp_path):
    """Byte fallback of Ethiopic letters: every fallback piece is a byte piece; only the fallback warning shows."""
    import sentencepiece as spm

    prefix = tmp_path / "en-bpe"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(ENGLISH * 40),
        model_prefix=str(prefix),
        vocab_size=400,
        model_type="bpe",
        byte_fallback=True,
        character_coverage=1.0,
        minloglevel=2,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = segmentation_table(_datasets(), [load_tokenizer(f"{prefix}.model")], progress=False)
    col = t.column(t.tokenizer_names[0])
    amh = t.dataset_code == 0
    assert col.partial_counts()[amh].sum() == col.byte_counts()[amh].sum() > 0
    assert any(w.category is ByteFallbackWarning for w in caught)
    assert not any(w.category is BytePiecesWarning for w in caught)


def test_report_and_app_show_byte_pieces(table, tmp_path):
    from analysis_app.services.statistics import summary
    from tokstudy.report.per_language import language_rows, languages_markdown
    from tokstudy.report.writer import write_report

    write_report(table, tmp_path, boot=BootstrapSettings(0), figures=False)
    assert "byte pieces %" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "**Warning:**" in index and "are byte pieces" in index
    res = language_table(table, bootstrap=BootstrapSettings(0))
    assert "byte pieces %" in languages_markdown(res)
    high = {r["dataset"]: r["byte_pieces_pct"] > 80 for r in language_rows(res)}
    assert high == {"amh:test": True, "eng:test": False}
    assert "byte_pieces" in set(summary(table, table.tokenizer_names, n_resamples=0)["measure"])


def test_tekken_on_amharic_warns_and_equals_tiktokens_recount(tmp_path):
    """Mistral's Tekken JSON (built here in mistral-common's format, ranks trained on English): Amharic gives
    byte pieces and a warning; the count equals the one from tiktoken on the same ranks and pattern."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken._educational import bpe_train

    from tests.tokenization.test_tekken import PATTERN, tekken_data

    ranks = bpe_train("\n".join(ENGLISH * 4), 300, PATTERN, visualise=None)
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(tekken_data(ranks)), encoding="utf-8")
    with pytest.warns(BytePiecesWarning) as caught:
        t = segmentation_table(_datasets(), [load_tokenizer(str(path), name="tekken")], progress=False)
    message = next(str(w.message) for w in caught if w.category is BytePiecesWarning)
    assert "'tekken' on dataset 'amh:test'" in message and "ETHIOPIC" in message
    enc = tiktoken.Encoding("same", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
    for s in byte_pieces_share(t, "tekken"):
        d = t.datasets.index(s.dataset)
        raw = [enc.decode_single_token_bytes(i) for w in _words(t, t.dataset_code == d) for i in enc.encode(" " + w)]
        assert (s.n_partial, s.n_pieces) == (sum(not _whole(b) for b in raw), len(raw)), s.dataset
