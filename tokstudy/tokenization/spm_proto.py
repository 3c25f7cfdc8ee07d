"""The protobuf wire format of a SentencePiece ``.model`` file (a serialised ``ModelProto``), read directly.

The ``sentencepiece`` package reads the model's settings but does not expose most of them, and its generated
``sentencepiece_model_pb2`` needs ``protobuf``, which tokstudy does not require. A message is a run of fields,
each a tag ``number << 3 | wire type`` (a varint) followed by its value: a varint (wire type 0), 8 or 4 bytes
(1, 5), or a length-delimited run of bytes (2: a string or a nested message).

>>> [(n, w, v) for n, w, v in fields(bytes.fromhex("1203b00100"))]  # trainer_spec {split_by_whitespace: false}
[(2, 2, b'\\xb0\\x01\\x00')]
>>> list(fields(b"\\xb0\\x01\\x00"))  # field 22, varint 0
[(22, 0, 0)]
"""

from __future__ import annotations

from typing import Iterator

from tokstudy.errors import TokenizerLoadError

#: the field numbers of ``ModelProto``'s nested settings messages, in ``sentencepiece_model.proto``
TRAINER_SPEC, NORMALIZER_SPEC = 2, 3
#: wire types: a varint, 8 bytes, a length-delimited value, 4 bytes
VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


def fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """``(field number, wire type, value)`` of each field of a protobuf message: an int for a varint, the bytes
    of the value otherwise. A cut-short message or an unknown wire type raises
    :class:`~tokstudy.errors.TokenizerLoadError` naming the byte."""
    pos, end = 0, len(data)
    while pos < end:
        tag, pos = varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == VARINT:
            value, pos = varint(data, pos)
            yield number, wire, value
            continue
        if wire == LENGTH_DELIMITED:
            size, pos = varint(data, pos)
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
        else:
            raise TokenizerLoadError(f"SentencePiece model: unexpected protobuf wire type {wire} at byte {pos}")
        if pos + size > end:
            raise TokenizerLoadError(f"SentencePiece model: protobuf message cut short at byte {end}")
        yield number, wire, data[pos : pos + size]
        pos += size


def varint(data: bytes, pos: int) -> tuple[int, int]:
    """The base-128 varint starting at byte ``pos`` and the position after it (7 bits a byte, low first).

    >>> varint(bytes([0xAC, 0x02]), 0)
    (300, 2)
    """
    value = shift = 0
    while True:
        if pos >= len(data):
            raise TokenizerLoadError("SentencePiece model: protobuf message cut short")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if byte < 0x80:
            return value, pos


def settings_fields(model: bytes, message: int) -> Iterator[tuple[int, int, int | bytes]]:
    """The fields of every ``message`` (:data:`TRAINER_SPEC`, :data:`NORMALIZER_SPEC`) nested in ``model``."""
    for number, wire, value in fields(model):
        if number == message and wire == LENGTH_DELIMITED:
            yield from fields(value)
