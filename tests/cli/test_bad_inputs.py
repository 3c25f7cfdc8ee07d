"""Issue 15 items 5-8 at the command line: every bad input is a message and an exit status, never a
traceback; the reader options (--format, --encoding, --scheme, --label-column, --lenient) work."""

from __future__ import annotations

import gzip
import json
import string
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.cli import main

FIXTURES = PROJECT_ROOT / "data" / "fixtures"


@pytest.fixture(scope="module")
def vocab(tmp_path_factory):
    """A character-level WordPiece vocab.txt: every word splits into its letters (no training needed)."""
    chars = string.ascii_letters + string.digits + ".,-'éñáóí"
    lines = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars, *(f"##{c}" for c in chars)]
    path = tmp_path_factory.mktemp("tok") / "vocab.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def stats(capsys, vocab, *argv):
    return run(capsys, "stats", "-t", f"chars={vocab}", "--resamples", "0", "--no-progress", *argv)


# ---- item 5: tracebacks -> errors -------------------------------------------------


def test_four_part_dataset_spec_is_a_usage_error(capsys, vocab):
    code, _, err = stats(capsys, vocab, "-d", "conll2003:en:test:x")
    assert code == 2 and "dataset spec 'conll2003:en:test:x' has 4 parts; expected NAME" in err


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--resamples", "-5", "argument --resamples: -5 is negative"),
        ("--confidence", "1.5", "argument --confidence: 1.5 is not between 0 and 1"),
        ("--confidence", "0", "argument --confidence: 0 is not between 0 and 1"),
        ("--confidence", "-0.2", "argument --confidence: -0.2 is not between 0 and 1"),
        ("--seed", "-1", "argument --seed: -1 is negative"),
    ],
)
def test_bootstrap_options_are_checked_before_any_work(capsys, option, value, message):
    # the dataset does not exist: had any work started, the error would be about it
    with pytest.raises(SystemExit) as exc:
        main(["stats", "-d", "no/such/file.conll", "-t", "no-tok", option, value])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_same_stem_and_split_in_two_folders_get_distinct_names(tmp_path, capsys, vocab):
    for lang, word in (("amh", "Addis"), ("swa", "Nairobi")):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "test.txt").write_text(f"{word} B-LOC\nni O\n", encoding="utf-8")
    code, out, err = stats(
        capsys, vocab, "-d", tmp_path / "amh" / "test.txt", "-d", tmp_path / "swa" / "test.txt", "--by", "dataset"
    )
    assert code == 0, err
    assert "amh/test:test" in out and "swa/test:test" in out


def test_same_file_twice_is_refused(tmp_path, capsys, vocab):
    path = tmp_path / "test.txt"
    path.write_text("Addis B-LOC\n", encoding="utf-8")
    code, _, err = stats(capsys, vocab, "-d", path, "-d", path)
    assert code == 2 and "is given twice" in err


def test_sentence_option_errors_are_messages_not_system_exit(capsys, vocab):
    code, _, err = run(capsys, "examples", "-d", FIXTURES / "conll_iob1.txt", "-t", vocab, "--sentence", "abc")
    assert code == 2 and "--sentence abc: 'abc' is not a sentence id" in err
    code, _, err = run(capsys, "examples", "-d", FIXTURES / "conll_iob1.txt", "-t", vocab, "--sentence", "999")
    assert code == 2 and "--sentence 999" in err


@pytest.mark.parametrize("command", ["examples", "report"])
def test_missing_predictions_file_checked_before_work(capsys, command):
    extra = ["--out", "r"] if command == "report" else []
    code, _, err = run(capsys, command, "-d", "no/such/file.conll", "-t", "x", "-p", "nope.tsv", *extra)
    assert code == 1 and "--predictions nope.tsv: file not found" in err


def test_segment_out_extension_checked_before_work(capsys):
    code, _, err = run(capsys, "segment", "-d", "no/such/file.conll", "-t", "x", "--out", "seg.txt")
    assert code == 2 and "--out must end in .parquet or .csv" in err


def test_unexpected_failure_is_one_line_and_status_70(capsys, monkeypatch):
    import tokstudy.cli.stats as stats_cmd

    def boom(args):
        raise RuntimeError("something broke")

    monkeypatch.setattr(stats_cmd, "run", boom)
    monkeypatch.delenv("TOKSTUDY_TRACEBACK", raising=False)
    code, _, err = run(capsys, "stats", "-d", "x")
    assert code == 70 and "internal error: RuntimeError: something broke" in err and "bug" in err


def test_system_exit_from_a_command_becomes_a_message(capsys, monkeypatch):
    import tokstudy.cli.stats as stats_cmd

    def leaves(args):
        raise SystemExit("tokstudy stats: something was wrong")

    monkeypatch.setattr(stats_cmd, "run", leaves)
    code, _, err = run(capsys, "stats", "-d", "x")
    assert code == 1 and err.strip() == "tokstudy stats: error: something was wrong"


