"""Table-3-style examples: a sentence, each word's pieces under each tokenizer, gold and predicted labels.

Sentences are chosen by id, or automatically: those whose entity words are split
most differently across the tokenizers (sum over entity words of max − min pieces),
preferring sentences short enough to read.

Unknown pieces are marked: SentencePiece reports an unknown piece as the text it covers
(``ქართული``), which would read as if the tokenizer knew the word; it is shown as
``<unk:ქართული>`` (a literal ``[UNK]`` stays as it is).

>>> # ex = examples(table, sentences=select_sentences(table, n=3), predictions=[aligned])
>>> # print(examples_markdown(ex))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from tokstudy.analysis.table import SegmentationTable
from tokstudy.report.tables import markdown_table

#: separator between pieces, visible in Markdown, CSV and terminals.
SEPARATOR = " · "

_UNK_TEXTS = {"<unk>", "[UNK]", "<UNK>", "[unk]"}


def mark_unknown(piece: str) -> str:
    """How an unknown piece is shown: ``<unk:TEXT>`` with the text it covers, or the unknown token itself.

    >>> mark_unknown("ქართული"), mark_unknown("[UNK]")
    ('<unk:ქართული>', '[UNK]')
    """
    return piece if piece in _UNK_TEXTS else f"<unk:{piece}>"


@dataclass(frozen=True)
class ExampleWord:
    word: str
    gold: str
    pieces: dict[str, list[str]]  # tokenizer -> pieces
    predicted: dict[str, str]  # model -> predicted tag
    unknown: dict[str, list[bool]] = field(default_factory=dict)  # tokenizer -> unknown flag per piece

    def shown(self, tokenizer: str) -> str:
        """The pieces of ``tokenizer`` joined for display, unknown pieces marked."""
        flags = self.unknown.get(tokenizer) or [False] * len(self.pieces[tokenizer])
        return SEPARATOR.join(mark_unknown(p) if u else p for p, u in zip(self.pieces[tokenizer], flags))


@dataclass(frozen=True)
class ExampleSentence:
    dataset: str
    sent_id: int
    sentence: int  # global index in the table
    words: tuple[ExampleWord, ...]


def select_sentences(
    table: SegmentationTable,
    n: int = 3,
    *,
    tokenizers: Sequence[str] | None = None,
    dataset: str | None = None,
    max_words: int = 30,
) -> list[int]:
    """Global indices of the ``n`` sentences whose entity words differ most across tokenizers.

    With one tokenizer, the sentences whose entity words have the most extra pieces.
    """
    names = list(tokenizers or table.tokenizer_names)
    counts = np.stack([table.n_pieces(t) for t in names]).astype(np.float64)
    spread = counts.max(0) - counts.min(0) if len(names) > 1 else counts[0] - 1
    score = np.bincount(table.sentence, weights=spread * table.inside, minlength=table.n_sentences)
    length = np.diff(table.sentence_offsets)
    ok = (length <= max_words) & (np.bincount(table.sentence, weights=table.inside, minlength=table.n_sentences) > 0)
    if dataset is not None:
        ok &= table.sentence_dataset == table.datasets.index(dataset)
    score = np.where(ok, score, -np.inf)
    order = np.lexsort((np.arange(len(score)), -score))  # highest score first, ties by position
    return [int(s) for s in order[:n] if np.isfinite(score[s])]


def examples(
    table: SegmentationTable,
    sentences: Sequence[int],
    predictions: Sequence = (),
    *,
    tokenizers: Sequence[str] | None = None,
) -> list[ExampleSentence]:
    """Build the examples of global sentences ``sentences`` (see :meth:`SegmentationTable.find_sentence`).

    ``predictions``: :class:`~tokstudy.analysis.model_errors.aligned_predictions.AlignedPredictions`, one per model;
    a model whose predictions are for another dataset shows no label.
    """
    names = list(tokenizers or table.tokenizer_names)
    tags = table.tags
    pred_by_row = []
    for a in predictions:
        pos = np.full(len(table), -1, np.int64)
        pos[a.rows] = np.arange(len(a.rows))
        pred_by_row.append((a.model, pos, a.pred))
    out = []
    for s in sentences:
        rows = table.sentence_rows(s)
        words = []
        for r in range(rows.start, rows.stop):
            predicted = {m: (p[pos[r]] if pos[r] >= 0 else "") for m, pos, p in pred_by_row}
            pieces = {t: table.pieces_of(t, r) for t in names}
            words.append(
                ExampleWord(
                    word=table.word(r),
                    gold=tags[table.tag_code[r]],
                    pieces=pieces,
                    predicted=predicted,
                    unknown={t: _unknown_flags(table, t, r, pieces[t]) for t in names},
                )
            )
        out.append(
            ExampleSentence(table.datasets[table.sentence_dataset[s]], int(table.sent_id[rows.start]), s, tuple(words))
        )
    return out


def _unknown_flags(table: SegmentationTable, tokenizer: str, row: int, pieces: list[str]) -> list[bool]:
    """Which pieces of a row are unknown: the segmenter's flags, or (a table read back from a file,
    which keeps only the count) every piece when all are unknown, else the literal unknown tokens."""
    col = table.column(tokenizer)
    if col.type_unk is not None:
        t = int(table.word_type[row])
        return col.type_unk[col.type_offsets[t] : col.type_offsets[t + 1]].tolist()
    n_unk = int(col.n_unk[row])
    if not n_unk:
        return [False] * len(pieces)
    if n_unk >= len(pieces):
        return [True] * len(pieces)
    return [p in _UNK_TEXTS for p in pieces]


def example_rows(exs: Sequence[ExampleSentence]) -> list[dict]:
    """One row per word (Table 3 layout) for CSV/JSON."""
    rows = []
    for ex in exs:
        for i, w in enumerate(ex.words):
            row = {"dataset": ex.dataset, "sent_id": ex.sent_id, "index": i, "word": w.word}
            for t, ps in w.pieces.items():
                row[t] = w.shown(t)
                row[f"n:{t}"] = len(ps)
            row["gold"] = w.gold
            for m, p in w.predicted.items():
                row[f"pred:{m}"] = p
            rows.append(row)
    return rows


def examples_markdown(exs: Sequence[ExampleSentence]) -> str:
    """Each sentence as a Markdown table: word | pieces per tokenizer | gold | prediction per model.

    Predictions that differ from the gold label are marked with ``✗``; unknown pieces
    with ``<unk:…>`` (see :func:`mark_unknown`).
    """
    parts = []
    for ex in exs:
        rows = []
        for w in ex.words:
            row = {"word": w.word}
            for t in w.pieces:
                row[t] = w.shown(t)
            row["gold"] = w.gold
            for m, p in w.predicted.items():
                row[m] = p + (" ✗" if p and p != w.gold else "")
            rows.append(row)
        title = f"**{ex.dataset}, sentence {ex.sent_id}**: " + " ".join(w.word for w in ex.words)
        parts.append(title + "\n\n" + markdown_table(rows))
    return "\n\n".join(parts)
