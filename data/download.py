#!/usr/bin/env python3
"""Download the public corpora tokstudy reads into ``data/corpora/`` (needs internet; standard library only).

Every file is fetched from a public GitHub repository **at a fixed commit** (the same
sources and conversions as the shared collection the tests were written against), so
the readers' counts in ``tests/data`` hold for what this script writes. The layout is
the one :mod:`tokstudy.datalocation` expects::

    data/corpora/conll2003_en/eng.{train,testa,testb}.gz
    data/corpora/conll2002_es/esp.{train,testa,testb}.gz
    data/corpora/wikiann/<lang>.<train|val|test>.tsv.gz       (de en es nl pl ru)
    data/corpora/ner_ja_wikipedia/ner.json.gz
    data/corpora/snips/<train|valid|test>/{seq.in,seq.out,label}   (and atis/)
    data/corpora/sst2/{train.tsv.gz,dev.tsv}
    data/corpora/xquad_parallel/<lang>.txt.gz + articles.tsv
    data/corpora/raw_text/<lang>.txt.gz

Usage::

    python data/download.py --dry-run             # list what would be fetched, fetch nothing
    python data/download.py                       # everything into data/corpora/
    python data/download.py conll2003 wikiann     # only some corpora
    python data/download.py --dest /big/disk/corpora && export TOKSTUDY_DATA=/big/disk/corpora

Conversions (each documented in the shared collection's READMEs): CoNLL-2003's first
``-DOCSTART-`` line is moved back to the start of each file; CoNLL-2002 Spanish is
re-encoded from Latin-1 to UTF-8; WikiANN's leading index column is dropped; XQuAD
keeps only the contexts (one paragraph per line, a blank line between articles);
raw_text takes Leipzig sentences (id column dropped), Universal Dependencies ``# text``
lines and Bible verses (one chapter per document). ``raw_text_large`` (about 50 sources)
is not automated: see its README in the shared collection. Licenses are those of the
sources (listed in each corpus README); most are research-only.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

DEFAULT_DEST = Path(__file__).resolve().parent / "corpora"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"

#: the repositories read, each pinned to a commit: short name -> "owner/repository@commit"
SOURCES = {
    "hscrf": "ZhixiuYe/HSCRF-pytorch@86bb64890317b74517c5ad44b47c66635df327d8",
    "conll02": "yuto16/conll@7664135d004ea84e16d6798db58e3a79605ea15c",
    "wikineural": "Babelscape/wikineural@d2e28c770cba2b285e742529ae18ed849e336c65",
    "stockmark": "stockmarkteam/ner-wikipedia-dataset@5e525c2132c0e87cce890b8b92639a0cf357c1f3",
    "slotgated": "MiuLab/SlotGated-SLU@61f0307c729b1fad479ef1de94aa5ac5dee601b0",
    "autoprompt": "eyalbd2/Reproducing-AutoPrompt@6288fb5bec9c572f2492875ae0111df5b6daed11",
    "xquad": "google-deepmind/xquad@7d30520c717524000f0d9d2f9c10a069acd9d285",
    "leipzig": "wahab4114/language-detection@956ab76a1a879a0108964f2146b5f438a27b7084",
    "ancora": "ragerri/evaluation-spanish-language-models@1c4579e54ab2bfa16f28c960cee554328c51c318",
    "ud_zh": "UniversalDependencies/UD_Chinese-GSD@200dbe8acf60ff0d194f2d30bf925c410eee762a",
    "ud_ja": "UniversalDependencies/UD_Japanese-GSD@7bc20119f476b552635e0640644e577b6fd3606b",
    "bibles": "christos-c/bible-corpus@44e5fca1bfb369a5da2ee23ebc6f421c88489c5c",
}

XQUAD_LANGS = ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")
WIKIANN_LANGS = ("de", "en", "es", "nl", "pl", "ru")


@dataclass(frozen=True)
class Job:
    """Fetch ``urls`` and write ``target`` (relative to the destination) from ``build(list_of_bytes)``."""

    corpus: str
    target: str
    urls: tuple[str, ...]
    build: Callable[[list[bytes]], bytes]


def url(source: str, path: str) -> str:
    """The raw-file address of ``path`` in ``SOURCES[source]`` at its pinned commit."""
    repo, commit = SOURCES[source].split("@")
    return RAW.format(repo=repo, commit=commit, path=path)


# ---- conversions (pure: bytes in, bytes out; tested in tests/data/test_download.py) ------------


def gz(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def conll2003_fix(raw: bytes) -> bytes:
    """Move the first ``-DOCSTART-`` line back from the end of the file; end with a blank line."""
    lines = raw.decode("utf-8").replace("\r\n", "\n").rstrip("\n").split("\n")
    if lines and lines[-1].startswith("-DOCSTART-") and not lines[0].startswith("-DOCSTART-"):
        lines = [lines[-1], ""] + lines[:-1]
    return gz("\n".join(lines).rstrip("\n") + "\n\n")


def latin1_to_utf8(raw: bytes) -> bytes:
    return gz(raw.decode("latin-1"))


def wikiann_drop_index(raw: bytes) -> bytes:
    """``index<TAB>token<TAB>tag`` -> ``token<TAB>tag``; blank lines kept."""
    out = []
    for line in raw.decode("utf-8").splitlines():
        fields = line.split("\t")
        out.append("\t".join(fields[1:]) if len(fields) == 3 else line.strip())
    return gz("\n".join(out) + "\n")


def gzip_as_is(raw: bytes) -> bytes:
    return gzip.compress(raw, compresslevel=9, mtime=0)


def xquad_contexts(raw: bytes) -> bytes:
    """Contexts of an XQuAD JSON file: a paragraph per line, a blank line between articles."""
    articles = json.loads(raw.decode("utf-8"))["data"]
    blocks = ["\n".join(" ".join(p["context"].split("\n")) for p in a["paragraphs"]) for a in articles]
    return gz("\n\n".join(blocks) + "\n")


def xquad_articles(raw: bytes) -> bytes:
    articles = json.loads(raw.decode("utf-8"))["data"]
    rows = ["article_index\ttitle\tn_paragraphs"] + [
        f"{i}\t{a['title']}\t{len(a['paragraphs'])}" for i, a in enumerate(articles)
    ]
    return ("\n".join(rows) + "\n").encode("utf-8")


def leipzig_sentences(raw: bytes) -> bytes:
    """``id<TAB>sentence`` -> each sentence alone between blank lines (no document structure)."""
    sents = [line.split("\t", 1)[1].strip() for line in raw.decode("utf-8").splitlines() if "\t" in line]
    return gz("\n\n".join(s for s in sents if s) + "\n")


def ud_text(*raws: bytes) -> bytes:
    """``# text = ...`` lines of CoNLL-U files, each sentence its own block."""
    sents = [
        line.split("=", 1)[1].strip()
        for raw in raws
        for line in raw.decode("utf-8").splitlines()
        if line.startswith("# text =")
    ]
    return gz("\n\n".join(sents) + "\n")


