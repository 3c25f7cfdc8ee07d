"""SentencePiece models (``.model`` files) as a vectorised :class:`Segmenter`.

Every word is encoded on its own, exactly as ``sp.encode(word, out_type=str)`` would,
but the whole batch goes through ONE ``SentencePieceProcessor.encode(list, out_type=int)``
call (C++ loop, several threads); pieces come from a precomputed id -> piece table and
offsets from a cumulative sum, so the Python overhead per word is a few list operations.

Behaviour worth knowing (see also :mod:`tokstudy.tokenization.base`):

* Normalisation: the model's own normaliser (usually ``nmt_nfkc``) runs on each word, so
  ``"ﬁ"`` may become ``"▁fi"``; pieces are reported as sentencepiece emits them and
  aligned by word, never by character offset.
* A word made only of characters the normaliser removes or turns into spaces (e.g. a
  zero-width joiner, or ``"▁"`` itself) gets zero pieces, as sentencepiece gives it.
* Empty words get zero pieces and are never passed to sentencepiece.
* ``count_lone_boundary=False`` drops a ``"▁"`` piece that stands alone (``","`` ->
  ``["▁", ","]`` -> ``[","]``), but never the only piece of a word.
* In context (:mod:`tokstudy.tokenization.context`): a model with the usual dummy prefix
  gives a word alone the ``▁`` it has inside a sentence. A model trained with
  ``add_dummy_prefix=false`` does not, and strips a leading space, so each word is encoded
  after an anchor (``"a " + word``) and the anchor's pieces are dropped: exact, because
  the model splits at whitespace, so the anchor never merges with the word.

>>> seg = SentencePieceSegmenter("spiece.model")            # doctest: +SKIP
>>> seg.segment(["Washington", ","]).as_lists()             # doctest: +SKIP
[['▁Washington'], ['▁', ',']]
"""

from __future__ import annotations

import os
from itertools import chain
from pathlib import Path
from typing import Sequence

import numpy as np

from tokstudy.errors import AlignmentError, TokenizerLoadError
from tokstudy.tokenization.base import BOUNDARY, Segmentation, Segmenter
from tokstudy.tokenization.context import WordContext

#: text put before each word of a model without a dummy prefix: its pieces are dropped again.
ANCHOR = "a"


