"""``tokstudy morph``: MorphScore and boundary precision / recall / F1 of tokenizers on gold morpheme segmentations."""

from __future__ import annotations

from collections import Counter

from tokstudy.analysis.morph import morph_table
from tokstudy.analysis.morph.scores import band_labels
from tokstudy.cli.arguments import (
    add_input_arguments,
    add_output_arguments,
    inputs_from_args,
    print_written,
    staged_outputs,
    tokenizers_from_args,
)
from tokstudy.data.segmentations import read_segmentations, split_language
from tokstudy.errors import UsageError
from tokstudy.report import tables as rt
from tokstudy.report.morph import morph_markdown, morph_rows


def register(sub) -> None:
    p = sub.add_parser(
        "morph",
        help="do the tokenizers cut words at morpheme boundaries? MorphScore, boundary precision / recall / F1",
        description=(
            "Read gold morpheme segmentations (SIGMORPHON 2022 word-level files: word<TAB>morph @@morph "
            "...<TAB>category; MorphScore CSVs: full_word,pt1,rest) and print, per tokenizer and gold file "
            "(language): MorphScore as Arnett & Bergen define it (the share of words whose boundary of interest "
            "is a piece boundary, words left whole excluded and counted), and boundary precision, recall and F1 "
            "over all gold boundaries; with --dataset, the same by the words' frequency band in that corpus. "
            "Words are segmented as the tokenizer sees them in running text. "
            "Example: tokstudy morph -t sp32k=runs/tok/sp-32000 --gold english_morph_data.csv "
            "--gold eng.word.dev.tsv --skip-unspelled -d conll2003:train"
        ),
    )
    p.add_argument(
        "--gold",
        "-g",
        action="append",
        default=[],
        required=True,
        metavar="FILE[@LANG]",
        help="gold segmentation file (repeat for several); @LANG sets its language (default: from the name, "
        "english_morph_data.csv -> english, eng.word.dev.tsv -> eng)",
    )
    p.add_argument(
        "--gold-format",
        default="auto",
        choices=("auto", "sigmorphon", "morphscore"),
        help="auto (the default): .csv is MorphScore, anything else SIGMORPHON",
    )
    p.add_argument(
        "--skip-unspelled",
        action="store_true",
        help="skip (and count, by kind) the lines whose morphs do not spell the word (canonical segmentations such "
        "as SIGMORPHON's English 'in @@accurate @@cy @@s') or spell it in several ways, and MorphScore rows whose "
        "pt1 or rest is empty (no boundary inside the word), instead of refusing the file",
    )
    p.add_argument(
        "--bands",
        default="1,10,100,1000",
        metavar="EDGES",
        help="lower edges of the frequency bands after 0 (unseen), comma-separated (default 1,10,100,1000)",
    )
    add_input_arguments(p)
    add_output_arguments(p, csv="also write every figure as CSV", json="also write every result as JSON")
    p.set_defaults(func=run)


def run(args) -> int:

    if not args.tokenizer:
        raise UsageError("no tokenizer given; name one with --tokenizer/-t")
    edges = _edges(args.bands)
    golds = [_read_gold(spec, args) for spec in args.gold]
    segs = tokenizers_from_args(args)
    counts = None
    if args.dataset:
        counts = Counter(w for ds in _datasets(args) for s in ds.sentences for w in s.words)
    results = morph_table(golds, segs, corpus_counts=counts, band_edges=edges)
    for g in golds:
        print(f"{g.source}: {len(g)} words ({g.format}, language {g.language})")
        if g.skipped:
            print(f"  {g.skipped_note()}")
    print("\n" + morph_markdown(results))
    with staged_outputs() as out:
        if args.csv:
            rt.write_csv(morph_rows(results), out.file(args.csv))
        if args.json:
            rt.write_json(list(results), out.file(args.json))
    print_written(out, first="\n")
    return 0


def _read_gold(spec: str, args):

    path, lang = split_language(spec)
    return read_segmentations(
        path, format=args.gold_format, language=lang or None, skip_unspelled=args.skip_unspelled, encoding=args.encoding
    )


def _datasets(args):
    return inputs_from_args(args, tokenizers=False).datasets


def _edges(text: str) -> tuple[int, ...]:
    try:
        edges = tuple(int(t) for t in text.split(","))
        band_labels(edges)
    except ValueError:
        expected = "expected increasing integers from 1, comma-separated (e.g. 1,10,100)"
        raise UsageError(f"--bands {text}: {expected}") from None
    return edges
