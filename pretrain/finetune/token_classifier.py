"""Load a token-classification model fine-tuned elsewhere (a local directory or a hub name), checked first.

Researchers bring NER models saved with ``save_pretrained`` or published on the Hugging Face hub
(dslim/bert-base-NER): any encoder family with a fast tokenizer (WordPiece, byte-level BPE, SentencePiece).
The checks turn late, cryptic failures, or silently wrong predictions, into one line naming the model:

* a hub name is resolved through the Hugging Face cache (:func:`tokstudy.inputs.hub_models.resolve_pretrained`:
  ``HF_HUB_OFFLINE=1`` is respected; a model not cached while offline is refused at once, with the command that
  fetches it);
* the model must carry a trained token-classification head: a fill-mask or sentence-classification model would
  load with a freshly initialised classifier and predict noise;
* the tokenizer must be fast (word alignment reads ``word_ids()``), its ids must index the embedding matrix, and
  its inputs must be ``[CLS] pieces [SEP]`` (what the windows of :mod:`pretrain.finetune.features` build);
* a byte-level BPE tokenizer saved without ``add_prefix_space`` (RoBERTa's) is loaded with it, so that a word
  given on its own is encoded as in running text, after a space (``ĠParis``, not ``Paris``).

The window length is what the model's positions allow (RoBERTa counts its positions after the padding id),
capped by the tokenizer's ``model_max_length`` when that is set.

>>> clf = load_token_classifier("dslim/bert-base-NER")  # doctest: +SKIP
>>> clf.labels[:3], clf.max_length
(('O', 'B-MISC', 'I-MISC'), 512)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pretrain.finetune.features import special_ids
from pretrain.finetune.modeling import check_model_dir, check_vocab, load_tokenizer
from pretrain.finetune.trainer import resolve_device
from tokstudy.errors import TokenizerLoadError
from tokstudy.inputs.hub_models import resolve_pretrained

#: a ``model_max_length`` at least this large means the tokenizer does not set one (transformers writes 1e30)
_UNSET_LENGTH = 1_000_000


@dataclass(frozen=True)
class TokenClassifier:
    """A token-classification model ready to predict, and what predicting needs to know of it."""

    model: object
    """The ``AutoModelForTokenClassification``, in eval mode on its device."""
    tokenizer: object
    """Its fast tokenizer."""
    path: Path
    """The directory it was loaded from (a hub name's cached snapshot)."""
    name: str
    """The model as the user named it (a directory or a hub name)."""
    labels: tuple[str, ...]
    """``config.id2label`` in output order."""
    max_length: int
    """Pieces per window, ``[CLS]`` and ``[SEP]`` included."""


def load_token_classifier(spec: str | os.PathLike, *, device: str = "auto") -> TokenClassifier:
    """The model ``spec`` names (a directory or a hub name), checked as the module docstring says."""
    # deferred: transformers (~1-2 s), only when a model is loaded
    from transformers import AutoConfig

    path = check_model_dir(resolve_pretrained(spec))
    try:
        config = AutoConfig.from_pretrained(str(path))
    except Exception as exc:  # transformers raises many types here; one line naming the place
        raise ValueError(f"{path}: could not read config.json: {_first_line(exc)}") from None
    _check_head(config, path)
    tok = _load_fast_tokenizer(path)
    model = _load_model(path)
    check_vocab(tok, model, path)
    _check_layout(tok, path)
    labels = tuple(model.config.id2label[i] for i in range(model.config.num_labels))
    model.to(resolve_device(device))
    model.eval()
    return TokenClassifier(model, tok, path, str(spec), labels, window_length(model, tok))


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def _check_head(config, path: Path) -> None:
    """The config must name a token-classification architecture (``...ForTokenClassification``)."""
    arch = tuple(getattr(config, "architectures", None) or ())
    if not any(a.endswith("ForTokenClassification") for a in arch):
        named = ", ".join(arch) if arch else "no architecture"
        raise ValueError(
            f"{path}: not a token-classification model (config.json names {named}); expected a model fine-tuned "
            "for NER, whose config names ...ForTokenClassification"
        )


def _load_fast_tokenizer(path: Path):
    """The fast tokenizer, with ``add_prefix_space`` where the tokenizer has the option and it is off."""
    tok = load_tokenizer(path)
    if getattr(tok, "add_prefix_space", None) is False:
        # byte-level BPE: without the space, a pre-split word is encoded as if it started the text
        tok = load_tokenizer(path, add_prefix_space=True)
    return tok


def _load_model(path: Path):
    """``AutoModelForTokenClassification`` with every weight from the checkpoint (none newly initialised)."""
    # deferred: transformers (~1-2 s), only when a model is loaded
    from transformers import AutoModelForTokenClassification
    from transformers.utils import logging as hf_logging

    previous, bar = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()  # missing weights are checked below, in one line of our own
    hf_logging.disable_progress_bar()  # a bar per weight file; the prediction has its own
    try:
        model, info = AutoModelForTokenClassification.from_pretrained(str(path), output_loading_info=True)
    except Exception as exc:
        raise ValueError(f"{path}: could not load the token-classification model: {_first_line(exc)}") from None
    finally:
        hf_logging.set_verbosity(previous)
        if bar:
            hf_logging.enable_progress_bar()
    missing = sorted(info.get("missing_keys") or ())
    if missing:
        raise ValueError(
            f"{path}: the checkpoint lacks {len(missing)} weight(s) of the token-classification model "
            f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}); expected a model saved after "
            "fine-tuning for token classification"
        )
    return model


def _check_layout(tok, path: Path) -> None:
    """The tokenizer's inputs must be ``[CLS] pieces [SEP]``, as the prediction windows are built."""
    cls_id, sep_id, _, _ = special_ids(tok)
    ids = tok(["a"], is_split_into_words=True)["input_ids"]
    if not ids or ids[0] != cls_id or ids[-1] != sep_id:
        raise TokenizerLoadError(
            f"{path}: the tokenizer frames a sentence as {tok.convert_ids_to_tokens(ids)}; expected "
            f"{tok.cls_token} ... {tok.sep_token} (BERT, RoBERTa, ALBERT, XLM-R and DeBERTa tokenizers do)"
        )


def window_length(model, tokenizer) -> int:
    """Pieces per window: the model's positions (after RoBERTa's padding offset), capped by the tokenizer's
    ``model_max_length`` when it sets one."""
    limit = int(model.config.max_position_embeddings)
    embeddings = getattr(getattr(model, "base_model", None), "embeddings", None)
    pad = getattr(getattr(embeddings, "position_embeddings", None), "padding_idx", None)
    if pad is not None:  # RoBERTa-style positions start after padding_idx (roberta-base: 514 -> 512)
        limit -= int(pad) + 1
    declared = getattr(tokenizer, "model_max_length", None)
    if declared and declared < _UNSET_LENGTH:
        limit = min(limit, int(declared))
    return limit
