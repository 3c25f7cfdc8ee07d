"""SentencePiece unigram models for tests and benchmarks, trained in one place.

Tests import it as ``tests.fixtures_sentencepiece``; the benchmarks, which run as scripts with the
project root put first on ``sys.path``, import it the same way. It lives under ``tests/`` because
that folder is already a package both sides import from, while ``benchmarks/`` is a folder of
scripts that the tests cannot import.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tokstudy.tokenization.hf_export import ALBERT_SENTENCEPIECE_IDS


def train_unigram(
    text: str | os.PathLike | Iterable[str],
    prefix: str | os.PathLike,
    vocab_size: int,
    *,
    albert: bool = False,
    **options,
) -> Path:
    """Train ``PREFIX.model``, a SentencePiece unigram model, and return its path.

    Args:
        text: a text file (one sentence a line) or an iterable of sentences.
        prefix: where the model goes (``PREFIX.model`` and ``PREFIX.vocab``).
        vocab_size: the vocabulary size.
        albert: ALBERT's layout (``<pad>`` 0, ``<unk>`` 1, no BOS/EOS, ``[CLS] [SEP] [MASK]``), as
            ``pretrain prepare`` and the fine-tuner's tokenizer need.
        options: further ``SentencePieceTrainer`` options (``num_threads``, ``character_coverage``, ...);
            the trainer is quiet unless ``minloglevel`` says otherwise.
    """
    import sentencepiece as spm

    source = {"input": str(text)} if isinstance(text, (str, os.PathLike)) else {"sentence_iterator": iter(text)}
    spm.SentencePieceTrainer.train(
        **source,
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type="unigram",
        **{"minloglevel": 2, **(ALBERT_SENTENCEPIECE_IDS if albert else {}), **options},
    )
    return Path(f"{prefix}.model")
