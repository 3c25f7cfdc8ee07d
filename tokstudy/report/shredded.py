"""The shredded-words section of a report: Markdown, CSV rows and JSON of a
:class:`~tokstudy.analysis.stats.shredded.ShreddedTable` (computed in :mod:`tokstudy.analysis.stats.shredded`).

A report adds it as one table: :func:`shredded_report` (``shredded.{md,csv,json}``).

>>> from tokstudy.analysis.stats.shredded import ShreddedTable, ShreddedWords, ShreddedWord
>>> r = ShreddedWords("spm", None, 3, 10, 16, 2, 8, 1, (ShreddedWord("Reykjavik", 2, 4, ("▁Re", "yk", "ja", "vik")),))
>>> print(summary_rows(ShreddedTable((r,), (), 3))[0]["token share %"])
50.0
"""

from __future__ import annotations

import os
from pathlib import Path

from tokstudy.analysis.stats.shredded import ShreddedComparison, ShreddedTable, ShreddedWords
from tokstudy.report.numbers import json_number
from tokstudy.report.result import Records, Table, write_records
from tokstudy.report.table3 import SEPARATOR
from tokstudy.report.tables import markdown_table

#: words shown per ranking in the Markdown (the CSV holds every word ranked)
SHOWN = 15


def _where(r: ShreddedWords | ShreddedComparison) -> str:
    return r.language if r.language is not None else "all"


def summary_rows(result: ShreddedTable) -> list[dict]:
    """One row per (language, tokenizer): how much of the text shredded words are."""
    return [
        {
            "language": _where(r),
            "tokenizer": r.tokenizer,
            "K": r.min_pieces,
            "words": r.n_words,
            "pieces": r.n_tokens,
            "distinct shredded words": r.n_distinct,
            "shredded words %": json_number(100 * r.word_share, 2),
            "token share %": json_number(100 * r.token_share, 2),
        }
        for r in result.rankings
    ]


#: the CSV's columns: one row per ranked word of each (language, tokenizer)
COLUMNS = ("language", "tokenizer", "rank", "word", "frequency", "n_pieces", "tokens", "token_share", "pieces")


def shredded_records(result: ShreddedTable) -> list[tuple]:
    """The CSV's rows as tuples in :data:`COLUMNS` order (a ranking may hold tens of thousands of words)."""
    return [
        (
            _where(r),
            r.tokenizer,
            i,
            w.word,
            w.frequency,
            w.n_pieces,
            w.frequency * w.n_pieces,
            w.frequency * w.n_pieces / r.n_tokens if r.n_tokens else None,
            SEPARATOR.join(w.pieces),
        )
        for r in result.rankings
        for i, w in enumerate(r.words, 1)
    ]


def shredded_rows(result: ShreddedTable) -> list[dict]:
    """The CSV's rows as dicts (:data:`COLUMNS`), for the JSON."""
    return [dict(zip(COLUMNS, rec)) for rec in shredded_records(result)]


def write_shredded_csv(result: ShreddedTable, path: str | os.PathLike) -> Path:
    """Every ranked word as CSV (:data:`COLUMNS`), written from tuples (:class:`~tokstudy.report.result.Records`:
    the CSV is the largest output, 46,271 rows on CoNLL-2003 with three tokenizers)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_records(Records(COLUMNS, shredded_records(result)), path)


def comparison_rows(comparison: ShreddedComparison) -> list[dict]:
    """Words side by side: pieces under each tokenizer, and which keep it whole and which shred it."""
    out = []
    for w in comparison.words:
        row = {"word": w.word, "frequency": w.frequency}
        row.update({t: n for t, n in zip(comparison.tokenizers, w.n_pieces)})
        whole = comparison.kept_whole_by(w)
        row["kept whole by"] = ", ".join(whole) if whole else "–"
        out.append(row)
    return out


def shredded_json(result: ShreddedTable) -> dict:
    """The JSON: the summary, every ranking and every comparison (the shares beside their counts)."""
    return {
        "min_pieces": result.min_pieces,
        "summary": summary_rows(result),
        "rankings": shredded_rows(result),
        "comparisons": [
            {"language": _where(c), "tokenizers": list(c.tokenizers), "words": comparison_rows(c)}
            for c in result.comparisons
        ],
    }


def shredded_markdown(result: ShreddedTable, *, shown: int = SHOWN) -> str:
    """The section: the summary table, each ranking's first ``shown`` words, and the side-by-side view."""
    k = result.min_pieces
    parts = [
        f"A word is *shredded* when a tokenizer splits it into {k} pieces or more. Ranked by frequency in the "
        "running text; the token share is the shredded words' pieces over all pieces of the text.",
        markdown_table(summary_rows(result)),
    ]
    for r in result.rankings:
        rows = [
            {"word": w.word, "frequency": w.frequency, "pieces": w.n_pieces, "split": SEPARATOR.join(w.pieces)}
            for w in r.words[:shown]
        ]
        head = f"**{r.tokenizer}** ({_where(r)}): {r.n_distinct} distinct shredded words"
        parts.append(head + "\n\n" + markdown_table(rows))
    several = any(len(c.tokenizers) > 1 for c in result.comparisons)
    for c in result.comparisons if several else ():
        parts.append(
            f"**Side by side** ({_where(c)}): pieces under each tokenizer\n\n"
            + markdown_table(comparison_rows(c)[:shown])
        )
    policies = dict.fromkeys(f"{r.tokenizer}: {r.boundary_policy}" for r in result.rankings if r.boundary_policy)
    if policies:
        parts.append("Boundary policy: " + "; ".join(policies) + ".")
    return "\n\n".join(parts)


def shredded_report(result: ShreddedTable) -> Table:
    """The section's table: the Markdown, every ranked word as CSV (from tuples) and the JSON."""
    return Table(
        "shredded", shredded_markdown(result), Records(COLUMNS, shredded_records(result)), shredded_json(result)
    )
