"""The segmentation explorer's data: one row per word, every tokenizer's pieces side by side (Table 3, live).

:func:`build_view` segments a sentence with each tokenizer (one batch call each, via
the :class:`~tokstudy.tokenization.base.Segmenter` API) and lines up the gold tags and
each model's predicted tags; :func:`render_html` turns the view into one escaped HTML
table. Both are plain Python, so the benchmark times exactly what the page runs.

>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Chars(Segmenter):
...     name, kind, vocab_size = "chars", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists([list(w) for w in words])
>>> v = build_view(["EU", "a"], ["B-ORG", "O"], [Chars()], {"m1": ["B-ORG", "B-PER"]})
>>> v.rows[0].pieces, v.rows[0].entity_type, v.rows[1].wrong
((('E', 'U'),), 'ORG', (True,))
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: colours of the usual entity types; other types get one from :data:`_EXTRA_COLOURS`.
ENTITY_COLOURS = {"PER": "#ffd6d6", "LOC": "#d6ecff", "ORG": "#dff5d8", "MISC": "#f3e2ff"}
_EXTRA_COLOURS = ("#fff1c7", "#d9f4f1", "#ffe0f0", "#e8e8ff", "#f0f0d0", "#e0f7ff")
#: the visible separator between pieces in text exports (Table 3 style).
SEPARATOR = " | "


@dataclass(frozen=True)
class WordRow:
    """One word of the explorer table.

    Attributes:
        index: position of the word in the sentence.
        word: the word.
        gold: its gold IOB2 tag, or ``None`` for typed text.
        entity_type: the entity type of the gold tag (``None`` outside entities).
        pieces: its pieces under each tokenizer, in the view's tokenizer order.
        differs: ``True`` when the tokenizers split the word at different places.
        predicted: each model's predicted tag (``None`` where the model has none).
        wrong: per model, whether the prediction differs from the gold tag.
    """

    index: int
    word: str
    gold: str | None
    entity_type: str | None
    pieces: tuple[tuple[str, ...], ...]
    differs: bool
    predicted: tuple[str | None, ...] = ()
    wrong: tuple[bool, ...] = ()


@dataclass(frozen=True)
class ExplorerView:
    """A sentence under several tokenizers and models.

    Attributes:
        tokenizers: tokenizer names, the order of :attr:`WordRow.pieces`.
        models: model names, the order of :attr:`WordRow.predicted`.
        rows: one per word.
        boundary_policies: per tokenizer, how a lone word-boundary piece counts.
    """

    tokenizers: tuple[str, ...]
    models: tuple[str, ...]
    rows: tuple[WordRow, ...]
    boundary_policies: tuple[str, ...] = ()

    def n_pieces(self, tokenizer: str) -> int:
        k = self.tokenizers.index(tokenizer)
        return sum(len(r.pieces[k]) for r in self.rows)

    def additional_segmentation(self, tokenizer: str) -> float:
        """Pieces / words - 1 for this sentence (a display figure, not a study statistic)."""
        return self.n_pieces(tokenizer) / max(len(self.rows), 1) - 1.0

    def to_records(self) -> list[dict]:
        """Table-3-style records: word, gold, pieces per tokenizer joined by :data:`SEPARATOR`, predictions."""
        out = []
        for r in self.rows:
            rec = {"word": r.word, "gold": r.gold or ""}
            rec.update({t: SEPARATOR.join(p) for t, p in zip(self.tokenizers, r.pieces)})
            rec.update({m: (p or "") for m, p in zip(self.models, r.predicted)})
            out.append(rec)
        return out


def build_view(
    words: Sequence[str],
    tags: Sequence[str] | None,
    segmenters: Sequence,
    predictions: Mapping[str, Sequence[str] | None] | None = None,
) -> ExplorerView:
    """Segment ``words`` with each segmenter and align gold and predicted tags."""
    words = list(words)
    if tags is not None and len(tags) != len(words):
        raise ValueError(f"{len(words)} words but {len(tags)} gold tags")
    per_tok = [seg.segment(words).as_lists() for seg in segmenters]
    predictions = dict(predictions or {})
    models = tuple(predictions)
    rows = []
    for i, w in enumerate(words):
        pieces = tuple(tuple(p[i]) for p in per_tok)
        gold = tags[i] if tags is not None else None
        etype = gold.partition("-")[2] or None if gold and gold != "O" else None
        pred = tuple((predictions[m][i] if predictions[m] is not None else None) for m in models)
        wrong = tuple(p is not None and gold is not None and p != gold for p in pred)
        rows.append(WordRow(i, w, gold, etype, pieces, _differs(pieces), pred, wrong))
    policies = tuple(seg.describe_boundary_policy() for seg in segmenters)
    return ExplorerView(tuple(seg.name for seg in segmenters), models, tuple(rows), policies)


def _differs(pieces: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the split points differ (``▁``/``##`` markers ignored, so vocabularies compare)."""
    if len(pieces) < 2:
        return False
    shapes = {tuple(len(_bare(p)) for p in ps if _bare(p)) for ps in pieces}
    return len(shapes) > 1


