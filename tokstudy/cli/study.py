"""`tokstudy study CONFIG`: the whole study in one resumable command.

The top floor: the one ``tokstudy`` module that imports the pre-trainer (``pretrain``), to hand the
torch-free study (:func:`tokstudy.study.pipeline.run_study`) its trainer,
:class:`pretrain.study_backend.PretrainBackend`. It is imported when the command runs, never for
``--help``, and a missing torch is a one-line error naming the install command.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util

from tokstudy.cli.arguments import output_folder
from tokstudy.errors import MissingDependencyError, UsageError
from tokstudy.study.config import load_study_config
from tokstudy.study.pipeline import run_study
from tokstudy.study.report_sections import rerender_study_report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "study",
        help="run the whole study: tokenizers -> ALBERTs -> fine-tuning -> Tables 1-4 and the report",
        description=(
            "Train K tokenizers, pre-train one ALBERT per tokenizer with identical settings, fine-tune each on "
            "NER/slot-filling and classification over N seeds, then write Table 4 (NE vs non-NE additional "
            "segmentation), Table 3 examples, the correlation between segmentation and label errors, and "
            "Tables 1-2, as report.md/report.html under the results directory. A configuration with a "
            "`checkpoints` section starts from models pre-trained elsewhere instead (hub names or directories, "
            "each analysed with its own tokenizer): `tokstudy study malbert` is the paper's setting on the three "
            "published mALBERT checkpoints (32k/64k/128k; CoNLL-2003, MultiCoNER, SNIPS, MASSIVE; 10 seeds). "
            "Stages are cached: re-running skips finished work, and an interrupted run continues where it stopped."
        ),
    )
    p.add_argument(
        "config",
        nargs="?",
        default="demo",
        help="a shipped configuration (demo, cpu, gpu, malbert, ...: tokstudy/study/configs/) or a YAML file "
        "(default: demo)",
    )
    p.add_argument("--output", "-o", type=output_folder, help="results directory (default: results/<config name>)")
    p.add_argument("--data-dir", help="folder holding the corpora (default: $TOKSTUDY_DATA, then data/corpora)")
    p.add_argument(
        "--no-sample",
        action="store_true",
        help="fail instead of using the generated synthetic sample when a corpus is missing",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        help="training runs at once, each in its own process (default: the configuration's `jobs`, else 1)",
    )
    p.add_argument(
        "--cluster",
        metavar="local:N|tcp://HOST:PORT",
        help="run the training runs as tasks on Dask: local:N starts N worker processes here (one per GPU on a "
        "GPU node), tcp://HOST:PORT connects to a running scheduler whose workers offer --resources GPU=1 "
        "(default: the configuration's cluster.address, else the process pool of --jobs); needs tokstudy[dask]",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    p.add_argument(
        "--report-only",
        type=output_folder,
        metavar="FOLDER",
        help="write the report of a finished study folder again from its tables and config.json (the report "
        "stage only: no training, no torch), e.g. after the report's wording changed",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.report_only:
        paths = rerender_study_report(args.report_only, data_dir=args.data_dir)
        print(f"report: {paths['markdown']}\n        {paths['html']}")
        return 0

    overrides = {"output_dir": args.output, "data_dir": args.data_dir, "jobs": args.jobs}
    if args.no_sample:
        overrides["allow_sample"] = False
    config = load_study_config(args.config, **overrides)
    if args.cluster:
        try:
            config = dataclasses.replace(config, cluster=dataclasses.replace(config.cluster, address=args.cluster))
        except ValueError as exc:
            raise UsageError(f"--cluster: {exc}") from None
    # a study on checkpoints pre-trains nothing: DeepSpeed is not needed
    result = run_study(config, backend=_pretrain_backend(pretrains=not config.checkpoints), progress=not args.quiet)
    print(f"report: {result.report_markdown}\n        {result.report_html}")
    print(f"stages run: {len(result.executed)}, reused: {len(result.skipped)}")
    return 0


def _pretrain_backend(*, pretrains: bool = True):
    """The pre-trainer as the study's trainer, or an error naming the install when torch and co. are missing
    (DeepSpeed too, where the study ``pretrains``)."""
    try:
        from pretrain.study_backend import PretrainBackend  # deferred: torch, only when the study trains
    except ModuleNotFoundError as exc:
        raise MissingDependencyError(
            f"the study pre-trains and fine-tunes models, which needs the pre-trainer's dependencies "
            f"({exc.name} is not installed): pip install -e '.[pretrain]'"
        ) from exc
    # DeepSpeed is imported only when training starts: say so now, not after the tokenizers
    if pretrains and not _installed("deepspeed"):
        raise MissingDependencyError(
            "the study pre-trains with DeepSpeed, which is not installed: after torch, "
            "DS_BUILD_OPS=0 pip install --no-build-isolation 'deepspeed==0.19.8' (`make setup` does both)"
        )
    return PretrainBackend()


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False
