"""Boundary precision and recall recounted from surface strings, for the morphology tests (independent of
tokstudy.analysis.morph): a word's cuts are the cumulative lengths of its parts before the last."""

from __future__ import annotations

from collections.abc import Iterable


def cuts(parts: list[str]) -> set[int]:
    """Character offsets inside the word where one part ends and the next begins."""
    out, at = set(), 0
    for part in parts[:-1]:
        at += len(part)
        out.add(at)
    return out


def surface(pieces: Iterable[str]) -> list[str]:
    """A word's SentencePiece pieces as surface strings: the word-boundary mark dropped, and any piece it leaves
    empty (a lone mark)."""
    return [t for t in (p.replace("\u2581", "") for p in pieces) if t]


def boundary_prf(items: Iterable[tuple[list[str], list[str]]]) -> tuple[float, float, int, int, int]:
    """(precision, recall, true positives, piece cuts, gold cuts) over ``(morphs, tokens)`` pairs, micro-averaged."""
    tp = pred = gold = 0
    for morphs, tokens in items:
        g, p = cuts(morphs), cuts(tokens)
        tp, pred, gold = tp + len(g & p), pred + len(p), gold + len(g)
    return tp / pred, tp / gold, tp, pred, gold
