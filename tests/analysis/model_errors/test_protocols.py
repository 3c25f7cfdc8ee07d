"""r under every protocol equals scipy's on vectors recounted by hand; the entity-missed rule is seqeval's.

The sentences below are hand-made so that every protocol's vectors differ: a lone boundary piece inside
and outside entities, a partially missed entity ("New York Times" predicted as "New York"), an entity whose
tags are wrong but whose span is found (``I-LOC`` starting "BRUSSELS"), one whose tags are right but whose
span is not ("Seoul" predicted to run on into ","), a spurious entity ("rejects" as ``B-PER``).
"""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from seqeval.metrics.sequence_labeling import get_entities

from tests.analysis.conftest import ChunkSegmenter, random_dataset
from tests.fixtures_doctest import assert_examples_pass
from tests.fixtures_sentencepiece import train_unigram
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.predictions import PredictedSentence, Predictions, write_predictions
from tokstudy.analysis.model_errors.protocols import (
    ALL_PROTOCOLS,
    Protocol,
    correlation_protocols,
    nearest_protocol,
    outcomes,
)
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.analysis.table import segmentation_table, tokenizer_columns
from tokstudy.cli import main
from tokstudy.data.types import Dataset, Sentence
from tokstudy.report.protocols import protocol_rows, protocols_markdown
from tokstudy.tokenization.base import Segmentation, Segmenter

LONE = "\u2581"

#: each word's pieces as a SentencePiece model emits them in context (a lone ``▁`` where it would)
PIECES = {
    "Washington": ["▁Washington"],
    ",": [LONE, ","],
    "said": ["▁said"],
    "Obama": ["▁O", "bama"],
    "New": ["▁New"],
    "York": ["▁York"],
    "Times": ["▁Tim", "es"],
    "reports": ["▁report", "s"],
    "The": ["▁The"],
    "EU": ["▁E", "U"],
    "rejects": ["▁re", "ject", "s"],
    "German": ["▁German"],
    "call": ["▁call"],
    "Peter": ["▁Peter"],
    "Blackburn": ["▁Black", "burn"],
    ".": [LONE, "."],
    "BRUSSELS": ["▁B", "R", "US", "SEL", "S"],
    "1996-08-22": ["▁1996", "-", "08", "-", "22"],
    "Kim": ["▁Kim"],
    "Lee": ["▁Lee"],
    "visits": ["▁visit", "s"],
    "Seoul": [LONE, "Seou", "l"],
}