def test_an_unwritable_output_is_a_message_naming_it(tmp_path, capsys, vocab):
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        stats(capsys, vocab, "-d", FIXTURES / "conll_iob1.txt", "--json", blocker / "stats.json")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"error: argument --json: cannot write {blocker / 'stats.json'}: {blocker} " in err


def test_console_script_prints_no_traceback_for_a_bad_spec():
    res = subprocess.run(
        [sys.executable, "-m", "tokstudy", "stats", "-d", "conll2003:en:test:x", "-t", "x"],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr and "has 4 parts" in res.stderr


# ---- item 6: misleading messages ---------------------------------------------------


def test_folder_given_as_dataset_is_named_a_folder(tmp_path, capsys, vocab):
    (tmp_path / "a.txt").write_text("x O\n", encoding="utf-8")
    code, _, err = stats(capsys, vocab, "-d", tmp_path)
    assert code == 1 and f"{tmp_path}: is a folder without seq.in, seq.out, label (it holds a.txt)" in err
    code, _, err = stats(capsys, vocab, "-d", tmp_path, "--format", "conll")
    assert code == 1 and "is a folder, not a conll file" in err


def test_slu_folder_is_read(capsys, vocab):
    code, out, err = stats(capsys, vocab, "-d", FIXTURES / "slu")
    assert code == 0, err
    assert "slu:all" in out


def test_gzip_without_gz_suffix_is_read(tmp_path, capsys, vocab):
    path = tmp_path / "test.conll"
    path.write_bytes(gzip.compress((FIXTURES / "conll_iob1.txt").read_bytes()))
    code, out, err = stats(capsys, vocab, "-d", path)
    assert code == 0, err
    plain_code, plain_out, _ = stats(capsys, vocab, "-d", FIXTURES / "conll_iob1.txt")

    def first(text):
        return text.splitlines()[0].split(" in ")[0]

    assert first(out) == first(plain_out)


def test_ragged_first_line_is_the_one_blamed(tmp_path, capsys, vocab):
    path = tmp_path / "r.conll"
    path.write_text("EU B-ORG x\nrejects O\nGerman B-MISC\ncall O\n", encoding="utf-8")
    code, _, err = stats(capsys, vocab, "-d", path)
    assert code == 1 and f"{path}:1: line has 3 columns, expected 2 as on line 2" in err


# ---- item 7: reader options -----------------------------------------------------------


def test_encoding_option_reads_latin1(tmp_path, capsys, vocab):
    path = tmp_path / "esp.testb"
    path.write_bytes("España B-LOC\nganó O\n".encode("latin-1"))
    code, _, err = stats(capsys, vocab, "-d", path)
    assert code == 1 and f"{path}:1: invalid UTF-8" in err and "--encoding latin-1" in err
    code, out, err = stats(capsys, vocab, "-d", path, "--encoding", "latin-1")
    assert code == 0, err
    assert out.startswith("2 words, 1 sentences, 1 entities")


def test_unknown_encoding_is_an_argument_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["stats", "-d", "x", "-t", "y", "--encoding", "klingon"])
    assert exc.value.code == 2 and "unknown text encoding 'klingon'" in capsys.readouterr().err


def test_format_tsv_and_jsonl(capsys, vocab):
    code, out, err = stats(capsys, vocab, "-d", FIXTURES / "sentences.tsv", "--format", "tsv")
    assert code == 0, err
    code, out, err = stats(capsys, vocab, "-d", FIXTURES / "tagged.jsonl")  # auto: .jsonl
    assert code == 0, err
    assert " 0 entities" not in out.splitlines()[0]


def test_scheme_label_column_and_lenient(tmp_path, capsys, vocab):
    path = tmp_path / "cols.txt"
    path.write_text("Ana B-PER NNP\nBerg I-PER NNP\nsaw O VBD\nGraz I-LOC NNP\n", encoding="utf-8")
    code, _, err = stats(capsys, vocab, "-d", path)  # the tag is not in the last column
    assert code == 1
    code, _, err = stats(capsys, vocab, "-d", path, "--label-column", "1", "--scheme", "IOB2")
    assert code == 1 and f"{path}:4:" in err  # I-LOC after O is forbidden in IOB2
    code, out, err = stats(capsys, vocab, "-d", path, "--label-column", "1", "--scheme", "IOB2", "--lenient")
    assert code == 0, err
    assert out.startswith("4 words, 1 sentences, 2 entities")
    code, _, err = stats(capsys, vocab, "-d", path, "--label-column", "tag")
    assert code == 2 and "CoNLL files need a column index" in err


# ---- item 8 (the CLI's part) -----------------------------------------------------------


