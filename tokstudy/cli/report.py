"""``tokstudy report``: every table (Table 3, Table 4, breakdowns, correlations) and figure in one folder."""

from __future__ import annotations

from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.analysis.morph import morph_table
from tokstudy.cli.arguments import (
    add_bootstrap_arguments,
    add_input_arguments,
    add_parallel_text_arguments,
    add_predictions_arguments,
    add_sentence_argument,
    bootstrap_settings,
    check_sentence_specs,
    output_folder,
    parity_from_args,
    piece_agreements,
    resolve_sentences,
    staged_outputs,
    table_from_args,
    tokenizers_from_args,
)
from tokstudy.data.segmentations import read_segmentations, split_language
from tokstudy.datalocation import data_root, shown_spec
from tokstudy.inputs import load_datasets
from tokstudy.inputs.request import check_files
from tokstudy.report.writer import write_report


def register(sub) -> None:
    p = sub.add_parser(
        "report",
        help="write Table 3, Table 4, breakdowns, correlations and figures (Markdown, CSV, JSON, PNG, SVG)",
        description=(
            "Compute everything `stats`, `correlate`, `examples` and (with --parity) `parity` print, for several "
            "tokenizers and datasets at once, and write it into --out: index.md (start there), one "
            "Markdown/CSV/JSON file per table, and PNG/SVG figures. "
            "Example: tokstudy report -d conll2003:test -t sp32k=a/ -t sp64k=b/ -p preds32k.tsv --out report/"
        ),
    )
    add_input_arguments(p)
    p.add_argument(
        "--out",
        "-o",
        required=True,
        type=output_folder,
        metavar="DIR",
        help="output folder (made if absent; its files are put in place once all are written, none if it fails)",
    )
    add_predictions_arguments(
        p, help="predictions file of a model (repeat): adds correlations, the error figure, predicted labels"
    )
    p.add_argument(
        "--train-dataset",
        action="append",
        default=[],
        metavar="SPEC",
        help="fine-tuning training split for the attribution's word frequencies (see `tokstudy attribute`)",
    )
    add_sentence_argument(p, help="sentences for Table 3 (default: picked automatically)")
    p.add_argument(
        "--examples",
        type=int,
        default=3,
        metavar="N",
        help="sentences to pick for Table 3 when --sentence is not given (default 3)",
    )
    p.add_argument("--parity", action="store_true", help="add parity on parallel text (xquad_parallel)")
    add_parallel_text_arguments(p, languages=False, help="parallel text folder for --parity")
    p.add_argument(
        "--gold",
        action="append",
        default=[],
        metavar="FILE[@LANG]",
        help="gold morpheme segmentations (SIGMORPHON 2022 .tsv or MorphScore .csv; repeat): adds MorphScore and "
        "boundary precision / recall / F1 (see `tokstudy morph`)",
    )
    p.add_argument(
        "--piece-predictions",
        action="append",
        default=[],
        metavar="FILE[=NAME]",
        help="per-piece predictions of a model (repeat; see `tokstudy pieces`): adds pieces that disagree and each "
        "aggregation's entity F1 and word-level r, each file checked against its dataset as --predictions files "
        "are; =NAME names the model",
    )
    p.add_argument("--no-figures", action="store_true", help="skip the PNG/SVG figures")
    add_bootstrap_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:

    check_sentence_specs(args.sentence)
    check_files(args.predictions, "--predictions")
    check_files([s.partition("=")[0] for s in args.piece_predictions], "--piece-predictions")
    table, repairs = table_from_args(args)
    preds = [align_predictions(table, read_predictions(p), dataset=args.predictions_dataset) for p in args.predictions]
    par = None
    if args.parity:
        args.languages, args.reference = None, "en"
        par = parity_from_args(args)
    train = None
    if args.train_dataset:
        train = load_datasets(
            args.train_dataset,
            data_dir=data_root(args.data_dir) if args.data_dir else None,
            format=args.format,
            language=args.language,
        )
    morph = None
    if args.gold:
        golds = [read_segmentations(path, language=lang) for path, lang in map(split_language, args.gold)]
        morph = morph_table(golds, tokenizers_from_args(args))
    boot = bootstrap_settings(args)
    pieces = piece_agreements(
        args.piece_predictions,
        bootstrap=boot,
        table=table,
        dataset=args.predictions_dataset,
    )
    with staged_outputs() as out:  # a failure while writing leaves the folder as it was
        files = write_report(
            table,
            out.folder(args.out),
            predictions=preds,
            parity_results=par,
            morph_results=morph,
            piece_results=pieces,
            train=train,
            # reports are shared: a file is named relative to the data location or here, never absolutely
            train_label=", ".join(shown_spec(s, args.data_dir) for s in args.train_dataset) or None,
            sentences=resolve_sentences(table, args.sentence) if args.sentence else None,
            n_examples=args.examples,
            figures=not args.no_figures,
            repairs=repairs,
            boot=boot,
        )
    print(f"wrote {len(out.written)} files; start with {out.final(files.index)}")
    return 0
