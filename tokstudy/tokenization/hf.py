"""Hugging Face ``tokenizers`` models (``tokenizer.json``, WordPiece ``vocab.txt``) as a :class:`Segmenter`.

Words go through ``Tokenizer.encode_batch`` as pre-split input (``is_pretokenized=True``,
no special tokens), in chunks of :data:`CHUNK` words per sequence, and ``word_ids`` gives
each piece's word. In pre-split input, tokenizers normalises and pre-tokenises every word
on its own, so a chunk gives exactly what encoding each word alone gives (the tests check
this against a one-word-at-a-time brute force); chunking only saves the per-``Encoding``
overhead, which dominates when every word is its own sequence.

Each word is handed over in the form it has inside a sentence (:mod:`.context`): byte-level
BPE tokenizers (GPT-2, RoBERTa, Llama-3) get ``" " + word``, so ``Japan`` gives ``ĠJapan``
as in the sentence encoding, not ``J · apan``.

A word the normaliser empties (e.g. only control characters) gets zero pieces; empty
words get zero pieces and are never passed to the tokenizer. Unknown pieces are flagged
by id; their text is whatever the model emits (``[UNK]`` for WordPiece and BPE, the
covered text for Unigram).

>>> seg = HFTokenizerSegmenter.from_file("tokenizer.json")        # doctest: +SKIP
>>> seg.segment(["Washington", ","]).as_lists()                   # doctest: +SKIP
[['▁Washington'], ['▁', ',']]
"""

from __future__ import annotations

import json
import os
import re
from itertools import chain
from pathlib import Path
from typing import Sequence

import numpy as np

from tokstudy.errors import AlignmentError, TokenizerLoadError
from tokstudy.tokenization.base import Segmentation, Segmenter
from tokstudy.tokenization.context import hf_word_context
from tokstudy.tokenization.sentencepiece_ import ids_to_segmentation

#: words per pre-split sequence handed to ``encode_batch``.
CHUNK = 256

_UNK_CANDIDATES = ("<unk>", "[UNK]", "<UNK>", "[unk]")


class HFTokenizerSegmenter(Segmenter):
    """A ``tokenizers.Tokenizer`` applied word by word, in batches.

    Args:
        tokenizer: a ``tokenizers.Tokenizer``.
        name: display name.
        kind: ``"hf-tokenizers"`` or ``"wordpiece"``.
        count_lone_boundary: count a lone boundary piece (``"▁"``, byte-level ``"Ġ"``).
        source: where it was loaded from (for messages).
    """

    def __init__(
        self,
        tokenizer,
        *,
        name: str,
        kind: str = "hf-tokenizers",
        count_lone_boundary: bool = True,
        source: str | None = None,
    ):
        self.tokenizer = tokenizer
        self.name = name
        self.kind = kind
        self.count_lone_boundary = count_lone_boundary
        self.source = source
        self.vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
        vocab = tokenizer.get_vocab(with_added_tokens=True)
        table = np.empty(max(vocab.values(), default=-1) + 1, dtype=object)
        for piece, i in vocab.items():
            table[i] = piece
        self._id_to_piece = table
        self.unk_id = _unk_id(tokenizer, vocab)
        self.context = hf_word_context(tokenizer)
        marker = self.context.marker if self.context.marker_starts_word else None
        self.boundary_id = vocab.get(marker, -1) if marker else -1
        self._id_is_byte = _byte_fallback_ids(tokenizer, table)

    @classmethod
    def from_file(cls, path: str | os.PathLike, **kwargs) -> "HFTokenizerSegmenter":
        """Load a ``tokenizer.json`` file."""
        from tokenizers import Tokenizer  # deferred: a Rust extension (~13 ms), only for a tokenizer.json

        path = Path(path)
        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises a bare Exception on bad JSON
            raise TokenizerLoadError(f"{path}: not a valid Hugging Face tokenizer.json ({exc})") from exc
        kwargs.setdefault("source", str(path))
        if "kind" not in kwargs and type(tok.model).__name__ == "WordPiece":
            kwargs["kind"] = "wordpiece"
        return cls(tok, **kwargs)

    def segment(self, words: Sequence[str]) -> Segmentation:
        n = len(words)
        keep = [i for i, w in enumerate(words) if w]
        batch = [words[i] for i in keep] if len(keep) != n else list(words)
        prefix = self.context.prefix
        if prefix:
            batch = [prefix + w for w in batch]
        chunks = [batch[k : k + CHUNK] for k in range(0, len(batch), CHUNK)]
        encodings = self.tokenizer.encode_batch(chunks, is_pretokenized=True, add_special_tokens=False)
        ids = [e.ids for e in encodings]
        word_ids = [e.word_ids for e in encodings]
        total = sum(map(len, ids))
        flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=total)
        # word index within the chunk -> index within `batch`
        shift = np.repeat(np.arange(len(chunks), dtype=np.int64) * CHUNK, [len(x) for x in ids])
        widx = np.fromiter(chain.from_iterable(word_ids), dtype=np.int64, count=total) + shift
        if total and np.any(np.diff(widx) < 0):  # pieces must come word by word, in order
            order = np.argsort(widx, kind="stable")
            flat, widx = flat[order], widx[order]
        lens = np.bincount(widx, minlength=len(batch)).astype(np.int64) if total else np.zeros(len(batch), np.int64)
        counts = lens if len(keep) == n else np.zeros(n, dtype=np.int64)
        if len(keep) != n and len(keep):
            counts[np.asarray(keep, dtype=np.int64)] = lens
        seg = ids_to_segmentation(
            flat,
            counts,
            self._id_to_piece,
            self.unk_id,
            drop_id=None if self.count_lone_boundary else self.boundary_id,
            byte_ids=self._id_is_byte,
        )
        if seg.unk.any():
            self._surface_unknowns(seg, words)
        return seg

    def _surface_unknowns(self, seg: Segmentation, words: Sequence[str]) -> None:
        """Replace unknown pieces by the token text the tokenizer itself reports for them."""
        unk_pos = np.flatnonzero(seg.unk)
        word_idx = np.unique(np.searchsorted(seg.offsets, unk_pos, side="right") - 1)
        prefix = self.context.prefix
        encs = self.tokenizer.encode_batch(
            [[prefix + words[i]] for i in word_idx], is_pretokenized=True, add_special_tokens=False
        )
        for i, enc in zip(word_idx.tolist(), encs):
            start, stop = int(seg.offsets[i]), int(seg.offsets[i + 1])
            tokens = enc.tokens
            if not self.count_lone_boundary and len(tokens) > 1 and self.boundary_id >= 0:
                lone = self.context.marker
                tokens = [t for t in tokens if t != lone] or tokens[:1]
            if len(tokens) != stop - start:  # never expected: refuse a silent shift
                raise AlignmentError(
                    f"{self.name}: word {words[i]!r} gave {len(tokens)} tokens alone but {stop - start} in a batch"
                )
            seg.pieces[start:stop] = tokens


