"""Tokenizers: one :class:`Segmenter` interface over every kind, and training on raw text.

>>> from tokstudy.tokenization import load_tokenizer                 # doctest: +SKIP
>>> load_tokenizer("spm32k/").segment(["Washington", ","]).as_lists()  # doctest: +SKIP
[['▁Washington'], ['▁', ',']]
"""

import importlib

from tokstudy.tokenization.base import BOUNDARY, Segmentation, Segmenter

__all__ = [
    "BOUNDARY",
    "Segmentation",
    "Segmenter",
    "load_tokenizer",
    "train_tokenizers",
    "TokenizerTrainingConfig",
    "TrainedTokenizer",
    "SentencePieceSegmenter",
    "HFTokenizerSegmenter",
    "TiktokenSegmenter",
    "WordContext",
]

_LAZY = {
    "load_tokenizer": "tokstudy.tokenization.loading",
    "train_tokenizers": "tokstudy.tokenization.training",
    "TokenizerTrainingConfig": "tokstudy.tokenization.training",
    "TrainedTokenizer": "tokstudy.tokenization.training",
    "SentencePieceSegmenter": "tokstudy.tokenization.sentencepiece_",
    "HFTokenizerSegmenter": "tokstudy.tokenization.hf",
    "TiktokenSegmenter": "tokstudy.tokenization.tiktoken_",
    "WordContext": "tokstudy.tokenization.context",
}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tokstudy.tokenization' has no attribute {name!r}")
