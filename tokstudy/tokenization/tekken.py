"""Mistral's Tekken tokenizer (``tekken.json``) as a :class:`Segmenter`.

Tekken is tiktoken byte-level BPE in a JSON file of its own, as the ``mistral-common``
package ships it with Mistral's models (Nemo, Pixtral, Mistral Small 3 ...)::

    {"config": {"pattern": "<pre-tokenizer regex>", "default_vocab_size": 131072,
                "default_num_special_tokens": 1000, "version": "v7", ...},
     "vocab": [{"rank": 0, "token_bytes": "<base64>", "token_str": "..."}, ...],
     "special_tokens": [{"rank": 0, "token_str": "<unk>", "is_control": true}, ...]}

The model's ids ``0 .. num_special_tokens - 1`` are the special tokens; an entry of
``vocab`` with rank ``r`` is the model's id ``r + num_special_tokens``, and only the first
``default_vocab_size - num_special_tokens`` entries of ``vocab`` are used (the file may hold
more). So the BPE is ``tiktoken.Encoding(pat_str=pattern, mergeable_ranks={bytes: rank})``
over those entries, exactly what ``mistral_common``'s ``Tekkenizer`` builds; the shift of the
ids does not change a piece. Special tokens never appear inside a word's pieces.

Words are segmented as every tiktoken encoding is (:mod:`tokstudy.tokenization.tiktoken_`):
each as it stands after a space, pieces shown in the byte-level form (``ĠParis``).

>>> seg = load_tokenizer("mistral-nemo/tekken.json")             # doctest: +SKIP
>>> seg.kind, seg.vocab_size                                     # doctest: +SKIP
('tekken', 131072)
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from pathlib import Path

from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization.tiktoken_ import TiktokenSegmenter, import_tiktoken


def is_tekken(data: object) -> bool:
    """Whether parsed JSON has Tekken's shape (a ``config`` with a ``pattern``, a ``vocab`` list).

    >>> is_tekken({"config": {"pattern": "x"}, "vocab": []}), is_tekken({"model": {}})
    (True, False)
    """
    return (
        isinstance(data, dict)
        and isinstance(data.get("config"), dict)
        and "pattern" in data["config"]
        and isinstance(data.get("vocab"), list)
    )


def tekken_ranks(data: dict, path: Path) -> tuple[dict[bytes, int], str, int, int]:
    """``(mergeable ranks, pattern, vocabulary size, number of special tokens)`` of parsed Tekken JSON.

    Errors name the file, the field and, for a vocabulary entry, its index.
    """
    config = data["config"]
    pattern = config["pattern"]
    try:
        vocab_size = int(config["default_vocab_size"])
        n_special = int(config["default_num_special_tokens"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TokenizerLoadError(
            f"{path}: Tekken config needs integer 'default_vocab_size' and 'default_num_special_tokens' ({exc!r})"
        ) from exc
    if not isinstance(pattern, str) or not pattern:
        raise TokenizerLoadError(f"{path}: Tekken config 'pattern' must be a non-empty regex")
    specials = data.get("special_tokens") or []
    if n_special < len(specials) or n_special >= vocab_size:
        raise TokenizerLoadError(
            f"{path}: Tekken config has default_num_special_tokens={n_special} for default_vocab_size={vocab_size} "
            f"and {len(specials)} special tokens; expected special tokens <= num_special_tokens < vocab_size"
        )
    inner = vocab_size - n_special
    vocab = data["vocab"]
    if len(vocab) < inner:
        raise TokenizerLoadError(
            f"{path}: Tekken vocab has {len(vocab)} entries; default_vocab_size {vocab_size} less "
            f"{n_special} special tokens needs {inner}"
        )
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:inner]):
        try:
            rank = entry["rank"]
            token = base64.b64decode(entry["token_bytes"], validate=True)
        except (KeyError, TypeError, binascii.Error) as exc:
            raise TokenizerLoadError(
                f"{path}: vocab entry {i}: expected {{'rank': int, 'token_bytes': base64, 'token_str': ...}} ({exc!r})"
            ) from exc
        if rank != i:
            raise TokenizerLoadError(f"{path}: vocab entry {i} has rank {rank}; expected ranks 0, 1, 2 ... in order")
        if token in ranks:
            raise TokenizerLoadError(
                f"{path}: vocab entry {i}: token {token!r} given twice (ranks {ranks[token]}, {i})"
            )
        ranks[token] = i
    return ranks, pattern, vocab_size, n_special


class TekkenSegmenter(TiktokenSegmenter):
    """A Tekken tokenizer: its BPE applied word by word like any tiktoken encoding.

    ``vocab_size`` is the model's (``default_vocab_size``, special tokens included), as a
    SentencePiece model's counts its control symbols.
    """

    kind = "tekken"

    @classmethod
    def from_json(cls, data: dict, path: str | os.PathLike, *, name: str, **kwargs) -> TekkenSegmenter:
        """Build from the parsed JSON of the file ``path`` (see :func:`is_tekken`)."""
        tiktoken = import_tiktoken()
        path = Path(path)
        ranks, pattern, vocab_size, n_special = tekken_ranks(data, path)
        try:
            enc = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        except ValueError as exc:
            raise TokenizerLoadError(f"{path}: not a usable Tekken tokenizer ({exc})") from exc
        kwargs.setdefault("source", str(path))
        seg = cls(enc, name=name, **kwargs)
        seg.vocab_size = vocab_size
        seg.num_special_tokens = n_special
        return seg

    @classmethod
    def from_file(cls, path: str | os.PathLike, *, name: str, **kwargs) -> TekkenSegmenter:  # type: ignore[override]
        """Read ``tekken.json`` and build the segmenter."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TokenizerLoadError(f"{path}: cannot read as Tekken JSON ({exc})") from exc
        if not is_tekken(data):
            raise TokenizerLoadError(
                f"{path}: not a Tekken tokenizer (expected a 'config' with a 'pattern' and a 'vocab' list)"
            )
        return cls.from_json(data, path, name=name, **kwargs)