#: (words, gold tags, predicted tags)
SENTENCES = [
    (["Washington", ",", "said", "Obama"], ["B-LOC", "O", "O", "B-PER"], ["B-LOC", "O", "O", "B-ORG"]),
    (["New", "York", "Times", "reports"], ["B-ORG", "I-ORG", "I-ORG", "O"], ["B-ORG", "I-ORG", "O", "O"]),
    (
        ["The", "EU", "rejects", "German", "call"],
        ["O", "B-ORG", "O", "B-MISC", "O"],
        ["O", "B-ORG", "B-PER", "B-MISC", "O"],
    ),
    (["Peter", "Blackburn", "."], ["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]),
    (["BRUSSELS", "1996-08-22"], ["B-LOC", "O"], ["I-LOC", "O"]),
    (
        ["Kim", "Lee", "visits", "Seoul", ","],
        ["B-PER", "I-PER", "O", "B-LOC", "O"],
        ["B-PER", "B-PER", "O", "B-LOC", "I-LOC"],
    ),
]


class DictSegmenter(Segmenter):
    """The pieces of :data:`PIECES`; with ``drop_lone`` a lone ``▁`` is left out of a word with other pieces."""

    kind = "test"
    vocab_size = 100

    def __init__(self, name: str, *, drop_lone: bool = False):
        self.name = name
        self.drop_lone = drop_lone

    def segment(self, words):
        lists = [PIECES[w] for w in words]
        if self.drop_lone:
            lists = [[p for p in ps if p != LONE] if len(ps) > 1 else ps for ps in lists]
        return Segmentation.from_lists(lists)


def _dataset(sentences) -> Dataset:
    sents = tuple(Sentence(tuple(w), tuple(g), sent_id=i) for i, (w, g, _) in enumerate(sentences))
    return Dataset(sents, name="hand", language="en", split="test")


def _predictions(sentences) -> Predictions:
    return Predictions(
        tuple(PredictedSentence(tuple(w), tuple(g), tuple(p), sent_id=i) for i, (w, g, p) in enumerate(sentences)),
        {"model": "hand-model"},
    )


@pytest.fixture(scope="module")
def hand():
    table = segmentation_table([_dataset(SENTENCES)], [DictSegmenter("dict")], progress=False)
    aligned = align_predictions(table, _predictions(SENTENCES))
    dropped = tokenizer_columns(table, DictSegmenter("dict", drop_lone=True))
    return table, aligned, dropped


# ---- the brute-force recount, written from the sentences alone -------------------------------------------


def _pieces(word: str, boundary: str) -> int:
    ps = PIECES[word]
    return len([p for p in ps if p != LONE]) if boundary == "dropped" and len(ps) > 1 else len(ps)


def _entities(tags) -> set[tuple[str, int, int]]:
    """seqeval's entities ``(type, first, last)`` (inclusive) of one sentence."""
    return set(get_entities(list(tags)))


def recount(sentences, protocol: Protocol, pieces=_pieces) -> tuple[list[float], list[float]]:
    """``(x, y)`` of ``protocol`` from the words and tags, independently of tokstudy; ``pieces(word, boundary)``
    counts a word's pieces (default: from :data:`PIECES`)."""
    x, y = [], []
    for words, gold, pred in sentences:
        gold_e, pred_e = _entities(gold), _entities(pred)
        bad = set()  # positions inside a missed gold entity or a spurious predicted one
        for _, a, b in (gold_e - pred_e) | (pred_e - gold_e):
            bad.update(range(a, b + 1))
        extra = 1 if protocol.measure == "extra_pieces" else 0
        if protocol.unit == "entities":
            for typ, a, b in sorted(gold_e, key=lambda e: e[1]):
                x.append(sum(pieces(words[i], protocol.boundary) - extra for i in range(a, b + 1)))
                if protocol.error == "entity":
                    y.append(float((typ, a, b) not in pred_e))
                else:
                    y.append(float(any(gold[i] != pred[i] for i in range(a, b + 1))))
            continue
        for i, w in enumerate(words):
            if protocol.unit == "ne_words" and gold[i] == "O":
                continue
            x.append(pieces(w, protocol.boundary) - extra)
            y.append(float(i in bad) if protocol.error == "entity" else float(gold[i] != pred[i]))
    return x, y


# ---- tests ------------------------------------------------------------------------------------------------


def test_the_hand_made_set_tells_the_protocols_apart():
    # the recount itself: the cases the module docstring names are there
    words = recount(SENTENCES, Protocol("words", "n_pieces", "label", "counted"))
    dropped = recount(SENTENCES, Protocol("words", "n_pieces", "label", "dropped"))
    assert words[0] != dropped[0]  # a lone boundary piece changes x
    ents_label = recount(SENTENCES, Protocol("entities", "n_pieces", "label", "counted"))[1]
    ents_missed = recount(SENTENCES, Protocol("entities", "n_pieces", "entity", "counted"))[1]
    # BRUSSELS: tag wrong, span found; Seoul: tags right, span missed
    assert ents_label != ents_missed
    assert len(ents_label) == 9 and sum(ents_missed) == 4


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS, ids=lambda p: p.describe())
def test_each_protocol_equals_scipy_on_the_recount(hand, protocol):
    table, aligned, dropped = hand
    res = correlation_protocols(table, aligned, "dict", dropped=dropped, bootstrap=BootstrapSettings(50))
    got = res.get(protocol)
    x, y = recount(SENTENCES, protocol)
    ref = stats.pearsonr(x, y)
    assert got.n == len(x)
    assert got.r == pytest.approx(ref.statistic, abs=1e-12)
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert got.spearman == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert got.low <= got.high


def test_word_level_pieces_and_extra_pieces_tie_entity_level_does_not(hand):
    table, aligned, dropped = hand
    res = correlation_protocols(table, aligned, "dict", dropped=dropped, bootstrap=BootstrapSettings(0))
    for unit in ("words", "ne_words"):
        a = res.get(Protocol(unit, "n_pieces", "label", "counted")).r
        assert res.get(Protocol(unit, "extra_pieces", "label", "counted")).r == pytest.approx(a, abs=1e-12)
    a = res.get(Protocol("entities", "n_pieces", "entity", "counted")).r
    assert res.get(Protocol("entities", "extra_pieces", "entity", "counted")).r != pytest.approx(a, abs=1e-6)


def _random_sentences(seed: int) -> tuple:
    """A random dataset's table, and (words, gold, pred) per sentence with random predicted tags."""
    ds = random_dataset(100 + seed, 300)
    table = segmentation_table([ds], [ChunkSegmenter(3)], progress=False)
    rng = random.Random(seed)
    choices = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG"]
    sentences = []
    for s in range(table.n_sentences):
        rows = table.sentence_rows(s)
        words = [table.word(r) for r in range(rows.start, rows.stop)]
        gold = [table.tags[c] for c in table.tag_code[rows].tolist()]
        pred = [t if rng.random() < 0.6 else rng.choice(choices) for t in gold]
        sentences.append((words, gold, pred))
    return table, sentences


@pytest.mark.filterwarnings("ignore::tokstudy.analysis.table.coverage.UnknownPiecesWarning")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_entity_missed_rule_agrees_with_seqeval(seed):
    table, sentences = _random_sentences(seed)
    found = outcomes(table, align_predictions(table, _predictions(sentences)))
    spans, missed, wrong = [], [], []
    offset = 0
    for words, gold, pred in sentences:
        gold_e, pred_e = _entities(gold), _entities(pred)
        bad = set()
        for _, a, b in (gold_e - pred_e) | (pred_e - gold_e):
            bad.update(range(a, b + 1))
        for typ, a, b in sorted(gold_e, key=lambda e: e[1]):
            spans.append((offset + a, offset + b + 1))
            missed.append((typ, a, b) not in pred_e)
        wrong.extend(i in bad for i in range(len(words)))
        offset += len(words)
    assert list(zip(found.gold.first.tolist(), found.gold.last.tolist())) == spans
    assert found.gold.missed.tolist() == missed
    assert found.entity_wrong.tolist() == wrong
    assert 0 < sum(missed) < len(missed)


def test_a_dropped_column_that_counts_more_is_refused(hand):
    table, aligned, _ = hand
    more = tokenizer_columns(table, ChunkSegmenter(1))
    with pytest.raises(ValueError, match="count_lone_boundary=False"):
        correlation_protocols(table, aligned, "dict", dropped=more)


def test_without_a_dropped_column_only_counted_protocols(hand):
    table, aligned, _ = hand
    res = correlation_protocols(table, aligned, "dict", bootstrap=BootstrapSettings(0))
    assert {r.protocol.boundary for r in res.results} == {"counted"} and len(res.results) == 12
    assert res.dropped_policy == ""
    with pytest.raises(KeyError):
        res.get(Protocol("words", "n_pieces", "label", "dropped"))


def test_nearest_protocol_and_the_table(hand):
    table, aligned, dropped = hand
    res = correlation_protocols(table, aligned, "dict", dropped=dropped, bootstrap=BootstrapSettings(20))
    protocols, distance = nearest_protocol([res], target=0.44)
    best = min(abs(r.correlation.r - 0.44) for r in res.results if np.isfinite(r.correlation.r))
    assert distance == pytest.approx(best)
    assert all(abs(res.get(p).r - 0.44) == pytest.approx(best) for p in protocols)
    assert res.nearest(0.44).protocol in protocols
    text = protocols_markdown([res])
    assert text.count("| dict |") == 6 and "Nearest the paper's r = 0.44" in text
    assert protocols[0].describe() in text
    rows = protocol_rows([res])
    assert len(rows) == 24 and json.dumps(rows)  # plain numbers, JSON-ready


def test_docstring_examples():
    assert_examples_pass("tokstudy.analysis.model_errors.protocols")
    assert_examples_pass("tokstudy.report.protocols")


# ---- the command, end to end on a real SentencePiece model ------------------------------------------------


@pytest.fixture(scope="module")
def command_inputs(tmp_path_factory):
    """A tiny SentencePiece model that splits ``,`` and ``.`` into a lone ``▁`` and the mark, the hand-made
    sentences as a CoNLL file, and their predictions."""
    d = tmp_path_factory.mktemp("protocols_cli")
    # punctuation always follows a word, so "▁," is never a piece and "," alone becomes ["▁", ","]
    lines = [" ".join(w for w in words if w not in ",.") + ", and." for words, _, _ in SENTENCES] * 20
    model = train_unigram(lines, d / "sp", 60, hard_vocab_limit=False)
    conll = d / "hand.conll"
    conll.write_text(
        "\n\n".join("\n".join(f"{w} {g}" for w, g in zip(words, gold)) for words, gold, _ in SENTENCES) + "\n",
        encoding="utf-8",
    )
    preds = write_predictions(d / "preds.tsv", [(w, g, p) for w, g, p in SENTENCES], metadata={"model": "hand"})
    return model, conll, preds, d


def test_command_gives_scipy_r_for_every_protocol(command_inputs):
    import sentencepiece as spm

    model, conll, preds, d = command_inputs
    sp = spm.SentencePieceProcessor(model_file=str(model))

    def sp_pieces(word: str, boundary: str) -> int:
        ps = sp.encode(word, out_type=str)
        return len([p for p in ps if p != LONE]) if boundary == "dropped" and len(ps) > 1 else len(ps)

    assert sp.encode(",", out_type=str) == [LONE, ","]  # the lone boundary piece is there to drop
    out = d / "r.json"
    argv = ["correlate-protocols", "-d", str(conll), "-t", f"sp={model}", "-p", str(preds), "--no-progress"]
    assert main([*argv, "--resamples", "0", "--json", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert len(rows) == len(ALL_PROTOCOLS)
    for row in rows:
        protocol = Protocol(row["unit"], row["measure"], row["error"], row["lone_boundary"])
        x, y = recount(SENTENCES, protocol, sp_pieces)
        assert row["n"] == len(x)
        assert row["r"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12), protocol.describe()


def test_command_refuses_unpaired_predictions_before_any_work(command_inputs, capsys):
    model, conll, preds, _ = command_inputs
    argv = ["correlate-protocols", "-d", str(conll), "-t", f"a={model}", "-t", f"b={model}"]
    assert main([*argv, "-p", str(preds), "-p", str(preds), "-p", str(preds)]) == 2
    assert "3 --predictions for 2 --tokenizer" in capsys.readouterr().err


def test_command_help():
    res = subprocess.run(
        [sys.executable, "-m", "tokstudy", "correlate-protocols", "--help"], capture_output=True, text=True
    )
    assert res.returncode == 0
    for flag in ("--predictions", "--tokenizer", "--dataset", "--json", "--csv", "--markdown", "0.44"):
        assert flag in res.stdout


def test_table_names_models_where_a_tokenizer_has_several(hand):
    table, aligned, dropped = hand
    a = correlation_protocols(table, aligned, "dict", dropped=dropped, bootstrap=BootstrapSettings(0))
    b = dataclasses.replace(a, model="other-model")
    text = protocols_markdown([a, b])
    assert "| tokenizer | model | over |" in text and "| dict | other-model |" in text
    assert "without a bootstrap CI (0 resamples)" in text
    assert "| tokenizer | over |" in protocols_markdown([a])  # one model per tokenizer: named below the table
