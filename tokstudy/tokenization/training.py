"""Train tokenizers on a seeded random sample of raw text, several vocabulary sizes in one call.

The sample is drawn ONCE (reservoir sampling, memory proportional to the sample, not
the corpus) and shared by every vocabulary size, so 32k/64k/128k vocabularies see the
same sentences, as in the mALBERT study. Each result is a directory that
``transformers.AutoTokenizer.from_pretrained(dir)`` loads and that
:func:`~tokstudy.tokenization.loading.load_tokenizer` loads:

``<output_dir>/<algorithm>-<vocab_size>/``
    ``spiece.model``, ``spiece.vocab`` (SentencePiece algorithms only),
    ``vocab.txt`` (``hf-wordpiece`` only), ``tokenizer.json``, ``tokenizer_config.json``,
    ``special_tokens_map.json`` and ``training.json`` (what was trained, on what, with
    which library versions).

>>> cfg = TokenizerTrainingConfig(inputs=("raw_text/en.txt.gz",), output_dir="tok",
...                               vocab_sizes=(8000, 16000), sample_size=100_000)   # doctest: +SKIP
>>> [t.path.name for t in train_tokenizers(cfg)]                                      # doctest: +SKIP
['sp-unigram-8000', 'sp-unigram-16000']
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from tokstudy import __version__
from tokstudy.data.rawtext import iter_sentences
from tokstudy.errors import DataNotFoundError, TokenizerTrainingError
from tokstudy.fileio import replace_folder, staging_folder
from tokstudy.tokenization.hf_export import (
    ALBERT_SENTENCEPIECE_IDS,
    ALBERT_SPECIALS,
    add_albert_post_processor,
    spm_to_hf_tokenizer,
    write_hf_files,
)
from tokstudy.tokenization.sampling import sample_sentences

ALGORITHMS = ("sp-unigram", "sp-bpe", "hf-unigram", "hf-bpe", "hf-wordpiece")

#: special symbols without ``albert_specials``: sentencepiece's defaults, BERT's for WordPiece.
_PLAIN_SPM_SPECIALS = {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"}
_BERT_SPECIALS = {
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}


@dataclass
class TokenizerTrainingConfig:
    """What to train, on what.

    >>> TokenizerTrainingConfig(inputs=("a.txt",), output_dir="out", vocab_sizes=(0,))
    Traceback (most recent call last):
    ...
    ValueError: vocab_sizes must be positive integers, got (0,)
    """

    #: raw-text files or directories of them (one sentence per line, plain or .gz).
    inputs: tuple[str | os.PathLike, ...]
    #: each tokenizer goes to ``<output_dir>/<algorithm>-<vocab_size>/``.
    output_dir: str | os.PathLike
    #: one of :data:`ALGORITHMS`; ``sp-unigram`` is what the mALBERT study used.
    algorithm: str = "sp-unigram"
    #: vocabulary sizes, all trained on the same sample (e.g. ``(32000, 64000, 128000)``).
    vocab_sizes: tuple[int, ...] = (32000,)
    #: number of sentences drawn uniformly at random from all inputs; ``0``/``None`` = all of them.
    sample_size: int | None = 1_000_000
    #: seed of the sample draw (and of the trainers where they take one).
    seed: int = 0
    #: share of characters the vocabulary must cover (SentencePiece only; rarer ones become ``<unk>``).
    character_coverage: float = 0.9995
    #: SentencePiece skips sentences longer than this many bytes.
    max_sentence_length: int = 4192
    #: ALBERT's symbols: ``<pad>``=0, ``<unk>``=1, control symbols ``[CLS]``=2, ``[SEP]``=3, ``[MASK]``=4, no bos/eos.
    albert_specials: bool = True
    #: lower-case the text (SentencePiece ``nmt_nfkc_cf`` rule; a ``Lowercase`` normaliser for HF).
    lowercase: bool = False
    #: trainer threads; ``None`` = all cores.
    num_threads: int | None = None
    #: show the trainers' own logs (SentencePiece logs only errors otherwise).
    verbose: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.inputs, (str, os.PathLike)):
            self.inputs = (self.inputs,)
        self.inputs = tuple(self.inputs)
        if not self.inputs:
            raise ValueError("inputs must name at least one raw-text file or directory")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        if isinstance(self.vocab_sizes, int):
            self.vocab_sizes = (self.vocab_sizes,)
        self.vocab_sizes = tuple(self.vocab_sizes)
        if not self.vocab_sizes or any(not isinstance(v, int) or v <= 0 for v in self.vocab_sizes):
            raise ValueError(f"vocab_sizes must be positive integers, got {self.vocab_sizes}")
        if len(set(self.vocab_sizes)) != len(self.vocab_sizes):
            raise ValueError(f"vocab_sizes has duplicates: {self.vocab_sizes}")
        if self.sample_size is not None and self.sample_size < 0:
            raise ValueError(f"sample_size must be >= 0 (0 or None = all sentences), got {self.sample_size}")
        if not 0.0 < self.character_coverage <= 1.0:
            raise ValueError(f"character_coverage must be in (0, 1], got {self.character_coverage}")
        if self.max_sentence_length <= 0:
            raise ValueError(f"max_sentence_length must be positive, got {self.max_sentence_length}")
        if self.num_threads is not None and self.num_threads <= 0:
            raise ValueError(f"num_threads must be positive, got {self.num_threads}")

    @property
    def threads(self) -> int:
        """Threads the trainers get."""
        return self.num_threads or os.cpu_count() or 1

    def directory_for(self, vocab_size: int) -> Path:
        """Where the tokenizer of ``vocab_size`` is written."""
        return Path(self.output_dir) / f"{self.algorithm}-{vocab_size}"


@dataclass(frozen=True)
class TrainedTokenizer:
    """One trained tokenizer.

    Attributes:
        path: its directory (load it with ``load_tokenizer(path)`` or ``AutoTokenizer``).
        algorithm: as in the config.
        vocab_size: number of entries, special symbols included.
        n_sentences: sentences it was trained on.
        seconds: training wall time (sampling excluded).
    """

    path: Path
    algorithm: str
    vocab_size: int
    n_sentences: int
    seconds: float = field(default=0.0, compare=False)


def train_tokenizers(config: TokenizerTrainingConfig, *, progress: bool = True) -> list[TrainedTokenizer]:
    """Draw the sample once, then train one tokenizer per vocabulary size; all or nothing.

    Every size is trained into a hidden staging directory first, the largest first (a size
    the sample cannot give is the usual failure, and it fails fastest there); only when all
    succeeded are they moved to ``<output_dir>/<algorithm>-<size>/``. On any failure the
    staging directories are removed and nothing is written, so no finished
    ``sp-unigram-2000/`` is left behind when 64000 turns out too large.

    Raises:
        TokenizerTrainingError: a vocabulary size the sample cannot give (the message says
            the largest possible and every requested size above it), no text at all, or an
            output location that is an existing file.
        DataNotFoundError: an input that does not exist.
    """
    for p in config.inputs:
        if not Path(p).exists():
            raise DataNotFoundError(f"{p}: no such raw-text file or directory")
    check_output_dir(config.output_dir)
    sample = sample_sentences(iter_sentences(config.inputs), config.sample_size, seed=config.seed, progress=progress)
    if not sample:
        raise TokenizerTrainingError(f"no sentences found in {', '.join(map(str, config.inputs))}")
    staged: dict[int, tuple[Path, TrainedTokenizer]] = {}
    created = not Path(config.output_dir).exists()
    done = False
    try:
        for vocab_size in sorted(config.vocab_sizes, reverse=True):
            if progress:
                print(
                    f"training {config.algorithm} with {vocab_size} pieces on {len(sample):,} sentences ...",
                    file=sys.stderr,
                    flush=True,
                )
            try:
                staged[vocab_size] = train_one(sample, config, vocab_size, stage=True)
            except TokenizerTrainingError as exc:
                raise _all_failing_sizes(exc, config, vocab_size) from exc
        results = []
        for vocab_size in config.vocab_sizes:
            tmp, res = staged.pop(vocab_size)
            replace_folder(tmp, res.path)
            results.append(res)
        done = True
        return results
    finally:
        for tmp, _ in staged.values():
            shutil.rmtree(tmp, ignore_errors=True)
        if created and not done and Path(config.output_dir).is_dir() and not any(Path(config.output_dir).iterdir()):
            Path(config.output_dir).rmdir()


def check_output_dir(output_dir: str | os.PathLike) -> None:
    """Refuse an output location that is, or lies under, an existing file (before any work is done)."""
    path = Path(output_dir)
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "is an existing file" if p == path else f"lies under {p}, an existing file"
                raise TokenizerTrainingError(
                    f"{path}: the output location {what}; expected a folder (new or existing) that receives "
                    f"one sub-folder per tokenizer"
                )
            return


def _all_failing_sizes(
    exc: TokenizerTrainingError, config: TokenizerTrainingConfig, failed: int
) -> TokenizerTrainingError:
    """The training error, naming every requested size that fails for the same reason, and that nothing was written."""
    limit = getattr(exc, "max_vocab_size", None)
    low = getattr(exc, "min_vocab_size", None)
    bad = [failed]
    if limit is not None:
        bad = sorted(v for v in config.vocab_sizes if v > limit)
    elif low is not None:
        bad = sorted(v for v in config.vocab_sizes if v < low)
    others = [v for v in bad if v != failed]
    note = f" (so are {', '.join(map(str, others))})" if others else ""
    out = TokenizerTrainingError(f"{exc}{note} Nothing was written to {config.output_dir}.")
    out.max_vocab_size, out.min_vocab_size = limit, low
    return out


def train_one(sample: list[str], config: TokenizerTrainingConfig, vocab_size: int, *, stage: bool = False):
    """Train one tokenizer on an already drawn sample and write its directory (atomically).

    With ``stage=True`` the finished directory is left at a hidden staging path and
    ``(staging path, result)`` is returned; the caller moves it into place.
    """
    final = config.directory_for(vocab_size)
    tmp = staging_folder(final)
    start = time.perf_counter()
    try:
        if config.algorithm.startswith("sp-"):
            size = _train_sentencepiece(sample, config, vocab_size, tmp)
        else:
            size = _train_hf(sample, config, vocab_size, tmp)
        seconds = time.perf_counter() - start
        _write_manifest(tmp, config, vocab_size, size, len(sample), seconds)
        result = TrainedTokenizer(final, config.algorithm, size, len(sample), seconds)
        if stage:
            return tmp, result
        replace_folder(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return result


def sentencepiece_options(config: TokenizerTrainingConfig, vocab_size: int) -> dict:
    """The keyword arguments handed to ``SentencePieceTrainer.train`` (the benchmark reuses them)."""
    opts = dict(
        model_type=config.algorithm.removeprefix("sp-"),
        vocab_size=vocab_size,
        character_coverage=config.character_coverage,
        max_sentence_length=config.max_sentence_length,
        num_threads=config.threads,
        input_sentence_size=0,  # the sample is already drawn: use all of it
        shuffle_input_sentence=False,
        normalization_rule_name="nmt_nfkc_cf" if config.lowercase else "nmt_nfkc",
        minloglevel=0 if config.verbose else 2,
    )
    if config.albert_specials:
        opts.update(ALBERT_SENTENCEPIECE_IDS)
    return opts


def _train_sentencepiece(sample: list[str], config: TokenizerTrainingConfig, vocab_size: int, out: Path) -> int:
    import sentencepiece as spm  # deferred: a C++ extension (~12 ms), only for the sp-* algorithms

    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sample),
            model_prefix=str(out / "spiece"),
            **sentencepiece_options(config, vocab_size),
        )
    except RuntimeError as exc:
        raise _explain_spm_error(exc, config, vocab_size, len(sample)) from exc
    tok = spm_to_hf_tokenizer(out / "spiece.model", algorithm=config.algorithm.removeprefix("sp-"))
    specials = ALBERT_SPECIALS if config.albert_specials else _PLAIN_SPM_SPECIALS
    add_albert_post_processor(tok)
    write_hf_files(tok, out, special_tokens=specials)
    return spm.SentencePieceProcessor(model_file=str(out / "spiece.model")).get_piece_size()


def _explain_spm_error(exc: RuntimeError, config, vocab_size: int, n: int) -> Exception:
    """sentencepiece's CHECK failures, rewritten to say what is possible."""
    msg = str(exc)
    where = f"a sample of {n:,} sentences from {', '.join(map(str, config.inputs))}"
    m = re.search(r"Vocabulary size too high \((\d+)\)\. Please set it to a value <= (\d+)", msg)
    if m:
        return _too_large(vocab_size, where, f"{config.algorithm} can build at most", int(m.group(2)))
    m = re.search(r"required_chars\. (\d+) vs (\d+)", msg)
    if m:
        err = TokenizerTrainingError(
            f"vocabulary size {vocab_size} is too small for {where}: covering "
            f"{config.character_coverage:.4%} of its characters needs at least {m.group(2)} pieces. "
            f"Ask for a vocabulary size >= {m.group(2)}, or lower character_coverage."
        )
        err.min_vocab_size = int(m.group(2))
        return err
    return TokenizerTrainingError(f"sentencepiece failed on {where} with vocabulary size {vocab_size}: {msg}")


