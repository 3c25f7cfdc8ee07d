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
* Training settings are read from the model (:func:`model_settings`: the ``trainer_spec`` and
  ``normalizer_spec`` of its ``ModelProto``). A model trained with ``split_by_whitespace=false`` whose
  vocabulary holds pieces that span a word boundary (``▁of▁the``, ``s▁``) can merge a word with its
  neighbours in running text; loading it warns (:class:`CrossWordPiecesWarning`), since a word's pieces
  here are those of the word alone. Without such pieces it splits at every space all the same.

>>> seg = SentencePieceSegmenter("spiece.model")            # doctest: +SKIP
>>> seg.segment(["Washington", ","]).as_lists()             # doctest: +SKIP
[['▁Washington'], ['▁', ',']]
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Sequence

import numpy as np

from tokstudy.errors import AlignmentError, TokenizerLoadError
from tokstudy.tokenization import spm_proto
from tokstudy.tokenization.base import BOUNDARY, Segmentation, Segmenter
from tokstudy.tokenization.context import WordContext

#: text put before each word of a model without a dummy prefix: its pieces are dropped again.
ANCHOR = "a"


class SentencePieceSegmenter(Segmenter):
    """A SentencePiece model applied word by word, in one batch call.

    Args:
        model_file: path of a SentencePiece ``.model`` file.
        name: display name; defaults to the file's name without its extension (:func:`default_name`).
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
        # deferred: a C++ extension (~12 ms), only once a model is loaded
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
        #: the model's training settings that decide how a word stands in a sentence (:func:`model_settings`)
        self.settings = model_settings(sp.serialized_model_proto())
        #: pieces that span a word boundary, possible only without ``split_by_whitespace`` (e.g. ``▁of▁the``)
        self.cross_word_pieces = () if self.settings.split_by_whitespace else cross_word_pieces(sp, path)
        alone = sp.encode(ANCHOR, out_type=int)
        # no dummy prefix: words are encoded after the anchor, whose pieces are then dropped
        self._anchor_ids = [] if alone and sp.id_to_piece(alone[0]).startswith(BOUNDARY) else alone
        self._anchor_pieces = len(self._anchor_ids)
        if self._anchor_pieces:
            self.context = WordContext("sentencepiece", " ", BOUNDARY)

    def _encode(self, words: Sequence[str], out_type):
        """Each word as inside a sentence (see the module docstring)."""
        k = self._anchor_pieces
        if not k:
            return self.processor.encode(list(words), out_type=out_type, num_threads=self.num_threads)
        texts = [f"{ANCHOR} {w}" for w in words]
        out = self.processor.encode(texts, out_type=out_type, num_threads=self.num_threads)
        if not self.cross_word_pieces:
            return [x[k:] for x in out]
        # pieces across words: the anchor may have merged with the word; drop only what it alone covers
        ids = out if out_type is int else self.processor.encode(texts, out_type=int, num_threads=self.num_threads)
        return [x[self._anchor_length(i) :] for x, i in zip(out, ids)]

    def _anchor_length(self, ids: list[int]) -> int:
        """How many leading pieces of ``ANCHOR + " " + word`` are the anchor's: its own pieces, or where it
        merged with the word (pieces across words), those within its text (``ANCHOR`` and ``▁``); a piece
        that runs into the word is the word's."""
        k = self._anchor_pieces
        if ids[:k] == self._anchor_ids:
            return k
        covered, reach = 0, len(ANCHOR) + 1
        for j, i in enumerate(ids):
            covered += len(self._id_to_piece[i])
            if covered >= reach:
                return j + 1 if covered == reach else j
        return len(ids)

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


@dataclass(frozen=True)
class ModelSettings:
    """The training settings of a SentencePiece model that decide how a word stands in a sentence.

    Read from the model file itself (:func:`model_settings`); each default is the ``sentencepiece``
    trainer's, which a model that does not record the field was trained with.
    """

    #: ``trainer_spec.split_by_whitespace``: pieces never span a space (no ``▁of▁the``)
    split_by_whitespace: bool = True
    #: ``trainer_spec.treat_whitespace_as_suffix``: ``▁`` ends a piece instead of starting it
    treat_whitespace_as_suffix: bool = False
    #: ``normalizer_spec.add_dummy_prefix``: a ``▁`` is put before the text, so a word alone gets its ``▁``
    add_dummy_prefix: bool = True
    #: ``normalizer_spec.remove_extra_whitespaces``: leading, trailing and repeated spaces are dropped
    remove_extra_whitespaces: bool = True