def _bare(piece: str) -> str:
    return piece.lstrip("\u2581").removeprefix("##")


def entity_colour(entity_type: str) -> str:
    if entity_type in ENTITY_COLOURS:
        return ENTITY_COLOURS[entity_type]
    return _EXTRA_COLOURS[sum(map(ord, entity_type)) % len(_EXTRA_COLOURS)]


_CSS = """<style>
.ts-explorer{border-collapse:collapse;font-size:0.9rem;width:100%}
.ts-explorer th,.ts-explorer td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
.ts-explorer th{background:#f6f6f6;position:sticky;top:0}
.ts-piece{display:inline-block;border:1px solid #999;border-radius:4px;padding:0 4px;margin:1px 2px 1px 0;font-family:monospace;background:#fff}
.ts-piece.ts-unk{border-color:#c00;color:#c00}
.ts-differs td.ts-word{font-weight:bold;border-left:4px solid #e8a400}
.ts-wrong{color:#b00000;font-weight:bold}
.ts-right{color:#1a7f37}
.ts-legend span{display:inline-block;padding:0 6px;margin-right:6px;border-radius:4px}
</style>"""


def render_html(view: ExplorerView, *, unk_pieces: Sequence[str] = ("<unk>", "[UNK]")) -> str:
    """One self-contained HTML table; every word and piece is escaped."""
    esc = html.escape
    types = sorted({r.entity_type for r in view.rows if r.entity_type})
    parts = [_CSS]
    if types:
        legend = "".join(f'<span style="background:{entity_colour(t)}">{esc(t)}</span>' for t in types)
        parts.append(f'<div class="ts-legend">gold entity types: {legend} &nbsp; bold word with orange bar = split differently by the tokenizers</div>')
    head = ["#", "word", "gold"] + [f"{esc(t)} ({view.n_pieces(t)} pieces)" for t in view.tokenizers]
    head += [f"pred: {esc(m)}" for m in view.models]
    parts.append('<table class="ts-explorer"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>")
    unk = set(unk_pieces)
    for r in view.rows:
        cls = ' class="ts-differs"' if r.differs else ""
        style = f' style="background:{entity_colour(r.entity_type)}"' if r.entity_type else ""
        cells = [f"<td>{r.index}</td>", f'<td class="ts-word"{style}>{esc(r.word)}</td>', f"<td>{esc(r.gold or '')}</td>"]
        for k, ps in enumerate(r.pieces):
            chips = "".join(
                f'<span class="ts-piece{" ts-unk" if p in unk else ""}">{esc(p)}</span>' for p in ps
            )
            cells.append(f'<td class="ts-pieces" data-tokenizer="{esc(view.tokenizers[k])}">{chips}</td>')
        for p, bad in zip(r.predicted, r.wrong):
            mark = "ts-wrong" if bad else "ts-right"
            cells.append(f'<td class="{mark}">{esc(p) if p is not None else "–"}</td>')
        parts.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)