def _too_large(vocab_size: int, where: str, could: str, limit: int) -> TokenizerTrainingError:
    """The error for a vocabulary larger than the sample allows; ``limit`` is kept as ``max_vocab_size``."""
    err = TokenizerTrainingError(
        f"vocabulary size {vocab_size} is too large for {where}: {could} {limit} pieces from it. Ask for a "
        f"vocabulary size <= {limit}, or give more text (a larger --sample-size or more input files)."
    )
    err.max_vocab_size = limit
    return err


def _train_hf(sample: list[str], config: TokenizerTrainingConfig, vocab_size: int, out: Path) -> int:
    # deferred: tokenizers (a Rust extension, ~13 ms), only for the hf-* algorithms
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
    from tokenizers.models import BPE, Unigram, WordPiece

    algo = config.algorithm
    specials = (
        ALBERT_SPECIALS
        if config.albert_specials
        else (_BERT_SPECIALS if algo == "hf-wordpiece" else {"pad_token": "<pad>", "unk_token": "<unk>"})
    )
    special_list = list(specials.values())
    unk = specials["unk_token"]
    common = dict(vocab_size=vocab_size, special_tokens=special_list, show_progress=config.verbose)
    if algo == "hf-wordpiece":
        tok = Tokenizer(WordPiece(unk_token=unk))
        tok.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=config.lowercase
        )
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece(prefix="##")
        trainer = trainers.WordPieceTrainer(**common)
    else:
        tok = Tokenizer(Unigram() if algo == "hf-unigram" else BPE(unk_token=unk, fuse_unk=True))
        norm = [normalizers.NFKC()] + ([normalizers.Lowercase()] if config.lowercase else [])
        tok.normalizer = normalizers.Sequence(norm)
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")]
        )
        tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
        if algo == "hf-unigram":
            trainer = trainers.UnigramTrainer(unk_token=unk, **common)
        else:
            trainer = trainers.BpeTrainer(**common)
    tok.train_from_iterator(sample, trainer=trainer, length=len(sample))
    size = tok.get_vocab_size(with_added_tokens=True)
    if size < vocab_size:
        where = f"a sample of {len(sample):,} sentences from {', '.join(map(str, config.inputs))}"
        raise _too_large(vocab_size, where, f"{algo} could build only", size)
    add_albert_post_processor(tok)
    write_hf_files(tok, out, special_tokens=specials)
    if algo == "hf-wordpiece":
        tok.model.save(str(out))  # vocab.txt, for BERT-style loaders
    return size


def _write_manifest(
    out: Path, config: TokenizerTrainingConfig, requested: int, size: int, n: int, seconds: float
) -> None:
    # deferred: the two extensions (~25 ms), imported by the trainer that ran anyway; here for their versions
    import sentencepiece
    import tokenizers

    cfg = asdict(config)
    cfg["inputs"] = [str(p) for p in config.inputs]
    cfg["output_dir"] = str(config.output_dir)
    manifest = {
        "algorithm": config.algorithm,
        "vocab_size": size,
        "requested_vocab_size": requested,
        "n_sentences": n,
        "sample_size": config.sample_size,
        "seed": config.seed,
        "training_seconds": round(seconds, 3),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": {
            "tokstudy": __version__,
            "sentencepiece": sentencepiece.__version__,
            "tokenizers": tokenizers.__version__,
            "python": sys.version.split()[0],
        },
        "config": cfg,
    }
    (out / "training.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