#: the settings read from each nested message of ``sentencepiece_model.proto``, by field number (all varints)
_SETTING_FIELDS = {
    spm_proto.TRAINER_SPEC: {22: "split_by_whitespace", 24: "treat_whitespace_as_suffix"},
    spm_proto.NORMALIZER_SPEC: {3: "add_dummy_prefix", 4: "remove_extra_whitespaces"},
}


def model_settings(proto: bytes) -> ModelSettings:
    """The :class:`ModelSettings` of a serialised ``ModelProto`` (a ``.model`` file's bytes), read from its
    ``trainer_spec`` and ``normalizer_spec`` messages (:mod:`tokstudy.tokenization.spm_proto`).

    >>> settings = model_settings(bytes.fromhex("1203b00100"))  # trainer_spec {split_by_whitespace: false}
    >>> settings.split_by_whitespace, settings.add_dummy_prefix
    (False, True)
    """
    found = {}
    for message, names in _SETTING_FIELDS.items():
        for n, w, v in spm_proto.settings_fields(proto, message):
            if n in names and w == spm_proto.VARINT:
                found[names[n]] = bool(v)
    return ModelSettings(**found)


class CrossWordPiecesWarning(UserWarning):
    """A SentencePiece model has pieces spanning a word boundary: its per-word pieces may differ from the
    pieces it gives a word inside a sentence."""


def cross_word_pieces(sp, path: Path) -> tuple[str, ...]:
    """The pieces of a model that hold a word boundary ``▁`` after their first character (``▁of▁the``,
    ``s▁``): with them the model can merge words in running text. Warns when there are any."""
    special = (sp.is_control, sp.is_unknown, sp.is_byte, sp.is_unused)
    pieces = tuple(
        p
        for i in range(sp.get_piece_size())
        if BOUNDARY in (p := sp.id_to_piece(i))[1:] and not any(test(i) for test in special)
    )
    if pieces:
        examples = ", ".join(repr(p) for p in pieces[:3])
        warnings.warn(
            f"{path}: trained with split_by_whitespace=false, and {len(pieces)} of its pieces span a word "
            f"boundary ({examples}, ...): tokstudy segments each word on its own, while in running text this "
            "model may merge a word with its neighbours into one piece, so per-word figures can differ from "
            "those of the sentence encoding",
            CrossWordPiecesWarning,
            stacklevel=3,
        )
    return pieces


def default_name(path: Path) -> str:
    """Display name of a tokenizer: a directory's name, or a file's name without its format extension.

    A file is named after itself, generic names included: ``data/tokenizer.model.v1`` is
    ``tokenizer.v1`` (the folder it lies in may be any folder, ``data`` or ``Downloads``), and two files
    of one name are told apart by their folders where they are loaded together
    (:func:`~tokstudy.inputs.load_tokenizers`). A Hugging Face or Mistral directory given as
    such is named after the directory.

    >>> [default_name(Path(n)) for n in ("sp32k.model", "tokenizer.model.v3", "tekken.json", "weights.bin")]
    ['sp32k', 'tokenizer.v3', 'tekken', 'weights']
    """
    path = Path(path)
    if path.is_dir():
        return path.resolve().name
    # Mistral ships versioned models (tokenizer.model.v1, tokenizer.model.v3): the version tells them apart
    known = _FORMAT_NAME.fullmatch(path.name)
    if known:
        return known["stem"] + (known["version"] or "")
    return path.name.split(".")[0] or path.name


#: a tokenizer file name: its stem, its format extension, and a version after it (``tokenizer.model.v1``)
_FORMAT_NAME = re.compile(r"(?P<stem>.+?)\.(?:model|json|txt|tiktoken)(?P<version>\.v\d+)?")
