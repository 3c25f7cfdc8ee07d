"""The tokenizer a model is bound to: its vocabulary size, special ids and a fingerprint.

A model's embedding matrix only means something with the tokenizer that produced its data, so
training, resuming and exporting all check that the tokenizer, the example store and the
checkpoint agree, and fail with a message naming both sides when they do not.

>>> info = tokenizer_info("runs/tok32k")               # doctest: +SKIP
>>> info["vocab_size"], info["special_ids"]["mask"]    # doctest: +SKIP
(32000, 4)
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Mapping

from tokstudy.errors import TokenizerLoadError

#: Files that make up a tokenizer directory (copied into exported models; hashed for the fingerprint).
TOKENIZER_FILES = (
    "spiece.model",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
)
_FINGERPRINTED = ("spiece.model", "tokenizer.json", "vocab.txt")
_SPECIAL_ATTRS = {
    "pad": "pad_token_id",
    "unk": "unk_token_id",
    "cls": "cls_token_id",
    "sep": "sep_token_id",
    "mask": "mask_token_id",
}


class VocabularyMismatchError(ValueError):
    """A checkpoint, a tokenizer or an example store disagree on the vocabulary."""


def fingerprint(directory: str | os.PathLike) -> str:
    """sha256 over the vocabulary-defining files present in a tokenizer directory."""
    directory = Path(directory)
    h = hashlib.sha256()
    for name in _FINGERPRINTED:
        p = directory / name
        if p.is_file():
            h.update(name.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def load_tokenizer(directory: str | os.PathLike):
    """``AutoTokenizer.from_pretrained(directory)`` (local files only), with errors naming the directory."""
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    from transformers import AutoTokenizer

    directory = Path(directory)
    if not directory.is_dir():
        raise TokenizerLoadError(f"{directory}: tokenizer directory not found")
    try:
        return AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - transformers raises many kinds
        raise TokenizerLoadError(f"{directory}: AutoTokenizer cannot load it ({exc})") from exc


def tokenizer_info(directory: str | os.PathLike) -> dict[str, Any]:
    """``{path, sha256, vocab_size, special_ids}`` of a tokenizer directory."""
    tok = load_tokenizer(directory)
    special = {k: getattr(tok, attr) for k, attr in _SPECIAL_ATTRS.items() if getattr(tok, attr, None) is not None}
    return {
        "path": str(Path(directory).resolve()),
        "sha256": fingerprint(directory),
        "vocab_size": len(tok),
        "special_ids": special,
    }


def check_same_vocabulary(a: Mapping[str, Any], b: Mapping[str, Any], *, a_name: str, b_name: str) -> None:
    """Raise :class:`VocabularyMismatchError` when vocabulary sizes or shared special ids differ."""
    if int(a["vocab_size"]) != int(b["vocab_size"]):
        raise VocabularyMismatchError(
            f"vocabulary mismatch: {a_name} has {a['vocab_size']} entries, {b_name} has {b['vocab_size']}; "
            "the model, its tokenizer and its example store must come from the same tokenizer"
        )
    sa, sb = a.get("special_ids") or {}, b.get("special_ids") or {}
    differ = {k: (sa[k], sb[k]) for k in sa.keys() & sb.keys() if int(sa[k]) != int(sb[k])}
    if differ:
        raise VocabularyMismatchError(f"special token ids differ between {a_name} and {b_name}: {differ}")
