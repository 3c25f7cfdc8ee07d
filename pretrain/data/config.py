"""``PrepareConfig``: everything that decides the bytes of an example store.

YAML files in ``pretrain/configs/prepare_*.yaml`` mirror the fields one to one; unknown keys
are an error naming the file. Two runs with equal configs (and the same tokenizer and input
files) write byte-identical stores, and a second run reuses the first one's output.

>>> cfg = PrepareConfig(inputs=["raw_text_large/en"], tokenizer="runs/tok", output="runs/ex")
>>> cfg.max_num_tokens, cfg.task
(125, 'sop')
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from tokstudy.configfile import build_config, load_config, require

Task = Literal["sop", "nsp"]
SingleSegmentPolicy = Literal["split", "skip"]
TASKS: tuple[str, ...] = get_args(Task)
SINGLE_SEGMENT_POLICIES: tuple[str, ...] = get_args(SingleSegmentPolicy)


@dataclass
class PrepareConfig:
    """Settings of ``pretrain prepare`` (raw documents -> ALBERT examples)."""

    inputs: list[str] = field(default_factory=list)
    """Raw-text files or folders (``<lang>.txt[.gz]``, blank line between documents), or corpus names
    under the data location, optionally with a language: ``raw_text_large``, ``raw_text_large/en``."""

    tokenizer: str = ""
    """Directory holding ``spiece.model`` (as saved by ``tokstudy train-tokenizer``), or the ``.model`` file."""

    output: str = ""
    """Store directory to write (created atomically; reused when config, tokenizer and inputs match)."""

    languages: list[str] | None = None
    """Keep only these language codes (from file names); ``None`` keeps every input language."""

    max_seq_length: int = 128
    """Tokens per example including [CLS] and two [SEP]. ALBERT pre-trained at 512 (90 % of steps at 128 in BERT)."""

    max_predictions: int = 20
    """Cap on masked positions per example: ALBERT uses 20 at length 128 and 80 at 512 (0.15 x L, rounded up)."""

    short_seq_prob: float = 0.1
    """Probability that an example targets a random shorter length in [2, max_num_tokens] (ALBERT: 0.1)."""

    masked_lm_prob: float = 0.15
    """Fraction of tokens masked (capped at ``max_predictions``)."""

    max_ngram: int = 3
    """Longest masked n-gram, in whole words; n is drawn with P(n) proportional to 1/n (ALBERT's default 3)."""

    mask_token_prob: float = 0.8
    """Of the masked tokens: probability of [MASK] (80 %)."""

    random_token_prob: float = 0.1
    """Of the masked tokens: probability of a random non-special token (10 %); the rest stay unchanged."""

    task: Task = "sop"
    """``sop`` (sentence order: B before A with probability 0.5) or ``nsp`` (B from another document w.p. 0.5)."""

    dupe_factor: int = 1
    """How many times each drawn document is turned into examples, each time with new splits and masks."""

    language_alpha: float = 0.3
    """Exponent of multilingual sampling, p_lang proportional to (bytes_lang / bytes_total)^alpha (XLM-R used 0.3,
    mBERT 0.7 on sentences). 1.0 keeps the natural proportions; small languages are repeated, large ones subsampled."""

    split_sentences: bool = True
    """Split each line at sentence-final punctuation before building segments (raw_text_large has paragraphs)."""

    single_segment: SingleSegmentPolicy = "split"
    """A chunk of one sentence (documents of one line): ``split`` it at a word boundary into A and B, or ``skip`` it."""

    nsp_buffer_documents: int = 1000
    """NSP only: how many recent documents per language the random B is drawn from (bounded memory)."""

    shuffle_buffer: int = 10000
    """Examples shuffled together before writing (a local shuffle; the trainer shuffles indices as well)."""

    max_examples: int | None = None
    """Stop after this many examples (smoke tests); ``None`` converts everything drawn."""

    encode_batch_documents: int = 64
    """Documents tokenized per sentencepiece batch call (speed only; never changes the output)."""

    seed: int = 12345
    """Seed of every random choice (language draws, lengths, splits, swaps, masks)."""

    def __post_init__(self) -> None:
        if isinstance(self.inputs, (str, os.PathLike)):
            self.inputs = [str(self.inputs)]
        self.inputs = [str(p) for p in self.inputs]
        if self.languages is not None:
            self.languages = [str(x) for x in self.languages]
        checks = [
            (16 <= self.max_seq_length <= 32767, "max_seq_length must be in [16, 32767]"),
            (
                1 <= self.max_predictions <= self.max_seq_length - 3,
                "max_predictions must be in [1, max_seq_length - 3]",
            ),
            (0.0 <= self.short_seq_prob <= 1.0, "short_seq_prob must be in [0, 1]"),
            (0.0 < self.masked_lm_prob < 1.0, "masked_lm_prob must be in (0, 1)"),
            (1 <= self.max_ngram <= 10, "max_ngram must be in [1, 10]"),
            (self.mask_token_prob >= 0 and self.random_token_prob >= 0, "replacement probabilities must be >= 0"),
            (self.mask_token_prob + self.random_token_prob <= 1.0, "mask_token_prob + random_token_prob must be <= 1"),
            (self.task in TASKS, f"task must be one of {TASKS}"),
            (
                self.single_segment in SINGLE_SEGMENT_POLICIES,
                f"single_segment must be one of {SINGLE_SEGMENT_POLICIES}",
            ),
            (self.dupe_factor >= 1, "dupe_factor must be >= 1"),
            (0.0 < self.language_alpha <= 1.0, "language_alpha must be in (0, 1]"),
            (self.nsp_buffer_documents >= 1, "nsp_buffer_documents must be >= 1"),
            (self.shuffle_buffer >= 1, "shuffle_buffer must be >= 1"),
            (self.max_examples is None or self.max_examples >= 1, "max_examples must be >= 1 or null"),
            (self.encode_batch_documents >= 1, "encode_batch_documents must be >= 1"),
        ]
        for ok, message in checks:
            require(ok, "PrepareConfig", message)

    @property
    def max_num_tokens(self) -> int:
        """Tokens left for A and B after [CLS] A [SEP] B [SEP]."""
        return self.max_seq_length - 3

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """The fields that decide the store's content (``output`` and batch sizes for speed excluded)."""
        d = self.to_dict()
        for key in ("output", "encode_batch_documents"):
            d.pop(key)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str | None = None) -> "PrepareConfig":
        return build_config(cls, data, source=source)

    @classmethod
    def from_yaml(cls, path: str | os.PathLike, **overrides: Any) -> "PrepareConfig":
        """Load a YAML file; ``overrides`` that are not ``None`` replace its values."""
        return load_config(cls, path, **overrides)