def bible_chapters(raw: bytes) -> bytes:
    """Verses of a bible-corpus XML file, whitespace collapsed, one chapter per document."""
    root = ET.parse(io.BytesIO(raw)).getroot()
    blocks = []
    for div in root.iter("div"):
        if div.get("type") == "chapter":
            verses = [" ".join("".join(seg.itertext()).split()) for seg in div.iter("seg")]
            verses = [v for v in verses if v]
            if verses:
                blocks.append("\n".join(verses))
    return gz("\n\n".join(blocks) + "\n")


# ---- the plan -----------------------------------------------------------------------------------


def single(corpus: str, target: str, source: str, path: str, convert=lambda raw: raw) -> Job:
    """A job that writes ``target`` from one source file, converted by ``convert`` (bytes -> bytes)."""
    return Job(corpus, target, (url(source, path),), lambda r: convert(r[0]))


LEIPZIG_STEMS = {
    "en": "eng_wikipedia_2016_10K",
    "de": "deu_wikipedia_2016_10K",
    "fr": "fra_wikipedia_2010_10K",
    "ru": "rus_wikipedia_2016_10K",
    "ar": "ara_wikipedia_2016_10K",
}
UD_PREFIXES = (("es", "ancora", "ud_pos-2.7/es_ancora-ud"), ("zh", "ud_zh", "zh_gsd-ud"), ("ja", "ud_ja", "ja_gsd-ud"))
BIBLE_BOOKS = (("eu", "Basque-NT"), ("sw", "Swahili-NT"))


