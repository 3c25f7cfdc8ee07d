"""Small Hugging Face token-classification models of each tokenizer family, as researchers bring them.

Each model is what ``save_pretrained`` writes for a fine-tuned NER model from the hub: random weights in a tiny
config, a fast tokenizer trained here with the ``tokenizers`` library on the shared English raw text (a small
built-in text when the corpora are absent, so nothing skips), and a label set in another order and spelling
than the datasets' (CoNLL-2003 reads ``O B-PER I-PER ...``):

* ``bert``: BERT + WordPiece, labels in the order of dslim/bert-base-NER (``O B-MISC I-MISC B-PER ...``);
* ``roberta``: RoBERTa + byte-level BPE saved without ``add_prefix_space`` (as roberta-base is), IOBES labels
  with spelled-out lowercase types (``S-person``, ``E-organization``, ...);
* ``albert``: ALBERT + SentencePiece Unigram (Metaspace), bare IO labels (``PER``, ``LOC``, no prefix).

Windows are short (64 positions), so CoNLL-2003 sentences of more than ~40 pieces are split. Building one model
takes about a second; :func:`hf_token_models` builds the three once per session. Tests and benchmarks import it
as ``tests.fixtures_hf_models`` (see :mod:`tests.fixtures_sentencepiece` for why it lives under ``tests/``).

>>> m = build_token_model("bert", Path("/tmp/bert-ner"))  # doctest: +SKIP
>>> AutoModelForTokenClassification.from_pretrained(m.path).config.id2label[1]  # doctest: +SKIP
'B-MISC'
"""

from __future__ import annotations

import gzip
import itertools
import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tokstudy.datalocation import data_root

FAMILIES = ("bert", "roberta", "albert")

#: Each family's labels, in the order of its classifier's outputs.
LABELS: dict[str, tuple[str, ...]] = {
    "bert": ("O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"),
    "roberta": ("O",)
    + tuple(f"{p}-{t}" for t in ("person", "organization", "location", "miscellaneous") for p in "BIES"),
    "albert": ("O", "MISC", "PER", "ORG", "LOC"),
}

#: The tiny encoder shared by every family (hidden 64, 2 layers); RoBERTa's positions start after its padding id.
TINY = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128)
POSITIONS = 64
HEADS = ("token", "masked_lm", "sequence")

_FALLBACK = [
    "The European Union rejects the German call to boycott British lamb .",
    "Peter Blackburn said on Thursday that Germany 's representative to the Commission agreed .",
    "Fischler proposed EU-wide measures after reports from Britain and France .",
]


@dataclass(frozen=True)
class HFModel:
    """A saved model directory and what it was built with."""

    family: str
    """``bert``, ``roberta`` or ``albert``."""
    path: Path
    """The directory ``save_pretrained`` wrote (model and tokenizer)."""
    labels: tuple[str, ...]
    """The classifier's labels by output index (``config.id2label``); empty for a fill-mask head."""


def _lines(n: int = 6000) -> list[str]:
    path = data_root() / "raw_text" / "en.txt.gz"
    if path.is_file():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return [l.strip() for l in itertools.islice(fh, n) if l.strip()]
    return [f"{s} {i}" for i in range(300) for s in _FALLBACK]


def train_tokenizer(family: str, lines: list[str], vocab_size: int = 2000):
    """A transformers fast tokenizer of ``family`` whose vocabulary the ``tokenizers`` library learnt from
    ``lines``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import AlbertTokenizer, BertTokenizer, RobertaTokenizer

    if family == "bert":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        tok.train_from_iterator(lines, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials))
        return BertTokenizer(vocab=tok.get_vocab(), do_lower_case=False)
    if family == "roberta":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tok.train_from_iterator(lines, trainer)
        model = json.loads(tok.to_str())["model"]
        return RobertaTokenizer(vocab=model["vocab"], merges=[tuple(m) for m in model["merges"]])
    if family == "albert":
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        specials = ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
        tok.train_from_iterator(
            lines, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials, unk_token="<unk>")
        )
        vocab = [tuple(v) for v in json.loads(tok.to_str())["model"]["vocab"]]
        return AlbertTokenizer(vocab=vocab, do_lower_case=False, keep_accents=True)
    raise ValueError(f"unknown family {family!r}; expected one of {FAMILIES}")


def _config(family: str, vocab_size: int, labels: tuple[str, ...]):
    from transformers import AlbertConfig, BertConfig, RobertaConfig

    names = dict(id2label=dict(enumerate(labels)), label2id={l: i for i, l in enumerate(labels)}) if labels else {}
    if family == "bert":
        return BertConfig(vocab_size=vocab_size, max_position_embeddings=POSITIONS, **TINY, **names)
    if family == "roberta":  # positions count from padding_idx + 1, as roberta-base's 514 for 512 pieces
        return RobertaConfig(
            vocab_size=vocab_size,
            max_position_embeddings=POSITIONS + 2,
            pad_token_id=1,
            bos_token_id=0,
            eos_token_id=2,
            type_vocab_size=1,
            **TINY,
            **names,
        )
    return AlbertConfig(vocab_size=vocab_size, embedding_size=32, max_position_embeddings=POSITIONS, **TINY, **names)


def build_token_model(
    family: str,
    directory: Path,
    *,
    labels: tuple[str, ...] | None = None,
    head: str = "token",
    tokenizer=None,
    seed: int = 0,
) -> HFModel:
    """Save a random tiny ``family`` model with ``head`` (``token``: token classification over ``labels``, by
    default :data:`LABELS`; ``masked_lm``; ``sequence``: sentence classification) and its tokenizer
    (``tokenizer``, else one trained here) into ``directory``."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoModelForSequenceClassification, AutoModelForTokenClassification

    if head not in HEADS:
        raise ValueError(f"unknown head {head!r}; expected one of {HEADS}")
    labels = () if head == "masked_lm" else tuple(labels if labels is not None else LABELS[family])
    tok = tokenizer if tokenizer is not None else train_tokenizer(family, _lines())
    auto = {
        "token": AutoModelForTokenClassification,
        "masked_lm": AutoModelForMaskedLM,
        "sequence": AutoModelForSequenceClassification,
    }[head]
    torch.manual_seed(seed)
    model = auto.from_config(_config(family, len(tok), labels))
    directory.mkdir(parents=True, exist_ok=True)
    with _no_progress_bars():  # what a test reads on stderr is the command's, not the fixture's
        model.save_pretrained(directory)
    tok.save_pretrained(directory)
    return HFModel(family, directory, labels)


@contextmanager
def _no_progress_bars():
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


@pytest.fixture(scope="session")
def hf_token_models(tmp_path_factory) -> dict[str, HFModel]:
    """The three families' token-classification models (:data:`LABELS`), built once per session."""
    from tests.built_once import built_once

    return built_once(
        tmp_path_factory,
        "hf-token-models",
        lambda root: {family: build_token_model(family, root / family) for family in FAMILIES},
    )
