"""``tokstudy morph``: its figures equal a direct recount, and bad gold files are one line naming file and line."""

from __future__ import annotations

import csv

import pytest

from tests.fixtures_sentencepiece import train_unigram
from tests.morph_recount import boundary_prf, surface
from tokstudy.cli import main

MORPHS = {
    "played": ["play", "ed"],
    "walking": ["walk", "ing"],
    "unhappiness": ["un", "happi", "ness"],
    "cats": ["cat", "s"],
    "replaying": ["re", "play", "ing"],
}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("morph_cli")
    text = d / "text.txt"
    text.write_text(("the cats played while walking and replaying unhappiness " * 3 + "\n") * 30, encoding="utf-8")
    return train_unigram(text, d / "sp", 40, hard_vocab_limit=False, num_threads=1)


def _sigmorphon(path, morphs=MORPHS):
    path.write_text(
        "\n".join(f"{w}\t{m[0]} " + " ".join("@@" + x for x in m[1:]) + "\t100" for w, m in morphs.items()) + "\n",
        encoding="utf-8",
    )
    return path


def test_figures_equal_a_recount_with_bands_and_csv(model, tmp_path, capsys):
    import sentencepiece as spm

    gold = _sigmorphon(tmp_path / "eng.word.dev.tsv")
    corpus = tmp_path / "corpus.conll"
    corpus.write_text("played O\nplayed O\ncats O\n", encoding="utf-8")
    out = tmp_path / "morph.csv"
    rc = main(
        ["morph", "-t", f"sp={model}", "--gold", str(gold), "-d", str(corpus), "--bands", "1,2", "--csv", str(out)]
    )
    printed = capsys.readouterr().out
    assert rc == 0, printed
    assert "5 words (sigmorphon, language eng)" in printed
    assert "running text" in printed  # the encoding is stated
    sp = spm.SentencePieceProcessor(model_file=str(model))
    precision, recall, *_ = boundary_prf((m, surface(sp.encode(w, out_type=str))) for w, m in MORPHS.items())
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    whole = next(r for r in rows if r["band"] == "all")
    assert float(whole["precision"]) == pytest.approx(precision, abs=1e-4)
    assert float(whole["recall"]) == pytest.approx(recall, abs=1e-4)
    assert whole["MorphScore"] == ""  # SIGMORPHON names no boundary of interest
    assert {r["band"]: int(r["words"]) for r in rows if r["band"] != "all"} == {"0": 3, "1": 1, "2+": 1}