def jobs() -> list[Job]:
    """Every file to write, with its sources (the single source of truth for --dry-run)."""
    out: list[Job] = []
    for name in ("train", "testa", "testb"):
        out.append(single("conll2003", f"conll2003_en/eng.{name}.gz", "hscrf", f"data/eng.{name}", conll2003_fix))
        out.append(
            single("conll2002_es", f"conll2002_es/esp.{name}.gz", "conll02", f"conll2002/esp.{name}", latin1_to_utf8)
        )
    for lang in WIKIANN_LANGS:
        for split in ("train", "val", "test"):
            source_path = f"data/wikiann/{lang}/{split}.conllu"
            out.append(
                single("wikiann", f"wikiann/{lang}.{split}.tsv.gz", "wikineural", source_path, wikiann_drop_index)
            )
    out.append(single("ner_ja_wikipedia", "ner_ja_wikipedia/ner.json.gz", "stockmark", "ner.json", gzip_as_is))
    for corpus in ("snips", "atis"):
        for split in ("train", "valid", "test"):
            for f in ("seq.in", "seq.out", "label"):
                out.append(single(corpus, f"{corpus}/{split}/{f}", "slotgated", f"data/{corpus}/{split}/{f}"))
    out.append(single("sst2", "sst2/train.tsv.gz", "autoprompt", "glue_data/SST-2/train_full.tsv", gzip_as_is))
    out.append(single("sst2", "sst2/dev.tsv", "autoprompt", "glue_data/SST-2/dev.tsv"))
    for lang in XQUAD_LANGS:
        out.append(
            single("xquad_parallel", f"xquad_parallel/{lang}.txt.gz", "xquad", f"xquad.{lang}.json", xquad_contexts)
        )
    out.append(single("xquad_parallel", "xquad_parallel/articles.tsv", "xquad", "xquad.en.json", xquad_articles))
    for lang, stem in LEIPZIG_STEMS.items():
        source_path = f"data/{stem}/{stem}-sentences.txt"
        out.append(single("raw_text", f"raw_text/{lang}.txt.gz", "leipzig", source_path, leipzig_sentences))
    for lang, source, prefix in UD_PREFIXES:
        urls = (url(source, f"{prefix}-dev.conllu"), url(source, f"{prefix}-test.conllu"))
        out.append(Job("raw_text", f"raw_text/{lang}.txt.gz", urls, lambda r: ud_text(*r)))
    for lang, book in BIBLE_BOOKS:
        out.append(single("raw_text", f"raw_text/{lang}.txt.gz", "bibles", f"bibles/{book}.xml", bible_chapters))
    return out


def corpora() -> list[str]:
    return list(dict.fromkeys(j.corpus for j in jobs()))


def fetch(address: str, timeout: float = 60.0) -> bytes:
    with urllib.request.urlopen(address, timeout=timeout) as response:  # noqa: S310 (fixed https URLs)
        return response.read()


def run(selected: list[str], dest: Path, *, dry_run: bool, force: bool, out=None) -> int:
    """Fetch and write the jobs of ``selected`` corpora; returns the number of files written (or listed)."""
    out = out or sys.stdout
    todo = [j for j in jobs() if j.corpus in selected]
    done = 0
    for job in todo:
        target = dest / job.target
        if dry_run:
            print(f"{job.corpus}\t{target}\t{' + '.join(job.urls)}", file=out)
            done += 1
            continue
        if target.exists() and not force:
            print(f"skip {target} (exists; --force to replace)", file=out)
            continue
        print(f"fetch {target}", file=out, flush=True)
        data = job.build([fetch(u) for u in job.urls])
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".part")
        tmp.write_bytes(data)
        tmp.replace(target)  # atomic: an interrupted download never leaves a half file
        done += 1
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help=f"corpora to fetch (default: all of {corpora()})")
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="destination folder (default: data/corpora)")
    parser.add_argument(
        "--dry-run", action="store_true", help="list corpus, target file and source URLs; fetch nothing"
    )
    parser.add_argument("--force", action="store_true", help="replace files that already exist")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.corpora) - set(corpora()))
    if unknown:
        parser.error(f"unknown corpora {unknown}; choose from {corpora()}")
    n = run(args.corpora or corpora(), args.dest, dry_run=args.dry_run, force=args.force)
    print(f"{n} file(s) {'would be fetched' if args.dry_run else 'written'} under {args.dest}")
    if not args.dry_run:
        print(f"use them with: export TOKSTUDY_DATA={args.dest}  (or --data-dir {args.dest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
