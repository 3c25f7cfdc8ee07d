"""The segmentation explorer's data: one row per word, every tokenizer's pieces side by side (Table 3, live).

:func:`build_view` segments a sentence with each tokenizer (one batch call each, via
the :class:`~tokstudy.tokenization.base.Segmenter` API) and lines up the gold tags and
each model's predicted tags; :func:`render_html` turns the view into escaped HTML: per
tokenizer a strip of the sentence as coloured chips (a stable colour per piece, word
boundaries drawn, gold entities underlined, a model's errors outlined), then the word
table. Byte pieces are shown as hex (``<0xE2>``, ``⟨E2 80⟩``), never as replacement
characters. Its Table-3 rows are :func:`tokstudy.report.table3.example_rows` (one
implementation, shared with the report). Both are plain Python, so the benchmark times
exactly what the page runs.

>>> from tokstudy.tokenization.base import Segmentation, Segmenter
>>> class Chars(Segmenter):
...     name, kind, vocab_size = "chars", "demo", 0
...     def segment(self, words):
...         return Segmentation.from_lists([list(w) for w in words])
>>> v = build_view(["EU", "a"], ["B-ORG", "O"], [Chars()], {"m1": ["B-ORG", "B-PER"]})
>>> v.rows[0].pieces, v.rows[0].entity_type, v.rows[1].wrong
((('E', 'U'),), 'ORG', (True,))
>>> v.to_records()[0]["chars"]
'E · U'
"""

from __future__ import annotations

import html
import json
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: the visible separator between pieces in text exports: the report's own (Table 3).
from tokstudy.report.table3 import SEPARATOR, ExampleSentence, ExampleWord, example_rows

__all__ = ["SEPARATOR", "ExplorerView", "WordRow", "build_view", "piece_colour", "readable_piece", "render_html"]

#: colours of the usual entity types; other types get one from :data:`_EXTRA_COLOURS`.
ENTITY_COLOURS = {"PER": "#ffd6d6", "LOC": "#d6ecff", "ORG": "#dff5d8", "MISC": "#f3e2ff"}
_EXTRA_COLOURS = ("#fff1c7", "#d9f4f1", "#ffe0f0", "#e8e8ff", "#f0f0d0", "#e0f7ff")
#: darker shades of the same hues, for the entity underline in the sentence strips.
ENTITY_LINES = {"PER": "#d9534f", "LOC": "#3a7bd5", "ORG": "#3c9a3c", "MISC": "#9b59b6"}


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

    def to_examples(self, *, dataset: str = "typed text", sent_id: int = 0):
        """The view as a :class:`tokstudy.report.table3.ExampleSentence` (what the report's Table 3 holds)."""
        words = tuple(
            ExampleWord(
                r.word,
                r.gold or "",
                {t: list(p) for t, p in zip(self.tokenizers, r.pieces)},
                {m: (p or "") for m, p in zip(self.models, r.predicted)},
            )
            for r in self.rows
        )
        return ExampleSentence(dataset, sent_id, sent_id, words)

    def to_records(self, *, dataset: str = "typed text", sent_id: int = 0) -> list[dict]:
        """Table-3 records, exactly as the report writes them (:func:`tokstudy.report.table3.example_rows`)."""
        return example_rows([self.to_examples(dataset=dataset, sent_id=sent_id)])


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


def piece_colour(piece: str) -> str:
    """A light colour that is the same for a piece wherever it appears (hue from a CRC of the piece,
    which within one vocabulary is the piece id's colour), so repeated pieces are seen at a glance."""
    return f"hsl({zlib.crc32(piece.encode('utf-8')) % 360},70%,88%)"


