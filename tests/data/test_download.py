"""data/download.py: the dry run lists every file without touching the network; conversions are exact."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
import urllib.request

import pytest

from tests.conftest import PROJECT_ROOT, corpus_path


@pytest.fixture(scope="module")
def dl():
    spec = importlib.util.spec_from_file_location("tokstudy_download", PROJECT_ROOT / "data" / "download.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the file runs
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


def test_dry_run_lists_every_corpus_and_fetches_nothing(dl, tmp_path, monkeypatch, capsys):
    def no_network(*a, **k):
        raise AssertionError("the dry run must not open a URL")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    assert dl.main(["--dry-run", "--dest", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line.split("\t") for line in out.splitlines() if "\t" in line]
    targets = {r[1].removeprefix(str(tmp_path) + "/") for r in rows}
    assert {r[0] for r in rows} == {
        "conll2003",
        "conll2002_es",
        "wikiann",
        "ner_ja_wikipedia",
        "snips",
        "atis",
        "sst2",
        "xquad_parallel",
        "raw_text",
    }
    assert {
        "conll2003_en/eng.testb.gz",
        "conll2002_es/esp.train.gz",
        "wikiann/ru.val.tsv.gz",
        "ner_ja_wikipedia/ner.json.gz",
        "atis/valid/seq.out",
        "sst2/dev.tsv",
        "xquad_parallel/zh.txt.gz",
        "xquad_parallel/articles.tsv",
        "raw_text/sw.txt.gz",
    } <= targets
    assert len(targets) == 3 + 3 + 18 + 1 + 18 + 2 + 13 + 10
    # every source is pinned to a commit
    assert all("raw.githubusercontent.com" in r[2] and len(r[2].split("/")[5]) == 40 for r in rows)
    assert f"{len(rows)} file(s) would be fetched" in out
    assert not any(tmp_path.iterdir())


def test_selected_corpus_and_unknown(dl, tmp_path, capsys):
    assert dl.run(["sst2"], tmp_path, dry_run=True, force=False) == 2
    with pytest.raises(SystemExit):
        dl.main(["--dry-run", "nope"])
    assert "unknown corpora ['nope']" in capsys.readouterr().err


def test_run_writes_atomically_with_a_fake_fetch(dl, tmp_path, monkeypatch):
    monkeypatch.setattr(dl, "fetch", lambda u: b"sentence\tlabel\nok\t1\n")
    assert dl.run(["sst2"], tmp_path, dry_run=False, force=False) == 2
    assert gzip.decompress((tmp_path / "sst2/train.tsv.gz").read_bytes()) == b"sentence\tlabel\nok\t1\n"
    assert dl.run(["sst2"], tmp_path, dry_run=False, force=False) == 0  # existing files are kept
    assert not list(tmp_path.rglob("*.part"))


def test_conll2003_fix_reproduces_the_shared_file(dl):
    placed = gzip.decompress((corpus_path("conll2003") / "eng.testb.gz").read_bytes()).decode()
    lines = placed.rstrip("\n").split("\n")
    source = "\n".join(lines[2:] + [lines[0]])  # as in the source repo: first DOCSTART moved to the end
    assert gzip.decompress(dl.conll2003_fix(source.encode())).decode() == placed


def test_wikiann_and_latin1_and_leipzig(dl):
    assert (
        gzip.decompress(dl.wikiann_drop_index(b"1\tBonn\tB-LOC\n2\tist\tO\n\n1\tx\tO\n"))
        == b"Bonn\tB-LOC\nist\tO\n\nx\tO\n"
    )
    assert gzip.decompress(dl.latin1_to_utf8("Río I-LOC\n".encode("latin-1"))).decode() == "Río I-LOC\n"
    assert gzip.decompress(dl.leipzig_sentences(b"1\tA b.\n2\tC.\n")) == b"A b.\n\nC.\n"
    assert (
        gzip.decompress(dl.ud_text(b"# sent_id = 1\n# text = Hola.\n1\tHola\n", b"# text = Adios.\n"))
        == b"Hola.\n\nAdios.\n"
    )


def test_xquad_and_bible(dl):
    data = {
        "data": [
            {"title": "T1", "paragraphs": [{"context": "A\nb", "qas": []}, {"context": "C", "qas": []}]},
            {"title": "T2", "paragraphs": [{"context": "D", "qas": []}]},
        ]
    }
    raw = json.dumps(data).encode()
    assert gzip.decompress(dl.xquad_contexts(raw)) == b"A b\nC\n\nD\n"
    assert dl.xquad_articles(raw) == b"article_index\ttitle\tn_paragraphs\n0\tT1\t2\n1\tT2\t1\n"
    xml = (
        b'<cesDoc><text><body><div type="book"><div type="chapter"><seg type="verse"> In  the\n beginning </seg>'
        b'<seg type="verse">x</seg></div><div type="chapter"><seg>y</seg></div></div></body></text></cesDoc>'
    )
    assert gzip.decompress(dl.bible_chapters(xml)) == b"In the beginning\nx\n\ny\n"