def test_morphscore_csv_counts_whole_words(model, tmp_path, capsys):
    gold = tmp_path / "english_morph_data.csv"
    gold.write_text(
        ",full_word,pt1,rest\n"
        + "\n".join(f"{i},{w},{''.join(m[:-1])},{m[-1]}" for i, (w, m) in enumerate(MORPHS.items()))
    )
    assert main(["morph", "-t", f"sp={model}", "--gold", f"{gold}@en"]) == 0
    printed = capsys.readouterr().out
    assert "5 words (morphscore, language en)" in printed
    assert "whole (excluded)" in printed


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "bad.tsv",
            "played\tplay @@ed\t100\nwalking\twal @@king @@s\t100\n",
            ":2: the morphs 'wal + king + s' do not spell",
        ),
        ("empty.tsv", "", "empty.tsv"),
        ("x_morph_data.csv", ",full_word,pt1,rest\n0,cats,cat,z\n", ":2: pt1 + rest ('cat' + 'z') does not spell"),
        (
            "pos_morph_data.csv",
            "word,boundary\ncats,3\ndogs,7\n",
            ":3: the boundary of 'dogs' is at character 7, outside",
        ),
        ("hdr_morph_data.csv", "a,b\n1,2\n", ":1: MorphScore header expected"),
        ("cols.tsv", "played\n", ":1: expected word<TAB>morph"),
    ],
)
def test_bad_gold_is_one_line_naming_file_and_line(model, tmp_path, capsys, name, content, expected):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert main(["morph", "-t", f"sp={model}", "--gold", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert expected in err and str(tmp_path) in err
    assert "Traceback" not in err


def test_outside_boundary_from_pt1_is_refused(model, tmp_path, capsys):
    path = tmp_path / "t_morph_data.csv"
    path.write_text(",full_word,pt1,rest\n0,yendirt,yendirt,\n", encoding="utf-8")  # as MorphScore's Turkish file
    assert main(["morph", "-t", f"sp={model}", "--gold", str(path)]) == 1
    assert f"{path}:2: the boundary of 'yendirt' is at character 7, outside the word" in capsys.readouterr().err


def test_skip_unspelled_counts_the_lines_skipped(model, tmp_path, capsys):
    gold = _sigmorphon(tmp_path / "eng.word.tsv", MORPHS | {"inaccuracies": ["in", "accurate", "cy", "s"]})
    assert main(["morph", "-t", f"sp={model}", "--gold", str(gold), "--skip-unspelled"]) == 0
    printed = capsys.readouterr().out
    assert "5 words" in printed and "1 lines skipped" in printed and "line 6" in printed


def test_help_and_usage_errors(capsys):
    with pytest.raises(SystemExit):
        main(["morph", "--help"])
    assert "MorphScore" in capsys.readouterr().out
    assert main(["morph", "--gold", "x.tsv", "--bands", "10,1"]) == 2


def test_report_gold_adds_the_morpheme_section(model, tmp_path, capsys):
    gold = _sigmorphon(tmp_path / "eng.word.dev.tsv")
    corpus = tmp_path / "corpus.conll"
    corpus.write_text("played O\nwalking O\n\ncats O\n", encoding="utf-8")
    out = tmp_path / "report"
    args = ["report", "-d", str(corpus), "-t", f"sp={model}", "--gold", f"{gold}@en", "--out", str(out)]
    assert main(args + ["--resamples", "0", "--no-figures", "--no-progress"]) == 0
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "## Morpheme boundaries" in index and "## Shredded frequent words" in index
    rows = list(csv.DictReader(open(out / "morph.csv", encoding="utf-8")))
    assert [(r["language"], r["tokenizer"], r["words"]) for r in rows] == [("en", "sp", "5")]
    assert "wrote" in capsys.readouterr().out


def test_morphscore_rows_with_an_empty_part_are_skipped_counted_and_said(model, tmp_path, capsys):
    """MorphScore's Turkish and Zulu files have rows whose pt1 or rest is empty (no boundary inside the word)."""
    path = tmp_path / "zulu_morph_data.csv"
    rows = [f"{i},{w},{''.join(m[:-1])},{m[-1]}" for i, (w, m) in enumerate(MORPHS.items())]
    path.write_text(",full_word,pt1,rest\n0,umntwana,umntwana,\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert main(["morph", "-t", f"sp={model}", "--gold", str(path), "--skip-unspelled"]) == 0
    printed = capsys.readouterr().out
    assert f"{path}: 5 words (morphscore, language zulu)" in printed
    assert "  1 lines skipped (1 x pt1 or rest is empty: no boundary inside the word); first: line 2: " in printed
    assert main(["morph", "-t", f"sp={model}", "--gold", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    reason = "the boundary of 'umntwana' is at character 8, outside the word (rest is empty: no boundary inside it)"
    assert err.endswith(f"{path}:2: {reason}")


def test_sigmorphon_words_with_their_own_at_sign_are_read(model, tmp_path, capsys):
    """Lines of the shared task's English test gold: '@' that is text, and an empty morph in a canonical line."""
    gold = _sigmorphon(tmp_path / "eng.word.test.gold.tsv")
    published = "@ing\t@ @@ing\t100\nFilipin@\tFilipin@\t000\npheneticist\tpheno @@ @@etic @@ist\t010\n"
    gold.write_text(gold.read_text(encoding="utf-8") + published, encoding="utf-8")
    assert main(["morph", "-t", f"sp={model}", "--gold", str(gold), "--skip-unspelled"]) == 0
    printed = capsys.readouterr().out
    assert "7 words (sigmorphon, language eng)" in printed
    assert "1 lines skipped (1 x the morphs do not spell the word); first: line 8: " in printed