class SentencePieceSegmenter(Segmenter):
    """A SentencePiece model applied word by word, in one batch call.

    Args:
        model_file: path of a SentencePiece ``.model`` file.
        name: display name; defaults to the model's directory name (``spiece.model``,
            as ALBERT directories name it) or file stem.
        count_lone_boundary: count a lone ``"▁"`` piece (see module docstring).
        num_threads: threads for the batch encode; ``None`` lets sentencepiece decide.
    """

    kind = "sentencepiece"

    def __init__(
        self,
        model_file: str | os.PathLike,
        *,
        name: str | None = None,
        count_lone_boundary: bool = True,
        num_threads: int | None = None,
    ):
        import sentencepiece as spm

        path = Path(model_file)
        if not path.is_file():
            raise TokenizerLoadError(f"{path}: no such SentencePiece model file (expected a .model file)")
        try:
            self.processor = spm.SentencePieceProcessor(model_file=str(path))
        except (RuntimeError, OSError) as exc:
            raise TokenizerLoadError(f"{path}: not a valid SentencePiece model ({exc})") from exc
        self.model_file = path
        self.name = name or default_name(path)
        self.count_lone_boundary = count_lone_boundary
        self.num_threads = -1 if num_threads is None else int(num_threads)
        sp = self.processor
        self.vocab_size = sp.get_piece_size()
        # object array: fancy indexing by an id array returns the pieces in one C loop
        self._id_to_piece = np.array([sp.id_to_piece(i) for i in range(self.vocab_size)], dtype=object)
        self.unk_id = sp.unk_id()
        self.unk_piece = sp.id_to_piece(self.unk_id) if self.unk_id >= 0 else None
        # byte-fallback pieces (<0xE1>), None for a model trained without byte_fallback
        is_byte = np.fromiter((sp.is_byte(i) for i in range(self.vocab_size)), dtype=bool, count=self.vocab_size)
        self._id_is_byte = is_byte if is_byte.any() else None
        self.boundary_id = sp.piece_to_id(BOUNDARY)
        if self.boundary_id == self.unk_id:  # the model has no lone-boundary piece at all
            self.boundary_id = -1
        alone = sp.encode(ANCHOR, out_type=str)
        # no dummy prefix: words are encoded after the anchor, whose pieces are then dropped
        self._anchor_pieces = 0 if alone and alone[0].startswith(BOUNDARY) else len(alone)
        if self._anchor_pieces:
            self.context = WordContext("sentencepiece", " ", BOUNDARY)

    def _encode(self, words: Sequence[str], out_type):
        """Each word as inside a sentence (see the module docstring)."""
        k = self._anchor_pieces
        if not k:
            return self.processor.encode(list(words), out_type=out_type, num_threads=self.num_threads)
        out = self.processor.encode([f"{ANCHOR} {w}" for w in words], out_type=out_type, num_threads=self.num_threads)
        return [x[k:] for x in out]

    def segment(self, words: Sequence[str]) -> Segmentation:
        seg = self.segment_ids(words)
        if seg.unk.any():
            self._surface_unknowns(seg, words)
        return seg

    def segment_ids(self, words: Sequence[str]) -> Segmentation:
        """:meth:`segment` with each unknown piece left as the model's unknown piece (e.g. ``<unk>``).

        Offsets, ``unk`` flags and ids are exactly :meth:`segment`'s; only the text of unknown pieces
        differs. One encode call: :meth:`segment` encodes the words holding an unknown piece a second
        time to read the text they cover, which is most of its time on text the vocabulary does not
        cover (Arabic or Chinese under an English vocabulary). For counting pieces (parity, fertility).
        """
        n = len(words)
        nonempty = [i for i, w in enumerate(words) if w] if not all(words) else None
        batch = words if nonempty is None else [words[i] for i in nonempty]
        ids_per_word = self._encode(batch, int)
        lens = np.fromiter(map(len, ids_per_word), dtype=np.int64, count=len(ids_per_word))
        flat = np.fromiter(chain.from_iterable(ids_per_word), dtype=np.int64, count=int(lens.sum()))
        if nonempty is None:
            counts = lens
        else:
            counts = np.zeros(n, dtype=np.int64)
            counts[np.asarray(nonempty, dtype=np.int64)] = lens
        seg = ids_to_segmentation(
            flat,
            counts,
            self._id_to_piece,
            self.unk_id,
            drop_id=None if self.count_lone_boundary else self.boundary_id,
            byte_ids=self._id_is_byte,
        )
        return seg

    def _surface_unknowns(self, seg: Segmentation, words: Sequence[str]) -> None:
        """Show unknown pieces as the text they cover (as ``encode(out_type=str)`` does), not ``<unk>``.

        Only the few words holding an unknown piece are re-encoded; the ``unk`` flags stay.
        """
        unk_pos = np.flatnonzero(seg.unk)
        word_idx = np.unique(np.searchsorted(seg.offsets, unk_pos, side="right") - 1)
        texts = self._encode([words[i] for i in word_idx], str)
        for i, pieces in zip(word_idx.tolist(), texts):
            start, stop = int(seg.offsets[i]), int(seg.offsets[i + 1])
            if not self.count_lone_boundary and len(pieces) > 1:
                pieces = [p for p in pieces if p != BOUNDARY] or pieces[:1]
            if len(pieces) != stop - start:  # never expected: refuse a silent shift
                raise AlignmentError(
                    f"{self.model_file}: word {words[i]!r} gave {len(pieces)} pieces as text but {stop - start} as ids"
                )
            seg.pieces[start:stop] = pieces


def ids_to_segmentation(
    flat_ids: np.ndarray,
    counts: np.ndarray,
    id_to_piece: np.ndarray,
    unk_id: int,
    *,
    drop_id: int | None = None,
    byte_ids: np.ndarray | None = None,
) -> Segmentation:
    """Flat piece ids + pieces per word -> :class:`Segmentation` (shared by all segmenters).

    ``drop_id``: a piece id to drop wherever its word has other pieces (the lone boundary).
    ``byte_ids``: ``bool`` per vocabulary id, ``True`` for a byte-fallback piece (``None``: none).
    """
    if drop_id is not None and drop_id >= 0 and len(flat_ids):
        word_of_piece = np.repeat(np.arange(len(counts)), counts)
        keep = (flat_ids != drop_id) | (counts[word_of_piece] == 1)
        if not keep.all():
            flat_ids = flat_ids[keep]
            counts = np.bincount(word_of_piece[keep], minlength=len(counts)).astype(np.int64)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    pieces = id_to_piece[flat_ids].tolist() if len(flat_ids) else []
    unk = flat_ids == unk_id if unk_id is not None and unk_id >= 0 else np.zeros(len(flat_ids), dtype=bool)
    byte = byte_ids[flat_ids] if byte_ids is not None else None
    return Segmentation(
        pieces, offsets, np.asarray(unk, dtype=bool), ids=np.asarray(flat_ids, dtype=np.int64), byte=byte
    )


def default_name(path: Path) -> str:
    """Display name of a tokenizer file or directory: the directory for generic file names."""
    path = Path(path)
    if path.is_dir():
        return path.resolve().name
    generic = {
        "spiece.model",
        "tokenizer.json",
        "vocab.txt",
        "sentencepiece.bpe.model",
        "tokenizer.model",
        "tekken.json",
    }
    # Mistral ships versioned models: tokenizer.model.v1, tokenizer.model.v3
    versioned = path.name.startswith("tokenizer.model.v")
    return path.resolve().parent.name if path.name in generic or versioned else path.stem
