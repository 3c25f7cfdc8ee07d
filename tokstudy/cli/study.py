"""`tokstudy study CONFIG`: the whole study in one resumable command."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "study",
        help="run the whole study: tokenizers -> ALBERTs -> fine-tuning -> Tables 1-4 and the report",
        description=(
            "Train K tokenizers, pre-train one ALBERT per tokenizer with identical settings, fine-tune each on "
            "NER/slot-filling and classification over N seeds, then write Table 4 (NE vs non-NE additional "
            "segmentation), Table 3 examples, the correlation between segmentation and label errors, and "
            "Tables 1-2, as report.md/report.html under the results directory. Stages are cached: re-running "
            "skips finished work, and an interrupted run continues where it stopped."
        ),
    )
    p.add_argument(
        "config",
        nargs="?",
        default="demo",
        help="a shipped configuration (demo, cpu, gpu) or a YAML file (default: demo)",
    )
    p.add_argument("--output", "-o", help="results directory (default: results/<config name>)")
    p.add_argument("--data-dir", help="folder holding the corpora (default: $TOKSTUDY_DATA, then data/corpora)")
    p.add_argument(
        "--no-sample",
        action="store_true",
        help="fail instead of using the generated synthetic sample when a corpus is missing",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tokstudy.study.config import load_study_config
    from tokstudy.study.pipeline import run_study

    overrides = {"output_dir": args.output, "data_dir": args.data_dir}
    if args.no_sample:
        overrides["allow_sample"] = False
    config = load_study_config(args.config, **overrides)
    result = run_study(config, progress=not args.quiet)
    print(f"report: {result.report_markdown}\n        {result.report_html}")
    print(f"stages run: {len(result.executed)}, reused: {len(result.skipped)}")
    return 0