def test_correlate_prints_underflowing_p_as_below_1e_300():
    from tokstudy.report.tables import correlation_markdown

    corr = SimpleNamespace(r=0.5, p_value=0.0, low=0.4, high=0.6, spearman=0.5, n=10**6)
    res = SimpleNamespace(tokenizer="t", model="m", all=corr, ne=corr, entities=SimpleNamespace(max_pieces=corr))
    text = correlation_markdown([res])
    assert "< 1e-300" in text and "| 0 |" not in text


def test_lenient_reports_what_it_repaired_on_screen_and_in_json(tmp_path, capsys, vocab):
    """A wrong --scheme with --lenient rewrites tags: the command says how many, of which kind, and where
    (issue 24 item 5), on stderr beside the results and in --json."""
    path = tmp_path / "iob2.conll"
    path.write_text("Ana B-PER\nsaw O\nGraz B-LOC\n\nBo B-PER\nran O\n", encoding="utf-8")
    out_json = tmp_path / "s.json"
    code, out, err = stats(capsys, vocab, "-d", path, "--scheme", "IOB1", "--lenient", "--json", out_json)
    assert code == 0, err
    assert "3 tags repaired in " in err and "iob2.conll (lenient reading)" in err
    assert "3 x an IOB1 B- tag that does not separate two entities" in err
    assert "iob2.conll:3: 'B-LOC' after 'O' read as 'B-LOC'" in err
    repairs = json.loads(out_json.read_text())["repairs"]
    assert repairs[0]["total"] == 3 and repairs[0]["by_kind"] == {"iob1-b": 3}
    assert repairs[0]["first"][1]["where"].endswith("iob2.conll:3")
    assert not repairs[0]["source"].startswith("/")
    code, out, err = stats(capsys, vocab, "-d", path, "--json", out_json)  # nothing repaired: nothing said
    assert code == 0 and "repaired" not in err and json.loads(out_json.read_text())["repairs"] == []


def test_lenient_repairs_go_beside_list_json_and_into_the_report(tmp_path, capsys, vocab):
    """``correlate --json`` and ``examples --json`` stay lists (scripts read them): what --lenient repaired goes
    beside them in FILE.repairs.json, the list ``stats --json`` holds under "repairs"; ``tokstudy report``
    writes repairs.{md,csv,json} and shows them first in index.md (issue 24 item 5)."""
    from tokstudy.analysis.model_errors.predictions import write_predictions

    path = tmp_path / "iob2.conll"
    path.write_text("Ana B-PER\nsaw O\nGraz B-LOC\n\nBo B-PER\nran O\n", encoding="utf-8")
    gold = [["B-PER", "O", "B-LOC"], ["B-PER", "O"]]
    sentences = [(["Ana", "saw", "Graz"], gold[0], ["B-PER", "O", "O"]), (["Bo", "ran"], gold[1], ["O", "O"])]
    preds = write_predictions(tmp_path / "p.tsv", sentences, metadata={"model": "m"})
    lenient = ("-t", f"chars={vocab}", "-d", path, "--scheme", "IOB1", "--lenient", "--no-progress")
    code, _, err = stats(capsys, vocab, "-d", path, "--scheme", "IOB1", "--lenient", "--json", tmp_path / "s.json")
    assert code == 0, err
    expected = json.loads((tmp_path / "s.json").read_text())["repairs"]
    assert expected and expected[0]["total"] == 3
    for command, extra in (("correlate", ("-p", preds, "--resamples", "0")), ("examples", ())):
        out_json = tmp_path / f"{command}.json"
        code, out, err = run(capsys, command, *lenient, *extra, "--json", out_json)
        assert code == 0, err
        assert isinstance(json.loads(out_json.read_text()), list)  # the shape scripts read, unchanged
        beside = tmp_path / f"{command}.repairs.json"
        assert json.loads(beside.read_text()) == expected and f"wrote {beside}" in out
        beside.unlink()
        code, out, err = run(capsys, command, "-t", f"chars={vocab}", "-d", path, *extra, "--json", out_json)
        assert code == 0 and not beside.exists()  # nothing repaired: no file
    report = tmp_path / "report"
    code, out, err = run(capsys, "report", *lenient, "--resamples", "0", "--no-figures", "--out", report)
    assert code == 0, err
    assert json.loads((report / "repairs.json").read_text()) == expected
    md = (report / "repairs.md").read_text()
    assert "3 tags repaired" in md and "3 x an IOB1 B- tag that does not separate two entities" in md
    assert "iob2.conll:3" in md and "`/" not in md and "| /" not in md  # named relatively, as reports are
    assert (report / "repairs.csv").read_text().count("iob1-b") == 3
    index = (report / "index.md").read_text()
    assert index.index("Tags repaired by lenient reading") < index.index("Table 4")
    clean = tmp_path / "clean"
    assert (
        run(capsys, "report", "-t", f"chars={vocab}", "-d", path, "--resamples", "0", "--no-figures", "-o", clean)[0]
        == 0
    )
    assert not (clean / "repairs.json").exists() and "repaired" not in (clean / "index.md").read_text()
