"""Validate uploaded bytes, then store them where the path loaders can read them.

An upload is checked before anything parses it for real: size limit, then format
sniffing (a SentencePiece ``ModelProto`` must parse, a ``tokenizer.json`` must be a JSON
object describing a model, a CoNLL or predictions file must be UTF-8 text, optionally
gzipped). Accepted bytes are written under a per-content directory of the app's own
upload folder with a fixed file name (never the client's), then loaded with
:mod:`analysis_app.services.loading`, whose :class:`InputError` carries the message.
Nothing is executed or unpickled.

>>> check_size(b"x" * 10, max_bytes=5, filename="a.model")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
InputError: a.model: 10 bytes is over the upload limit of 5 bytes
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from analysis_app.services.loading import InputError
from tokstudy.fileio import atomic_write_bytes

#: what each upload kind is stored as (the loaders recognise these names).
STORED_NAMES = {
    "sentencepiece": "spiece.model",
    "tokenizer.json": "tokenizer.json",
    "conll": "data.conll",
    "predictions": "predictions.tsv",
}


def upload_root() -> Path:
    """The app's own folder for accepted uploads (``$TMPDIR/tokstudy_app_uploads``)."""
    root = Path(os.environ.get("TOKSTUDY_APP_UPLOAD_DIR") or Path(tempfile.gettempdir()) / "tokstudy_app_uploads")
    root.mkdir(parents=True, exist_ok=True)
    return root


def display_name(filename: str) -> str:
    """A safe short name derived from the client's file name (letters, digits, ``._-``)."""
    base = Path(filename.replace("\\", "/")).name
    for suffix in (".gz", ".model", ".json", ".conll", ".txt", ".tsv"):
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("._")[:60]
    return clean or "upload"


def check_size(data: bytes, *, max_bytes: int, filename: str) -> None:
    if not data:
        raise InputError(f"{filename}: the file is empty")
    if len(data) > max_bytes:
        raise InputError(f"{filename}: {len(data)} bytes is over the upload limit of {max_bytes} bytes")


def sniff_tokenizer(data: bytes, filename: str) -> str:
    """``"sentencepiece"`` or ``"tokenizer.json"`` for valid bytes; :class:`InputError` otherwise."""
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        _check_tokenizer_json(data, filename)
        return "tokenizer.json"
    if filename.endswith(".json"):
        raise InputError(f"{filename}: not JSON (a tokenizer.json file starts with '{{')")
    _check_sentencepiece(data, filename)
    return "sentencepiece"


def _check_sentencepiece(data: bytes, filename: str) -> None:
    import sentencepiece as spm  # deferred: the C++ extension, only to check an uploaded model

    proc = spm.SentencePieceProcessor()
    try:
        # parses the ModelProto in C++; nothing in it is executed
        proc.LoadFromSerializedProto(data)
    except Exception as exc:  # sentencepiece raises RuntimeError/OSError with C++ messages
        raise InputError(
            f"{filename}: not a SentencePiece model (expected a serialized ModelProto .model file; {_short(exc)})"
        ) from None
    if proc.get_piece_size() <= 0:
        raise InputError(f"{filename}: the SentencePiece model has an empty vocabulary")


def _check_tokenizer_json(data: bytes, filename: str) -> None:
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{filename}: not valid JSON ({_short(exc)})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("model"), dict) or "type" not in obj["model"]:
        raise InputError(
            f"{filename}: JSON, but not a Hugging Face tokenizer.json "
            "(expected an object with a 'model' entry that has a 'type')"
        )
    try:
        from tokenizers import Tokenizer  # deferred: the Rust extension, only to check an uploaded tokenizer.json

        Tokenizer.from_str(data.decode("utf-8"))
    except Exception as exc:  # the Rust parser's error, as text
        raise InputError(f"{filename}: the tokenizers library rejects this tokenizer.json ({_short(exc)})") from None


def sniff_text(data: bytes, filename: str) -> bytes:
    """The UTF-8 text bytes of a (possibly gzipped) text upload; :class:`InputError` for binary data."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(f"{filename}: a broken gzip file ({_short(exc)})") from None
    if b"\x00" in data[:4096]:
        raise InputError(f"{filename}: binary data, expected a text file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{filename}: not UTF-8 text (byte {exc.start} is invalid)") from None
    return data


def store(data: bytes, kind: str) -> Path:
    """Write accepted bytes to ``<upload_root>/<kind>-<sha256>/<fixed name>``; returns the file."""
    return store_as(data, kind.replace(".", "_"), STORED_NAMES[kind])


def store_as(data: bytes, prefix: str, name: str) -> Path:
    """Write ``data`` once to ``<upload_root>/<prefix>-<sha256>/<name>`` (atomically: a concurrent reader never
    sees half a file); returns the file."""
    path = upload_root() / f"{prefix}-{hashlib.sha256(data).hexdigest()[:24]}" / name
    if not path.exists():
        atomic_write_bytes(path, data, durable=True)
    return path


def accept_tokenizer_upload(filename: str, data: bytes, *, max_bytes: int) -> tuple[Path, str]:
    """Validate a tokenizer upload; returns (stored path, display name)."""
    check_size(data, max_bytes=max_bytes, filename=filename)
    kind = sniff_tokenizer(data, filename)
    return store(data, kind), display_name(filename)


def accept_text_upload(filename: str, data: bytes, *, kind: str, max_bytes: int) -> tuple[Path, str]:
    """Validate a CoNLL (``kind="conll"``) or predictions upload; returns (stored path, display name)."""
    check_size(data, max_bytes=max_bytes, filename=filename)
    text = sniff_text(data, filename)
    return store(text, kind), display_name(filename)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or type(exc).__name__