def tokenizer_from_json(data: dict, path: str | os.PathLike):
    """A ``tokenizers.Tokenizer`` from a ``tokenizer.json``'s content, parsed already (and changed, for a model
    directory); ``path`` names where it came from in messages."""
    from tokenizers import Tokenizer  # deferred: a Rust extension (~13 ms), only for a tokenizer.json

    try:
        return Tokenizer.from_str(json.dumps(data))
    except Exception as exc:  # tokenizers raises a bare Exception on a wrong schema
        raise TokenizerLoadError(f"{path}: not a valid Hugging Face tokenizer.json ({exc})") from exc


def _unk_id(tokenizer, vocab: dict[str, int]) -> int:
    """The model's unknown id (Unigram stores an id, BPE/WordPiece a token)."""
    model = json.loads(tokenizer.to_str()).get("model", {}) if len(vocab) < 2_000_000 else {}
    if model.get("unk_id") is not None:
        return int(model["unk_id"])
    if model.get("unk_token") in vocab:
        return vocab[model["unk_token"]]
    for cand in _UNK_CANDIDATES:
        if cand in vocab:
            return vocab[cand]
    return -1


def wordpiece_tokenizer(vocab_file: str | os.PathLike, *, lowercase: bool | None = None):
    """A BERT-style WordPiece ``tokenizers.Tokenizer`` over a ``vocab.txt`` (one piece per line).

    ``lowercase=None`` guesses: lowercase when no vocabulary entry (other than bracketed
    special tokens) has an upper-case letter, as in BERT's uncased vocabularies.
    """
    # deferred: tokenizers (a Rust extension, ~13 ms) only when a tokenizer.json is read
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers
    from tokenizers.models import WordPiece

    path = Path(vocab_file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenizerLoadError(f"{path}: cannot read WordPiece vocabulary ({exc})") from exc
    vocab: dict[str, int] = {}
    for line in lines:
        piece = line.rstrip("\r\n")
        if piece and piece not in vocab:
            vocab[piece] = len(vocab)
    if not vocab:
        raise TokenizerLoadError(f"{path}: empty WordPiece vocabulary (expected one piece per line)")
    unk = next((c for c in _UNK_CANDIDATES if c in vocab), None)
    if unk is None:
        raise TokenizerLoadError(
            f"{path}: WordPiece vocabulary has no unknown token (expected one of {_UNK_CANDIDATES})"
        )
    if lowercase is None:
        lowercase = not any(ch.isupper() for p in vocab if not (p.startswith("[") or p.startswith("<")) for ch in p)
    tok = Tokenizer(WordPiece(vocab, unk_token=unk, max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=lowercase
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def _byte_fallback_ids(tokenizer, id_to_piece: np.ndarray) -> np.ndarray | None:
    """``bool`` per id, ``True`` for the ``<0xE1>`` pieces of a BPE with ``byte_fallback``; ``None`` otherwise."""
    if not getattr(tokenizer.model, "byte_fallback", False):
        return None
    flags = np.fromiter(
        (isinstance(p, str) and _BYTE_PIECE.fullmatch(p) is not None for p in id_to_piece),
        dtype=bool,
        count=len(id_to_piece),
    )
    return flags if flags.any() else None


_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")
