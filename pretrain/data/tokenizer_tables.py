"""What ``pretrain prepare`` needs from a sentencepiece model, computed once: the ALBERT special pieces' ids, which
pieces start a word (for whole-word masking), the ordinary pieces a random replacement is drawn from, and the model
file's hash (part of the store's identity).

>>> model_file_of("runs/tok")  # doctest: +SKIP
PosixPath('runs/tok/spiece.model')
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pretrain.data.masking import is_word_start_piece
from tokstudy.errors import TokenizerLoadError

SPECIAL_PIECES = {"cls": "[CLS]", "sep": "[SEP]", "mask": "[MASK]"}


@dataclass(frozen=True)
class TokenizerTables:
    """What prepare needs from a sentencepiece model, computed once."""

    model_file: Path
    """The SentencePiece ``.model`` file."""
    sha256: str
    """Hash of the model file (part of the store's identity, so a changed tokenizer rebuilds the store)."""
    vocab_size: int
    """Pieces in the vocabulary (V)."""
    special_ids: dict[str, int]
    """Ids of the special pieces (``cls``, ``sep``, ``mask``, ``pad``, ``unk``)."""
    word_start: np.ndarray
    """bool [V]: the piece starts a word (special pieces count as starts)."""
    random_ids: np.ndarray
    """int32: the ordinary pieces a random replacement is drawn from."""


def model_file_of(tokenizer: str | Path) -> Path:
    """``spiece.model`` inside a tokenizer directory, or the given ``.model`` file."""
    path = Path(tokenizer).expanduser()
    if path.is_dir():
        path = path / "spiece.model"
    if not path.is_file():
        raise TokenizerLoadError(
            f"{path}: no sentencepiece model (expected a directory with spiece.model, as "
            f"`tokstudy train-tokenizer` writes, or a .model file)"
        )
    return path


def load_tokenizer_tables(tokenizer: str | Path):
    """The sentencepiece processor and its :class:`TokenizerTables`; ALBERT specials are required."""
    import sentencepiece as spm  # deferred: its C++ extension loads only when a store is prepared

    model_file = model_file_of(tokenizer)
    sp = spm.SentencePieceProcessor()
    try:
        sp.Load(str(model_file))
    except (OSError, RuntimeError) as exc:
        raise TokenizerLoadError(f"{model_file}: cannot load sentencepiece model ({exc})") from exc
    special = {"pad": sp.pad_id(), "unk": sp.unk_id()}
    for key, piece in SPECIAL_PIECES.items():
        pid = sp.piece_to_id(piece)
        special[key] = pid if pid != sp.unk_id() or piece == sp.id_to_piece(pid) else -1
    missing = [k for k, v in special.items() if v < 0]
    if missing:
        raise TokenizerLoadError(
            f"{model_file}: the model lacks ALBERT special pieces {missing}; train it with pad_id=0, unk_id=1 and "
            f"control_symbols [CLS] [SEP] [MASK] (as `tokstudy train-tokenizer` does)"
        )
    v = sp.get_piece_size()
    pieces = [sp.id_to_piece(i) for i in range(v)]
    special_flag = np.array(
        [sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i) or sp.is_byte(i) for i in range(v)], dtype=bool
    )
    special_flag[list(special.values())] = True
    word_start = np.array([is_word_start_piece(p) for p in pieces], dtype=bool) | special_flag
    tables = TokenizerTables(
        model_file=model_file,
        sha256=hashlib.sha256(model_file.read_bytes()).hexdigest(),
        vocab_size=v,
        special_ids=special,
        word_start=word_start,
        random_ids=np.flatnonzero(~special_flag).astype(np.int32),
    )
    return sp, tables