def _gpt2_byte_decoder() -> dict[str, int]:
    """The inverse of GPT-2's byte -> printable character map (byte-level BPE piece alphabet)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, n = {}, 0
    for b in range(256):
        if b in keep:
            chars[chr(b)] = b
        else:
            chars[chr(256 + n)] = b
            n += 1
    return chars


_BYTE_DECODER = _gpt2_byte_decoder()
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def readable_piece(piece: str, *, byte_level: bool = False) -> tuple[str, bool]:
    """``(text shown, is_bytes)`` for a piece.

    SentencePiece byte-fallback pieces stay as their hex (``<0xE2>``); a byte-level BPE
    piece (GPT-2 alphabet) is shown as the text its bytes spell when they are whole UTF-8
    characters (the leading-space marker ``Ġ`` kept), else as hex bytes ``⟨E2 80⟩``; a
    replacement character is never produced.

    >>> readable_piece("<0xE2>"), readable_piece("Ã©", byte_level=True), readable_piece("âĢ", byte_level=True)
    (('<0xE2>', True), ('é', False), ('⟨E2 80⟩', True))
    """
    if _BYTE_PIECE.fullmatch(piece):
        return piece, True
    if not byte_level or any(c not in _BYTE_DECODER for c in piece):
        return piece, False
    lead = "Ġ" if piece.startswith("Ġ") else ""
    raw = bytes(_BYTE_DECODER[c] for c in piece[len(lead) :])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return lead + "⟨" + " ".join(f"{b:02X}" for b in raw) + "⟩", True
    return lead + text, False


def is_byte_level(segmenter) -> bool:
    """Whether a segmenter's pieces are in the byte-level (GPT-2) alphabet: a Hugging Face tokenizer
    whose pre-tokenizer or decoder is ``ByteLevel``."""
    tok = getattr(segmenter, "tokenizer", None)
    if tok is None or not hasattr(tok, "to_str"):
        return False

    spec = json.loads(tok.to_str())
    return any("ByteLevel" in json.dumps(spec.get(k)) for k in ("pre_tokenizer", "decoder"))


_CSS = """<style>
.ts-explorer{border-collapse:collapse;font-size:0.9rem;width:100%}
.ts-explorer th,.ts-explorer td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
.ts-explorer th{background:#f6f6f6;position:sticky;top:0}
.ts-piece{display:inline-block;border:1px solid #bbb;border-radius:4px;padding:0 4px;margin:1px 1px 1px 0;font-family:monospace;white-space:pre}
.ts-piece.ts-unk{border-color:#c00;color:#c00;background:#fff !important;font-weight:bold}
.ts-piece.ts-bytes{border-style:dashed;color:#444}
.ts-differs td.ts-word{font-weight:bold;border-left:4px solid #e8a400}
.ts-wrong{color:#b00000;font-weight:bold}
.ts-right{color:#1a7f37}
.ts-legend{margin:4px 0 8px 0;font-size:0.85rem}
.ts-legend span{display:inline-block;padding:0 6px;margin-right:6px;border-radius:4px}
.ts-strip{margin:4px 0 10px 0;line-height:2.0}
.ts-strip .ts-name{display:inline-block;min-width:9em;font-weight:bold;font-size:0.85rem;color:#333}
.ts-w{display:inline-block;margin-right:10px;padding:0 2px 1px 3px;border-left:2px solid #888;border-bottom:3px solid transparent}
.ts-w.ts-err{outline:2px dashed #c00;outline-offset:1px}
</style>"""  # noqa: E501 (CSS rules, one per line)


def _chips(pieces, unk: set, byte_level: bool) -> str:
    out = []
    for p in pieces:
        text, is_bytes = readable_piece(p, byte_level=byte_level)
        if p in unk:
            cls, style = " ts-unk", ""
        else:
            cls, style = (" ts-bytes" if is_bytes else ""), f' style="background:{piece_colour(p)}"'
        out.append(f'<span class="ts-piece{cls}"{style} title="{html.escape(p)}">{html.escape(text)}</span>')
    return "".join(out)


def render_html(
    view: ExplorerView, *, unk_pieces: Sequence[str] = ("<unk>", "[UNK]"), byte_level: Sequence[bool] = ()
) -> str:
    """The sentence strips and the word table, self-contained; every word and piece is escaped.

    ``byte_level``: per tokenizer, whether its pieces are byte-level BPE (see :func:`is_byte_level`).
    """
    esc = html.escape
    types = sorted({r.entity_type for r in view.rows if r.entity_type})
    byte_level = tuple(byte_level) or (False,) * len(view.tokenizers)
    unk = set(unk_pieces)
    parts = [_CSS]
    legend = "".join(
        f'<span style="background:{entity_colour(t)};border-bottom:3px solid '
        f'{ENTITY_LINES.get(t, "#b8860b")}">{esc(t)}</span>'
        for t in types
    )
    parts.append(
        '<div class="ts-legend">'
        + (f"gold entity types: {legend} (underlined in the strips) &nbsp; " if types else "")
        + "one chip per piece, the same colour for the same piece; a bar starts each word"
        + ("; dashed red box = a model mislabelled the word" if view.models else "")
        + "; bold word with orange bar = split differently by the tokenizers</div>"
    )
    for k, name in enumerate(view.tokenizers):
        words = []
        for r in view.rows:
            cls = "ts-w" + (" ts-err" if any(r.wrong) else "")
            line = ENTITY_LINES.get(r.entity_type or "", "#b8860b")
            style = f' style="border-bottom-color:{line}"' if r.entity_type else ""
            title = esc(
                r.word
                + (f" · gold {r.gold}" if r.gold else "")
                + "".join(f" · {m}: {p}" for m, p in zip(view.models, r.predicted) if p)
            )
            words.append(f'<span class="{cls}"{style} title="{title}">{_chips(r.pieces[k], unk, byte_level[k])}</span>')
        parts.append(
            f'<div class="ts-strip" data-tokenizer="{esc(name)}"><span class="ts-name">{esc(name)}</span>'
            + "".join(words)
            + "</div>"
        )
    head = ["#", "word", "gold"] + [f"{esc(t)} ({view.n_pieces(t)} pieces)" for t in view.tokenizers]
    head += [f"pred: {esc(m)}" for m in view.models]
    parts.append(
        '<table class="ts-explorer"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
    )
    for r in view.rows:
        cls = ' class="ts-differs"' if r.differs else ""
        style = f' style="background:{entity_colour(r.entity_type)}"' if r.entity_type else ""
        cells = [
            f"<td>{r.index}</td>",
            f'<td class="ts-word"{style}>{esc(r.word)}</td>',
            f"<td>{esc(r.gold or '')}</td>",
        ]
        for k, ps in enumerate(r.pieces):
            cells.append(
                f'<td class="ts-pieces" data-tokenizer="{esc(view.tokenizers[k])}">'
                f"{_chips(ps, unk, byte_level[k])}</td>"
            )
        for p, bad in zip(r.predicted, r.wrong):
            mark = "ts-wrong" if bad else "ts-right"
            cells.append(f'<td class="{mark}">{esc(p) if p is not None else "–"}</td>')
        parts.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)
