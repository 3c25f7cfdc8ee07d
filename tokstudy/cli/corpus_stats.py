"""``tokstudy corpus-stats``: fertility, continued words, compression and intrinsic metrics of raw
text, per language."""

from __future__ import annotations

from tokstudy.analysis.corpus.counts import CorpusStatsSettings
from tokstudy.analysis.corpus.engines import EngineSettings, corpus_stats
from tokstudy.cli.arguments import (
    TOKENIZER_HELP,
    add_deprecated_alias,
    add_output_arguments,
    add_tiktoken_pattern_argument,
    non_negative_int,
    print_written,
    staged_outputs,
)
from tokstudy.report import tables as rt


def register(sub) -> None:
    p = sub.add_parser(
        "corpus-stats",
        help=(
            "fertility, continued words, unknown pieces, compression, entropy of raw text per language (local or dask)"
        ),
        description=(
            "Segment raw text (files, folders, .gz, or a corpus name such as raw_text_large) with each tokenizer and "
            "print, per language and over all: fertility, % continued words, % unknown pieces, pieces per continued "
            "word, characters and bytes per piece (bootstrap intervals over lines, identical for any partitioning and "
            "engine), Shannon entropy, Rényi efficiency and vocabulary utilisation. The corpus is cut into "
            "partitions that workers read themselves: a local process pool (default) or a dask cluster. "
            "Example: tokstudy corpus-stats -t runs/tok/sp-32000 --corpus raw_text_large --engine dask "
            "--scheduler tcp://head:8786 --json corpus.json"
        ),
    )
    _add_input_arguments(p)
    _add_engine_arguments(p)
    _add_figure_arguments(p)
    add_output_arguments(
        p, json="also write every figure as JSON", csv="also write one row per tokenizer, language and figure"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _add_input_arguments(p) -> None:
    """The tokenizers and the corpus."""
    p.add_argument(
        "-t",
        "--tokenizer",
        action="append",
        required=True,
        metavar="[NAME=]PATH",
        help=TOKENIZER_HELP.replace("tokenizer to study", "tokenizer"),
    )
    add_tiktoken_pattern_argument(p)
    p.add_argument(
        "--corpus",
        required=True,
        metavar="PATH_OR_NAME",
        help="a text file (.txt or .gz, <lang>.txt.gz names the language), a folder of them, or a corpus name",
    )
    p.add_argument("--data-dir", default=None, help="where corpus names are looked up (default: $TOKSTUDY_DATA)")
    p.add_argument(
        "--language", action="append", default=None, metavar="CODE", help="only the files of this language (repeat)"
    )


def _add_engine_arguments(p) -> None:
    """Where the partitions are counted, and how the corpus is cut into them."""
    p.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local: a process pool on this machine (default); dask: a dask.distributed cluster",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="dask scheduler address (tcp://host:8786); without it --engine dask starts a LocalCluster",
    )
    p.add_argument(
        "--processes",
        type=int,
        default=None,
        help="local processes, or LocalCluster workers (default: the number of cores)",
    )
    p.add_argument(
        "--no-pin-workers",
        action="store_true",
        help="with --engine dask and no --scheduler: do not bind each LocalCluster worker to a core of its own",
    )
    p.add_argument(
        "--partitions", type=int, default=None, help="cut the corpus into this many partitions (.gz files stay whole)"
    )
    p.add_argument(
        "--partition-mb", type=float, default=64.0, help="otherwise, MiB per byte-range partition (default 64)"
    )


def _add_figure_arguments(p) -> None:
    """The bootstrap and what counts as a piece."""
    p.add_argument(
        "--resamples",
        dest="n_resamples",
        type=non_negative_int,
        default=200,
        metavar="N",
        help="bootstrap resamples (0: no intervals; default 200)",
    )
    add_deprecated_alias(p, "--n-resamples", "--resamples", dest="n_resamples", type=non_negative_int)
    p.add_argument("--confidence", type=float, default=0.95, help="interval coverage (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--buckets", type=int, default=1000, help="bootstrap resampling units lines are hashed into (default 1000)"
    )
    p.add_argument(
        "--drop-lone-boundary",
        dest="no_lone_boundary",
        action="store_true",
        help="do not count a lone word-boundary piece (default: count it, as the mALBERT paper does)",
    )
    add_deprecated_alias(p, "--no-lone-boundary", "--drop-lone-boundary", dest="no_lone_boundary", action="store_true")


def run(args) -> int:

    settings = CorpusStatsSettings(
        n_resamples=args.n_resamples,
        confidence=args.confidence,
        seed=args.seed,
        n_buckets=args.buckets,
        count_lone_boundary=not args.no_lone_boundary,
        tiktoken_pattern=args.tiktoken_pattern,
    )
    engine = EngineSettings(
        args.engine,
        processes=args.processes,
        scheduler=args.scheduler,
        partitions=args.partitions,
        partition_bytes=max(1, int(args.partition_mb * (1 << 20))),
        pin_workers=not args.no_pin_workers,
    )
    res = corpus_stats(
        args.corpus,
        args.tokenizer,
        settings,
        engine=engine,
        data_dir=args.data_dir,
        languages=args.language,
        progress=not args.no_progress,
    )
    print(
        f"{res.aggregate.partitions} partitions, engine {args.engine}, {settings.n_resamples} resamples "
        f"over {settings.n_buckets} line buckets (seed {settings.seed})\n"
    )
    print(rt.markdown_table(_table_rows(res)))
    with staged_outputs() as out:
        if args.json:
            figures = {"partitions": res.aggregate.partitions, "figures": res.figures}
            rt.write_json({"corpus": str(args.corpus), "settings": res.settings, **figures}, out.file(args.json))
        if args.csv:
            rt.write_csv(res.rows(), out.file(args.csv))
    print_written(out, first="\n")
    return 0


def _table_rows(res) -> list[dict]:
    rows = []
    for tok, langs in res.figures.items():
        for lang, f in langs.items():
            rows.append(
                {
                    "tokenizer": tok,
                    "language": lang,
                    "lines": f.n_lines,
                    "words": f.n_words,
                    "fertility": format(f.fertility, ".3f"),
                    "continued %": format(f.continued, ".1f"),
                    "unknown %": format(f.unknown, ".2f"),
                    "chars/piece": format(f.chars_per_piece, ".3f"),
                    "entropy (bits)": f"{f.shannon_entropy:.2f}",
                    "Rényi eff.": f"{f.renyi_efficiency:.3f}",
                    "vocab used": f"{f.vocab_utilization:.3f}",
                }
            )
    return rows
