"""MorphScore and boundary precision / recall / F1 against a direct implementation of the published definitions,
on hand-segmented words (words left whole, multi-boundary words, a script without spaces) and real tokenizers."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.morph_recount import boundary_prf
from tokstudy.analysis.morph import morph_scores, piece_boundaries
from tokstudy.data.segmentations import GoldSegmentations, GoldWord, read_segmentations
from tokstudy.tokenization.base import Segmentation, Segmenter
from tokstudy.tokenization.context import METASPACE, WordContext


def reference_morph_eval(pt1: str, rest: str, tokens: list[str]) -> int:
    """MorphScore's ``morph_eval`` (catherinearnett/morphscore): 0 = excluded (one token), 1 = a split of the
    tokens into two parts spells [pt1, rest], -1 = none does."""
    if len(tokens) == 1:
        return 0
    return (
        1
        if any(["".join(tokens[: t + 1]), "".join(tokens[t + 1 :])] == [pt1, rest] for t in range(len(tokens) - 1))
        else -1
    )


def reference_morphscore(items: list[tuple[str, str, list[str]]]) -> tuple[float, int]:
    """The mean over non-excluded words (-1 read as 0) and the number excluded, as MorphScore's code computes."""
    points = [reference_morph_eval(a, b, toks) for a, b, toks in items]
    kept = [0 if p == -1 else p for p in points if p != 0]
    return (sum(kept) / len(kept) if kept else float("nan")), points.count(0)


class Hand(Segmenter):
    """Pieces written by hand, SentencePiece-style (the first piece carries '▁', or a lone '▁' before)."""

    kind, vocab_size = "sentencepiece", 0
    context = WordContext("sentencepiece", "", METASPACE)

    def __init__(self, table: dict[str, list[str]], name: str = "hand"):
        self.table, self.name = table, name

    def segment(self, words):
        return Segmentation.from_lists([self.table[w] for w in words])


HAND = {
    "played": ["▁play", "ed"],  # hit
    "walking": ["▁wal", "king"],  # miss
    "cats": ["▁cats"],  # left whole: excluded
    "unhappiness": ["▁un", "happ", "iness"],  # 2 of 3 gold cuts... un|happi|ness: cut 2 hit, 6 not
    "dogs": ["▁", "dog", "s"],  # lone '▁' before the word: not a cut of the word; dog|s hits
    "食べさせられた": ["▁食べ", "させ", "られた"],  # no spaces in the script: 食べ|させ|られ|た
    "読んだ": ["▁読", "んだ"],
}
GOLD_MORPHS = {
    "played": ["play", "ed"],
    "walking": ["walk", "ing"],
    "cats": ["cat", "s"],
    "unhappiness": ["un", "happi", "ness"],
    "dogs": ["dog", "s"],
    "食べさせられた": ["食べ", "させ", "られ", "た"],
    "読んだ": ["読ん", "だ"],
}


def _tokens(pieces: list[str]) -> list[str]:
    """Surface tokens as MorphScore's code decodes them: markers removed, an empty token dropped."""
    return [t for t in (p.replace(METASPACE, "") for p in pieces) if t]


