"""``tokstudy stats``: Table 4 (additional segmentation of NE vs non-NE words) and the other figures."""

from __future__ import annotations

import warnings

from tokstudy.analysis.stats import table_statistics
from tokstudy.analysis.stats.per_language import language_coverage, language_table
from tokstudy.analysis.table.bytepieces import BytePiecesWarning
from tokstudy.analysis.table.coverage import ByteFallbackWarning, UnknownPiecesWarning
from tokstudy.cli.arguments import (
    add_bootstrap_arguments,
    add_input_arguments,
    add_shredded_arguments,
    bootstrap_settings,
    output_file,
    output_stem,
    print_written,
    shredded_from_args,
    staged_outputs,
    table_from_args,
)
from tokstudy.data.repairs import RepairLog
from tokstudy.report import build
from tokstudy.report import tables as rt
from tokstudy.report.per_language import language_rows, languages_markdown, plot_languages
from tokstudy.report.shredded import shredded_markdown, write_shredded_csv

GROUPINGS = ("entity_type", "position", "language", "dataset")


def register(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="additional segmentation of NE vs non-NE words (Table 4), fertility, continued words, ...",
        description=(
            "Print, for each tokenizer, the additional segmentation % (pieces / words - 1) of words inside "
            "named entities, outside them and overall (the mALBERT paper's Table 4), with bootstrap confidence "
            "intervals over sentences; then fertility, % of continued words (2+ pieces), % of unknown pieces and "
            "pieces per continued word; the breakdown by entity type, B/I position, language and dataset; and the "
            "intrinsic metrics per tokenizer and group (NE / non-NE / all, language): chars_per_piece, "
            "bytes_per_piece, shannon_entropy, renyi_efficiency (order --renyi-alpha) and vocab_utilization. "
            "With several datasets, also Table 4 per language: one row per (dataset, language) and tokenizer "
            "with NE and non-NE additional segmentation, their gap, fertility and unknown pieces, with intervals, "
            "largest gap first, and one unknown-piece warning per tokenizer naming the languages concerned. "
            "Example: tokstudy stats -d conll2003:test -t runs/tok/sp-32000 -t runs/tok/sp-64000 --json stats.json; "
            "tokstudy stats -d 'masakhaner2:*:test' -d 'multiconer2022:*:dev' -t tok/sp-unigram-8000 "
            "--languages-figure languages"
        ),
    )
    add_input_arguments(p)
    add_bootstrap_arguments(p)
    p.add_argument(
        "--by",
        action="append",
        choices=GROUPINGS,
        default=None,
        help=(
            "breakdowns to print (repeat; default: entity_type and position, "
            "plus language/dataset when there are several)"
        ),
    )
    p.add_argument(
        "--renyi-alpha",
        type=float,
        default=2.5,
        metavar="ALPHA",
        help="order of the Rényi entropy behind renyi_efficiency (default 2.5, as Zouhar et al. 2023)",
    )
    p.add_argument("--json", default=None, type=output_file, metavar="FILE", help="also write every figure as JSON")
    p.add_argument("--csv", default=None, type=output_file, metavar="FILE", help="also write Table 4 as CSV")
    p.add_argument(
        "--languages-csv",
        default=None,
        type=output_file,
        metavar="FILE",
        help="with several datasets: also write Table 4 per language (one row per tokenizer and dataset) as CSV",
    )
    p.add_argument(
        "--languages-figure",
        default=None,
        type=output_stem,
        metavar="STEM",
        help="with several datasets: also draw each language's NE − non-NE gap, sorted, coloured by script, "
        "as STEM.png and STEM.svg",
    )
    add_shredded_arguments(p)
    p.set_defaults(func=run)


def compute(table, args):
    """All the stats of one table, bootstrapped in one pass (the figures ``run`` prints and writes)."""
    return table_statistics(
        table, groupings=args.by, renyi_alpha=getattr(args, "renyi_alpha", 2.5), bootstrap=bootstrap_settings(args)
    )


def run(args) -> int:

    table, repairs = table_with_language_warnings(args)
    res = compute(table, args)
    per_language = languages(table, args) if len(table.datasets) > 1 else None
    print(
        f"{len(table)} words, {table.n_sentences} sentences, {table.n_entities} entities "
        f"in {', '.join(table.datasets)}\n"
    )
    print(rt.table4_markdown(res.table4))
    print("\n" + rt.summary_markdown(res.summary))
    if per_language is not None:
        print("\nTable 4 per language\n")
        print(languages_markdown(per_language))
    for b, grouped in res.by.items():
        print(f"\nAdditional segmentation % by {b}\n")
        print(rt.grouped_markdown(grouped))
    print("\nIntrinsic metrics (compression, unigram entropy of the pieces, vocabulary use)\n")
    print(rt.intrinsic_markdown(res.intrinsic))
    shredded = None
    if args.shredded or args.shredded_csv:
        shredded = shredded_from_args(table, args)
        print(f"\nShredded words ({shredded.min_pieces} pieces or more), most frequent first\n")
        print(shredded_markdown(shredded))
    with staged_outputs() as out:
        write_outputs(args, out, table, res, per_language, repairs, shredded)
    print_written(out, first="\n")
    return 0


def languages(table, args):
    """Table 4 per (dataset, language) and tokenizer (:func:`tokstudy.analysis.stats.per_language.language_table`)."""
    return language_table(table, bootstrap=bootstrap_settings(args))


def table_with_language_warnings(args):
    """``(table, repairs)`` of the command line (:func:`~tokstudy.cli.arguments.table_from_args`). With several
    datasets, the unknown-piece warnings of each dataset and tokenizer become one per tokenizer naming every
    language concerned (:func:`tokstudy.analysis.stats.per_language.language_coverage`); other warnings pass as
    they are."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table, repairs = table_from_args(args)
    several = len(table.datasets) > 1
    for w in caught:
        if not (several and issubclass(w.category, UnknownPiecesWarning)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if several:
        for c in language_coverage(table):
            kind = {"unknown": UnknownPiecesWarning, "byte pieces": BytePiecesWarning}
            warnings.warn(c.message(), kind.get(c.kind, ByteFallbackWarning))
    return table, repairs


def write_outputs(args, out, table, res, per_language, repairs: dict[str, RepairLog], shredded=None) -> None:
    """``--json``, ``--csv``, ``--shredded-csv``, ``--languages-csv``, ``--languages-figure``, each staged in
    ``out`` (:func:`~tokstudy.cli.arguments.staged_outputs`). With ``--shredded`` (``shredded``: the rankings),
    the JSON holds them under ``"shredded"`` as the report's ``shredded.json`` does (every word ranked): the JSON
    is the report's tables' (:func:`tokstudy.report.build.stats_json`)."""
    if args.json:
        rt.write_json(build.stats_json(table.datasets, res, per_language, repairs, shredded), out.file(args.json))
    if args.csv:
        rt.write_csv(rt.table4_rows(res.table4), out.file(args.csv))
    if args.shredded_csv:
        write_shredded_csv(shredded, out.file(args.shredded_csv))
    wanted = [o for o in ("languages_csv", "languages_figure") if getattr(args, o)]
    if wanted and per_language is None:
        print(f"no per-language table ({', '.join('--' + o.replace('_', '-') for o in wanted)}): one dataset only")
        return
    if args.languages_csv:
        rt.write_csv(language_rows(per_language), out.file(args.languages_csv))
    if args.languages_figure:
        plot_languages(per_language, out.stem(args.languages_figure))
