"""``tokstudy train-tokenizer``: train SentencePiece / Hugging Face tokenizers on raw text."""

from __future__ import annotations

import argparse
from pathlib import Path

from tokstudy.cli.arguments import output_folder
from tokstudy.datalocation import corpus_dir
from tokstudy.errors import DataNotFoundError, UsageError
from tokstudy.tokenization.training import TokenizerTrainingConfig, train_tokenizers

ALGORITHMS = ("sp-unigram", "sp-bpe", "hf-unigram", "hf-bpe", "hf-wordpiece")  # mirrors training.ALGORITHMS


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows ``(default: X)`` only where there is a value to show (the help says what ``None`` means)."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def register(sub) -> None:
    p = sub.add_parser(
        "train-tokenizer",
        help="train tokenizers (several vocabulary sizes) on a random sample of raw text",
        description=(
            "Draw a seeded random sample of sentences from raw-text files (one sentence per line, plain or .gz) "
            "and train one tokenizer per vocabulary size on that same sample. Each tokenizer is written to "
            "OUTPUT/<algorithm>-<size>/ and loads with transformers.AutoTokenizer.from_pretrained(dir) and with "
            "tokstudy's load_tokenizer(dir). By default the vocabularies have ALBERT's special symbols "
            "(<pad>=0, <unk>=1, [CLS]=2, [SEP]=3, [MASK]=4), as in the mALBERT study. "
            "Example: tokstudy train-tokenizer --input raw_text --vocab-size 8000 16000 --sample-size 200000 "
            "--output runs/tok"
        ),
        formatter_class=_DefaultsFormatter,
    )
    _add_data_arguments(p)
    _add_training_arguments(p)
    p.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="where corpus names are looked up (default: $TOKSTUDY_DATA, then data/corpora)",
    )
    p.add_argument("--verbose", action="store_true", help="show the trainers' own logs")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def _add_data_arguments(p) -> None:
    """What is read, the vocabulary sizes, and where the tokenizers go."""
    p.add_argument(
        "--input",
        "-i",
        nargs="+",
        required=True,
        metavar="PATH",
        help="raw-text files or directories, or corpus names under the data location (e.g. raw_text)",
    )
    p.add_argument(
        "--vocab-size",
        "-v",
        nargs="+",
        type=int,
        required=True,
        metavar="N",
        help="one or more vocabulary sizes, special symbols included (e.g. 32000 64000 128000)",
    )
    p.add_argument(
        "--output",
        "-o",
        required=True,
        type=output_folder,
        metavar="DIR",
        help="folder that receives one sub-folder per tokenizer (created if absent; nothing is written "
        "unless every vocabulary size succeeds)",
    )


def _add_training_arguments(p) -> None:
    """The algorithm, the sample and the trainer's settings."""
    p.add_argument(
        "--algorithm",
        "-a",
        choices=ALGORITHMS,
        default="sp-unigram",
        help="sp-* = SentencePiece, hf-* = Hugging Face tokenizers",
    )
    p.add_argument(
        "--sample-size",
        type=int,
        default=1_000_000,
        metavar="N",
        help="sentences drawn at random from all inputs (0 = use every sentence)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random sample")
    p.add_argument(
        "--character-coverage",
        type=float,
        default=0.9995,
        help="share of characters the vocabulary covers (SentencePiece; rarer ones become <unk>)",
    )
    p.add_argument(
        "--max-sentence-length", type=int, default=4192, metavar="BYTES", help="SentencePiece skips longer sentences"
    )
    p.add_argument("--lowercase", action="store_true", help="lower-case the text before training and tokenizing")
    p.add_argument(
        "--no-albert-specials",
        dest="albert_specials",
        action="store_false",
        help="use the library's default special symbols instead of ALBERT's",
    )
    p.add_argument("--threads", type=int, default=None, help="trainer threads (default: all cores)")


def resolve_inputs(inputs: list[str], data_dir: str | None) -> list[Path]:
    """Existing paths as given; a bare name (no folder, no extension) is a corpus under the data location.

    Something that looks like a path (``a/b``, ``x.txt``, ``./x``) and does not exist is
    reported as a missing file, not looked up as a corpus name.
    """
    out = []
    for x in inputs:
        path = Path(x).expanduser()
        if path.exists():
            out.append(path)
        elif _looks_like_path(x):
            raise DataNotFoundError(f"{x}: no such raw-text file or directory (--input)")
        else:
            try:
                out.append(corpus_dir(x, data_dir))
            except DataNotFoundError as exc:
                raise DataNotFoundError(f"--input {x}: no such file or directory here, and {exc}") from exc
    return out


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith((".", "~")) or Path(text).suffix != ""


def run(args) -> int:

    try:
        config = TokenizerTrainingConfig(
            inputs=tuple(resolve_inputs(args.input, args.data_dir)),
            output_dir=args.output,
            algorithm=args.algorithm,
            vocab_sizes=tuple(args.vocab_size),
            sample_size=args.sample_size,
            seed=args.seed,
            character_coverage=args.character_coverage,
            max_sentence_length=args.max_sentence_length,
            albert_specials=args.albert_specials,
            lowercase=args.lowercase,
            num_threads=args.threads,
            verbose=args.verbose,
        )
    except ValueError as exc:  # a value argparse accepted but the config refuses: a bad argument (exit 2)
        raise UsageError(str(exc)) from exc
    for res in train_tokenizers(config, progress=not args.quiet):
        print(f"{res.path}\t{res.algorithm}\t{res.vocab_size} pieces\t{res.n_sentences} sentences\t{res.seconds:.1f} s")
    return 0
