"""Words -> model inputs: pieces per word, first-piece labels, and windows for long sentences.

The fast tokenizer encodes each sentence with ``is_split_into_words=True``; its
``word_ids()`` give the pieces of every word (the same pieces a per-word encoding gives,
since every word is pre-tokenised on its own). A word that yields **no** piece (an empty
string, a lone zero-width character a normaliser deletes) gets the unknown piece, so it
still has a first piece and therefore a prediction.

A sentence longer than a window is cut at word boundaries into consecutive windows. Each
window *owns* a run of words (labelled, and predicted from this window) and may start
with up to ``stride`` pieces of left context (the previous words, not labelled again).
Every word is owned by exactly one window, so every word gets exactly one prediction.
A single word with more pieces than a window holds keeps its first pieces (its label
and prediction sit on the first one).

>>> pieces = [[5], [6, 7], [8], [9, 10, 11]]
>>> plan_windows([len(p) for p in pieces], capacity=4, stride=1)
[(0, 0, 3), (2, 3, 4)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

IGNORE = -100  # the label index torch's cross-entropy skips


@dataclass(frozen=True, slots=True)
class Window:
    """One model input for token classification.

    Attributes:
        sentence: index of the sentence it comes from.
        input_ids: ``[CLS] pieces... [SEP]``.
        labels: one label id per position, ``IGNORE`` where no loss applies
            (special tokens, context words, non-first pieces); empty when unlabelled.
        first: ``(word index, position of its first piece)`` for every owned word.
    """

    sentence: int
    input_ids: tuple[int, ...]
    labels: tuple[int, ...]
    first: tuple[tuple[int, int], ...]

    def __len__(self) -> int:
        return len(self.input_ids)


@dataclass(frozen=True, slots=True)
class Encoded:
    """One model input for sentence classification (``label`` is -1 when unlabelled)."""

    sentence: int
    input_ids: tuple[int, ...]
    label: int
    truncated: bool

    def __len__(self) -> int:
        return len(self.input_ids)


def special_ids(tokenizer) -> tuple[int, int, int, int]:
    """``(cls, sep, pad, unk)`` ids; raises ``ValueError`` when the tokenizer lacks one."""
    ids = []
    for name in ("cls_token_id", "sep_token_id", "pad_token_id", "unk_token_id"):
        value = getattr(tokenizer, name, None)
        if value is None:
            raise ValueError(
                f"tokenizer {getattr(tokenizer, 'name_or_path', '')!r} has no {name[:-3]} "
                f"(expected ALBERT/BERT-style [CLS], [SEP], <pad>, <unk> special tokens)"
            )
        ids.append(int(value))
    return tuple(ids)  # type: ignore[return-value]


def word_pieces(tokenizer, sentences: Sequence[Sequence[str]], *, chunk: int = 2048) -> list[list[list[int]]]:
    """Piece ids of every word of every sentence: ``out[s][w]`` is a non-empty list.

    Uses the fast tokenizer's ``word_ids()``; words with no piece get ``[unk_id]``.

    >>> word_pieces(tok, [["EU", "rejects"]])  # doctest: +SKIP
    [[[1234], [567, 89]]]
    """
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(
            f"tokenizer {getattr(tokenizer, 'name_or_path', '')!r} is not a fast tokenizer; word alignment "
            "needs word_ids() (save the tokenizer with tokenizer.json)"
        )
    unk = special_ids(tokenizer)[3]
    out: list[list[list[int]]] = []
    for start in range(0, len(sentences), chunk):
        batch = [list(s) for s in sentences[start : start + chunk]]
        nonempty = [i for i, s in enumerate(batch) if s]
        enc = (
            tokenizer([batch[i] for i in nonempty], is_split_into_words=True, add_special_tokens=False, verbose=False)
            if nonempty
            else None
        )  # verbose=False: long sentences are windowed, not fed whole
        per_sentence: dict[int, list[list[int]]] = {}
        for k, i in enumerate(nonempty):
            groups: list[list[int]] = [[] for _ in batch[i]]
            for piece, wid in zip(enc["input_ids"][k], enc.word_ids(k)):
                if wid is not None:
                    groups[wid].append(int(piece))
            per_sentence[i] = [g if g else [unk] for g in groups]
        out.extend(per_sentence.get(i, []) for i in range(len(batch)))
    return out


def plan_windows(lengths: Sequence[int], *, capacity: int, stride: int) -> list[tuple[int, int, int]]:
    """Cut a sentence (``lengths[w]`` pieces per word) into windows of at most ``capacity`` pieces.

    Returns ``(context_start, own_start, own_end)`` word indices per window: words
    ``context_start:own_start`` are left context (at most ``stride`` pieces), words
    ``own_start:own_end`` are owned. Owned ranges tile ``0..len(lengths)`` exactly.
    """
    if capacity < 1:
        raise ValueError(f"capacity={capacity} must be >= 1")
    n, own, out = len(lengths), 0, []
    while own < n:
        ctx, used = own, 0
        while ctx > 0 and used + lengths[ctx - 1] <= stride:
            ctx -= 1
            used += lengths[ctx]
        if used + lengths[own] > capacity:  # the next word does not fit beside the context: drop it
            ctx, used = own, 0
        end, total = own, used
        while end < n and total + lengths[end] <= capacity:
            total += lengths[end]
            end += 1
        end = max(end, own + 1)  # a word longer than a window is owned alone (truncated)
        out.append((ctx, own, end))
        own = end
    return out


def token_windows(
    pieces: Sequence[Sequence[Sequence[int]]],
    labels: Sequence[Sequence[int]] | None,
    *,
    cls_id: int,
    sep_id: int,
    max_length: int,
    stride: int,
    label_all_pieces: bool = False,
) -> list[Window]:
    """Windows for every sentence (``pieces`` from :func:`word_pieces`, ``labels`` word label ids or ``None``)."""
    capacity = max_length - 2
    windows: list[Window] = []
    for s, words in enumerate(pieces):
        lengths = [len(p) for p in words]
        for ctx, own, end in plan_windows(lengths, capacity=capacity, stride=stride):
            ids, labs, first = [cls_id], [IGNORE], []
            for w in range(ctx, end):
                wp = list(words[w])[: capacity - (len(ids) - 1)]
                if w >= own:
                    first.append((w, len(ids)))
                if labels is not None:
                    lab = labels[s][w] if w >= own else IGNORE
                    labs.extend([lab] + [lab if label_all_pieces else IGNORE] * (len(wp) - 1))
                ids.extend(wp)
            ids.append(sep_id)
            labs.append(IGNORE)
            windows.append(Window(s, tuple(ids), tuple(labs) if labels is not None else (), tuple(first)))
    return windows


def sentence_inputs(
    pieces: Sequence[Sequence[Sequence[int]]],
    labels: Sequence[int] | None,
    *,
    cls_id: int,
    sep_id: int,
    max_length: int,
) -> list[Encoded]:
    """``[CLS] pieces [SEP]`` per sentence, truncated to ``max_length`` (flagged in ``truncated``)."""
    out = []
    for s, words in enumerate(pieces):
        flat = [p for w in words for p in w]
        body = flat[: max_length - 2]
        out.append(Encoded(s, (cls_id, *body, sep_id), -1 if labels is None else int(labels[s]), len(body) < len(flat)))
    return out
