"""Multilingual document streams: input resolution, sizes, temperature sampling, sentence splitting."""

from __future__ import annotations

import gzip
from collections import Counter

import numpy as np
import pytest

from pretrain.data.documents import (
    document_bytes,
    language_probabilities,
    measure_text,
    plan_languages,
    resolve_inputs,
    sample_documents,
    split_sentences,
    text_bytes,
)
from tests.conftest import corpus_path
from tokstudy.data.rawtext import read_raw_text
from tokstudy.errors import DataNotFoundError


def test_language_probabilities_formula():
    sizes = {"en": 1000.0, "es": 300.0, "sw": 20.0}
    total = sum(sizes.values())
    for alpha in (1.0, 0.7, 0.3):
        p = language_probabilities(sizes, alpha=alpha)
        ref = {k: (v / total) ** alpha for k, v in sizes.items()}
        z = sum(ref.values())
        assert p == pytest.approx({k: v / z for k, v in ref.items()})
        assert sum(p.values()) == pytest.approx(1.0)
    assert language_probabilities(sizes, alpha=1.0) == pytest.approx({k: v / total for k, v in sizes.items()})
    # a lower alpha flattens: the smallest language gains
    assert language_probabilities(sizes, alpha=0.3)["sw"] > language_probabilities(sizes, alpha=0.7)["sw"]


def test_resolve_inputs_by_corpus_name_and_path(monkeypatch):
    root = corpus_path("raw_text")
    monkeypatch.setenv("TOKSTUDY_DATA", str(root.parent))
    one = resolve_inputs(["raw_text/en"])
    assert one == {"en": [root / "en.txt.gz"]}
    some = resolve_inputs(["raw_text"], languages=["zh", "sw"])
    assert list(some) == ["sw", "zh"]
    assert resolve_inputs([str(root / "ja.txt.gz")]) == {"ja": [root / "ja.txt.gz"]}
    assert "README" not in str(resolve_inputs(["raw_text"]))
    with pytest.raises(DataNotFoundError, match="neither a file"):
        resolve_inputs(["no_such_corpus/xx"])
    with pytest.raises(DataNotFoundError, match="no raw-text files"):
        resolve_inputs(["raw_text"], languages=["tlh"])


def test_text_bytes_is_uncompressed_size():
    path = corpus_path("raw_text") / "zh.txt.gz"
    assert text_bytes(path) == len(gzip.decompress(path.read_bytes()))
    for lang in ("sw", "ja"):
        path = corpus_path("raw_text") / f"{lang}.txt.gz"
        assert measure_text(path)[1] == sum(1 for _ in read_raw_text(path))


def test_proportions_hold_along_the_stream():
    """Languages with long documents (sw chapters) and short ones (en sentences) flow in proportion."""
    root = corpus_path("raw_text")
    plans = plan_languages({lang: [root / f"{lang}.txt.gz"] for lang in ("en", "sw", "zh")}, alpha=0.3)
    expected = {p.language: p.probability for p in plans}
    drawn = Counter()
    for doc in sample_documents(plans, seed=5):
        drawn[doc.language] += document_bytes(doc)
        if sum(drawn.values()) > 600_000:  # about a quarter of the stream
            break
    total = sum(drawn.values())
    for lang, p in expected.items():
        assert drawn[lang] / total == pytest.approx(p, abs=0.03), lang


def test_temperature_sampling_proportions():
    root = corpus_path("raw_text")
    files = {lang: [root / f"{lang}.txt.gz"] for lang in ("en", "es", "zh")}
    alpha = 0.3
    plans = plan_languages(files, alpha=alpha)
    sizes = {p.language: p.bytes for p in plans}
    expected = language_probabilities(sizes, alpha=alpha)
    # zh is small: it is read several times over; en is subsampled
    rate = {p.language: p.rate for p in plans}
    assert rate["zh"] > 2 and rate["en"] < 1
    drawn = Counter()
    seen_zh = Counter()
    for doc in sample_documents(plans, seed=3):
        drawn[doc.language] += document_bytes(doc)
        if doc.language == "zh":
            seen_zh[(doc.source, doc.line)] += 1
    total = sum(drawn.values())
    assert total == pytest.approx(sum(sizes.values()), rel=0.02)
    for lang, p in expected.items():
        assert drawn[lang] / total == pytest.approx(p, abs=0.01), lang
    # upsampled zh documents repeat floor(rate) or ceil(rate) times
    assert set(seen_zh.values()) <= {int(rate["zh"]), int(rate["zh"]) + 1}


def test_sampling_interleaves_and_is_deterministic():
    root = corpus_path("raw_text")
    plans = plan_languages({lang: [root / f"{lang}.txt.gz"] for lang in ("sw", "eu")}, alpha=0.5)

    def first(seed, n=400):
        out = []
        for doc in sample_documents(plans, seed=seed):
            out.append((doc.language, doc.line))
            if len(out) == n:
                break
        return out

    a = first(1)
    assert a == first(1)
    assert a != first(2)
    langs = [x[0] for x in a]
    switches = sum(x != y for x, y in zip(langs, langs[1:]))
    assert switches > 100  # mixed, not one language after the other


def test_document_bytes_match_file():
    root = corpus_path("raw_text")
    plans = plan_languages({"ja": [root / "ja.txt.gz"]}, alpha=1.0)
    assert plans[0].rate == pytest.approx(1.0)
    total = sum(document_bytes(d) for d in sample_documents(plans, seed=0))
    # every byte but the blank separator lines is counted
    raw = gzip.decompress((root / "ja.txt.gz").read_bytes()).decode("utf-8")
    blank = sum(1 for line in raw.split("\n") if not line.strip()) - (1 if raw.endswith("\n") else 0)
    assert total == len(raw.encode("utf-8")) - blank


@pytest.mark.parametrize(
    "line, parts",
    [
        ("One. Two? Three!", ["One.", "Two?", "Three!"]),
        ("No end", ["No end"]),
        ("«Oui», dit-il. Puis il partit…", ["«Oui», dit-il.", "Puis il partit…"]),
        ("他来了。我走了！好吗？", ["他来了。", "我走了！", "好吗？"]),
        ("「はい。」と言った。", ["「はい。」と言った。"]),
        ("Это так. А это нет.", ["Это так.", "А это нет."]),
        ("   ", []),
    ],
)
def test_split_sentences(line, parts):
    assert split_sentences(line) == parts


def test_split_keeps_all_text():
    rng = np.random.default_rng(0)
    root = corpus_path("raw_text_large")
    with gzip.open(root / "fr.txt.gz", "rt", encoding="utf-8") as f:
        lines = [line.strip() for _, line in zip(range(3000), f) if line.strip()]
    for line in rng.choice(lines, 200):
        assert "".join(split_sentences(line)).replace(" ", "") == line.replace(" ", "")