def _write_sigmorphon(path, morphs: dict[str, list[str]]) -> GoldSegmentations:
    lines = [f"{w}\t{m[0]} " + " ".join("@@" + x for x in m[1:]) + "\t100" for w, m in morphs.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_segmentations(path)


def _write_morphscore(path, morphs: dict[str, list[str]]) -> GoldSegmentations:
    """Boundary of interest: before the last morph, as MorphScore's files put it (stem + ending)."""
    rows = [f"{i},{w},{''.join(m[:-1])},{m[-1]}" for i, (w, m) in enumerate(morphs.items())]
    path.write_text(",full_word,pt1,rest\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return read_segmentations(path)


def test_hand_segmented_words_against_the_published_definitions(tmp_path):
    seg = Hand(HAND)
    ms_gold = _write_morphscore(tmp_path / "x_morph_data.csv", GOLD_MORPHS)
    result = morph_scores(ms_gold, seg)
    items = [("".join(m[:-1]), m[-1], _tokens(HAND[w])) for w, m in GOLD_MORPHS.items()]
    score, excluded = reference_morphscore(items)
    assert result.morphscore.value == pytest.approx(score)
    assert result.morphscore.n_whole == excluded == 1  # cats
    assert result.morphscore.n_scored + result.morphscore.n_whole == len(GOLD_MORPHS)
    # the boundary of interest only: played, dogs, unhappiness (un+happi|ness: no) , 食べさせられ|た (no), 読ん|だ (no)
    assert result.morphscore.n_hit == 2

    sig = morph_scores(_write_sigmorphon(tmp_path / "x.word.tsv", GOLD_MORPHS), seg)
    assert sig.morphscore is None  # no boundary of interest in SIGMORPHON files
    p, r, tp, pred, gold = boundary_prf([(GOLD_MORPHS[w], _tokens(HAND[w])) for w in GOLD_MORPHS])
    b = sig.boundaries
    assert (b.true_positive, b.predicted, b.gold) == (tp, pred, gold)
    assert (b.precision, b.recall) == (pytest.approx(p), pytest.approx(r))
    assert b.f1 == pytest.approx(2 * p * r / (p + r))


def test_frequency_bands_partition_the_words(tmp_path):
    seg = Hand(HAND)
    gold = _write_morphscore(tmp_path / "x_morph_data.csv", GOLD_MORPHS)
    counts = Counter({"played": 12, "walking": 3, "cats": 1, "dogs": 150})
    r = morph_scores(gold, seg, corpus_counts=counts, band_edges=(1, 10, 100))
    by = {b.label: b for b in r.bands}
    assert list(by) == ["0", "1-9", "10-99", "100+"]
    assert {k: b.n_words for k, b in by.items()} == {"0": 3, "1-9": 2, "10-99": 1, "100+": 1}
    assert by["1-9"].morphscore.n_whole == 1 and by["1-9"].morphscore.n_scored == 1  # cats, walking
    assert by["10-99"].morphscore.value == 1.0 and by["100+"].morphscore.value == 1.0
    assert sum(b.boundaries.true_positive for b in r.bands) == r.boundaries.true_positive


def test_real_sentencepiece_against_its_own_encoding(tmp_path, spm_model):
    import sentencepiece as spm

    from tokstudy.tokenization.loading import load_tokenizer

    words = {
        "unhappiness": ["un", "happi", "ness"],
        "replaying": ["re", "play", "ing"],
        "walked": ["walk", "ed"],
        "the": ["the"],
        "governments": ["govern", "ment", "s"],
        "Reykjavik": ["Reykja", "vik"],
    }
    sp = spm.SentencePieceProcessor(model_file=str(spm_model))
    seg = load_tokenizer(spm_model, name="sp")
    toks = {w: _tokens(sp.encode(w, out_type=str)) for w in words}
    r = morph_scores(_write_sigmorphon(tmp_path / "en.word.tsv", words), seg)
    p, rc, tp, pred, gold = boundary_prf([(m, toks[w]) for w, m in words.items()])
    assert (r.boundaries.true_positive, r.boundaries.predicted, r.boundaries.gold) == (tp, pred, gold)
    ms = morph_scores(_write_morphscore(tmp_path / "en_morph_data.csv", words | {"the": ["th", "e"]}), seg)
    toks["the"] = _tokens(sp.encode("the", out_type=str))
    items = [("".join(m[:-1]), m[-1], toks[w]) for w, m in (words | {"the": ["th", "e"]}).items()]
    score, excluded = reference_morphscore(items)
    assert ms.morphscore.n_whole == excluded
    assert ms.morphscore.value == pytest.approx(score, nan_ok=True)


def test_byte_level_pieces_space_marker_and_cuts_inside_a_character():
    ctx = WordContext("byte-level", " ", "Ġ")
    from tokstudy.tokenization.tiktoken_ import byte_to_unicode

    def as_piece(raw: bytes) -> str:
        return "".join(byte_to_unicode()[b] for b in raw)

    # " née" as Ġn + é's two bytes cut apart: the cut inside é is at byte 2, a piece boundary at no character
    pieces = [as_piece(b" n"), as_piece("é".encode()[:1]), as_piece("é".encode()[1:] + b"e")]
    assert piece_boundaries("née", pieces, ctx) == (1, 2)
    gold = GoldSegmentations((GoldWord("née", (1,), 1), GoldWord("née", (2,), 2)), "g.csv", "morphscore", "fr")

    class Fixed(Segmenter):
        name, kind, vocab_size, context = "bb", "demo", 0, ctx

        def segment(self, words):
            return Segmentation.from_lists([pieces for _ in words])

    r = morph_scores(gold, Fixed())
    # gold character 1 is byte 1 (a hit); gold character 2 is byte 3 (after é): the cut at byte 2 misses it
    assert (r.morphscore.n_hit, r.morphscore.n_scored) == (1, 2)
    assert (r.boundaries.true_positive, r.boundaries.predicted) == (1, 4)


def test_unknown_pieces_and_normalised_words():
    ctx = WordContext("sentencepiece", "", METASPACE)
    assert piece_boundaries("aXb", ["▁a", "<unk>", "b"], ctx, unk=[False, True, False]) == (1, 2)
    assert piece_boundaries("aXYb", ["▁a", "<unk>", "b"], ctx, unk=[False, True, False]) == (1, 3)
    assert piece_boundaries("aXYb", ["▁a", "<unk>", "<unk>"], ctx, unk=[False, True, True]) is None
    assert piece_boundaries("ﬁne", ["▁fi", "ne"], ctx) is None  # NFKC changed the word's length: not guessed
    wp = WordContext("wordpiece", "", "##", marker_starts_word=False)
    assert piece_boundaries("playing", ["play", "##ing"], wp) == (4,)
