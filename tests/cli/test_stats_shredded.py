"""``tokstudy stats --shredded [K] --shredded-csv FILE``: the CSV equals a Counter over the encoded words."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from tests.fixtures_sentencepiece import train_unigram
from tokstudy.cli import main

SENTENCES = [
    "Peter Blackburn flew from Ouagadougou to Reykjavik",
    "the cat sat on the mat",
    "Ouagadougou is far from Reykjavik and the cat knows it",
    "unbelievably the mat flew",
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("shredded_cli")
    text = d / "text.txt"
    text.write_text("\n".join(SENTENCES * 20) + "\n", encoding="utf-8")
    model = train_unigram(text, d / "sp", 60, hard_vocab_limit=False, num_threads=1)
    conll = d / "data.conll"
    conll.write_text("\n\n".join("\n".join(f"{w} O" for w in s.split()) for s in SENTENCES) + "\n", encoding="utf-8")
    return model, conll


def test_csv_and_printed_ranking_equal_a_counter(files, tmp_path, capsys):
    import sentencepiece as spm

    model, conll = files
    out = tmp_path / "shredded.csv"
    args = ["stats", "-d", str(conll), "-t", f"sp={model}", "--resamples", "0", "--no-progress"]
    assert main(args + ["--shredded", "4", "--shredded-csv", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Shredded words (4 pieces or more), most frequent first" in printed
    sp = spm.SentencePieceProcessor(model_file=str(model))
    freq = Counter(w for s in SENTENCES for w in s.split())
    pieces = {w: sp.encode(w, out_type=str) for w in freq}
    expected = sorted((w for w in freq if len(pieces[w]) >= 4), key=lambda w: (-freq[w], -len(pieces[w]), w))
    assert expected, "the test text must have shredded words"
    with open(out, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["word"] for r in rows] == expected
    assert [(int(r["frequency"]), int(r["n_pieces"])) for r in rows] == [(freq[w], len(pieces[w])) for w in expected]
    total = sum(len(pieces[w]) * n for w, n in freq.items())
    assert float(rows[0]["token_share"]) == pytest.approx(freq[expected[0]] * len(pieces[expected[0]]) / total)
    assert f"wrote {out}" in printed


def test_default_k_is_3_and_bad_k_is_refused(files, capsys):
    model, conll = files
    args = ["stats", "-d", str(conll), "-t", f"sp={model}", "--resamples", "0", "--no-progress"]
    assert main(args + ["--shredded"]) == 0
    assert "Shredded words (3 pieces or more)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(args + ["--shredded", "1"])
    assert exc.value.code == 2
    assert "a shredded word has 2 pieces or more" in capsys.readouterr().err


def test_json_holds_the_ranking_only_with_shredded(files, tmp_path, capsys):
    import json

    import sentencepiece as spm

    model, conll = files
    args = ["stats", "-d", str(conll), "-t", f"sp={model}", "--resamples", "0", "--no-progress"]
    plain, with_words = tmp_path / "plain.json", tmp_path / "shredded.json"
    assert main(args + ["--json", str(plain)]) == 0
    assert "shredded" not in json.loads(plain.read_text(encoding="utf-8"))
    assert main(args + ["--shredded", "--json", str(with_words)]) == 0
    data = json.loads(with_words.read_text(encoding="utf-8"))["shredded"]
    sp = spm.SentencePieceProcessor(model_file=str(model))
    freq = Counter(w for s in SENTENCES for w in s.split())
    pieces = {w: sp.encode(w, out_type=str) for w in freq}
    expected = sorted((w for w in freq if len(pieces[w]) >= 3), key=lambda w: (-freq[w], -len(pieces[w]), w))
    assert data["min_pieces"] == 3 and [r["word"] for r in data["rankings"]] == expected  # every word, not the first
    assert [(r["frequency"], r["n_pieces"]) for r in data["rankings"]] == [(freq[w], len(pieces[w])) for w in expected]
    [summary] = data["summary"]
    assert summary["words"] == sum(freq.values()) and summary["distinct shredded words"] == len(expected)
