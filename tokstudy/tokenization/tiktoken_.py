"""tiktoken encodings (GPT-4 / GPT-4o style byte-level BPE) as a :class:`Segmenter`.

Two ways in, both through :func:`~tokstudy.tokenization.loading.load_tokenizer`:

* a ``.tiktoken`` file: one ``<base64 token> <rank>`` per line, as OpenAI and several
  open models ship their vocabularies. The file holds no pre-tokenizer pattern, and the
  wrong pattern gives wrong pieces without a word (a Bengali vocabulary split with
  cl100k's pattern gave 48 % more pieces than its own), so the pattern must be known; the
  first of these that is given wins (:func:`pattern_for`):

  1. ``pattern=`` (``--tiktoken-pattern`` on the command line): a name (``"r50k"``/``"gpt2"``,
     ``"p50k"``, ``"cl100k"``, ``"o200k"``, with or without ``_base``) or the regex itself;
  2. a *pattern sidecar*: a text file beside it named like it plus ``.pattern``
     (``mytok.tiktoken.pattern``), holding such a name or the regex on its first line;
  3. the OpenAI encoding the file is named after (``o200k_base.tiktoken`` -> o200k's);

  otherwise loading stops with an error naming the file;
* Mistral's Tekken JSON (``tekken.json``, as ``mistral-common`` ships it), which carries its
  own pattern (:mod:`tokstudy.tokenization.tekken`);
* ``tiktoken:<encoding name>`` (``tiktoken:cl100k_base``): ``tiktoken.get_encoding``,
  which downloads the ranks once (online) and caches them (in ``$TIKTOKEN_CACHE_DIR`` when
  set, so a machine offline can use a cache filled elsewhere).

A tiktoken encoding is byte-level BPE, so each word is encoded as ``" " + word``, as it
stands after a space in a sentence (:mod:`tokstudy.tokenization.context`): the pattern
starts a chunk at that space and never runs across it into the next word. Pieces are
shown in the GPT-2 byte-to-unicode form Hugging Face byte-level tokenizers use (``ĠJapan``
for ``b" Japan"``), so they read alike across the family. Byte-level BPE covers every
byte: there are no unknown pieces.

tiktoken is an optional dependency (``pip install tokstudy[tiktoken]``), imported here only.

>>> seg = load_tokenizer("tiktoken:cl100k_base")                 # doctest: +SKIP
>>> seg.segment(["Japan", "123"]).as_lists()                     # doctest: +SKIP
[['ĠJapan'], ['Ġ', '123']]
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from tokstudy.errors import DataFormatError, TokenizerLoadError
from tokstudy.tokenization.base import Segmentation, Segmenter
from tokstudy.tokenization.context import BYTE_LEVEL_SPACE, WordContext
from tokstudy.tokenization.sentencepiece_ import ids_to_segmentation

#: pre-tokenizer patterns of OpenAI's encodings (from ``tiktoken_ext.openai_public``).
PATTERNS = {
    "r50k": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""",
    "cl100k": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
        r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}
PATTERNS["gpt2"] = PATTERNS["r50k"]
PATTERNS["p50k"] = PATTERNS["r50k"]

BYTE_LEVEL = WordContext("byte-level", " ", BYTE_LEVEL_SPACE)


@lru_cache(maxsize=1)
def byte_to_unicode() -> tuple[str, ...]:
    """GPT-2's map from a byte to the printable character byte-level BPE shows for it (``0x20`` -> ``Ġ``)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    out, extra = {}, 0
    for b in range(256):
        if b in printable:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return tuple(out[b] for b in range(256))


def read_tiktoken_ranks(path: str | os.PathLike) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (``<base64 token> <rank>`` per line); errors name file and line."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("ascii")
    except OSError as exc:
        raise TokenizerLoadError(f"{path}: cannot read tiktoken file ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise TokenizerLoadError(
            f"{path}: not a tiktoken file (expected ASCII lines '<base64 token> <rank>'; byte {exc.start} is not ASCII)"
        ) from exc
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise DataFormatError(f"expected '<base64 token> <rank>', got {len(parts)} fields", path=path, line=lineno)
        try:
            token = base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except (binascii.Error, ValueError) as exc:
            raise DataFormatError(
                f"expected '<base64 token> <rank>', got {line[:60]!r} ({exc})", path=path, line=lineno
            ) from exc
        if token in ranks:
            raise DataFormatError(
                f"token {token!r} given twice (ranks {ranks[token]} and {rank})", path=path, line=lineno
            )
        ranks[token] = rank
    if not ranks:
        raise TokenizerLoadError(f"{path}: empty tiktoken file (expected '<base64 token> <rank>' per line)")
    return ranks


#: what a pattern sidecar adds to the name of the file it describes (``mytok.tiktoken.pattern``).
SIDECAR_SUFFIX = ".pattern"
#: the OpenAI encodings a ``.tiktoken`` file may be named after, tried in this order.
_ENCODING_NAMES = ("o200k", "cl100k", "p50k", "r50k", "gpt2")


def pattern_sidecar(path: str | os.PathLike) -> Path:
    """Where the pattern of the tiktoken file ``path`` may be written (``x.tiktoken`` -> ``x.tiktoken.pattern``)."""
    path = Path(path)
    return path.with_name(path.name + SIDECAR_SUFFIX)


def resolve_pattern(text: str, *, where: str) -> str:
    """A pattern name (``cl100k``, ``o200k_base``, ...) -> its regex; anything else is taken as the regex.

    A bare word that names no pattern (``cl100``) is refused rather than used as a regex that
    would split nothing as intended.

    >>> resolve_pattern("cl100k_base", where="x") == PATTERNS["cl100k"]
    True
    """
    name = text.strip().removesuffix("_base")
    if name in PATTERNS:
        return PATTERNS[name]
    if not text.strip() or re.fullmatch(r"[\w-]+", text.strip()):
        raise TokenizerLoadError(
            f"{where}: {text!r} is not a pre-tokenizer pattern; expected one of {', '.join(sorted(PATTERNS))} "
            f"or a regex"
        )
    return text


def pattern_for(path: str | os.PathLike, pattern: str | None) -> str:
    """The pre-tokenizer regex of the ``.tiktoken`` file ``path``: ``pattern`` (a name or a regex),
    else its sidecar (:func:`pattern_sidecar`), else the OpenAI encoding the file is named after.

    Raises:
        TokenizerLoadError: when none of the three gives it (naming the file), or a name is unknown.
    """
    path = Path(path)
    if pattern is not None:
        return resolve_pattern(pattern, where=f"{path}: tiktoken pattern")
    sidecar = pattern_sidecar(path)
    if sidecar.is_file():
        lines = sidecar.read_text(encoding="utf-8").splitlines()
        return resolve_pattern(lines[0] if lines else "", where=str(sidecar))
    stem = path.name.split(".")[0]
    for key in _ENCODING_NAMES:
        if stem.startswith(key):
            return PATTERNS[key]
    raise TokenizerLoadError(
        f"{path}: the pre-tokenizer pattern of this tiktoken file is not known (the file holds none, and its name "
        f"is not an OpenAI encoding's); give it: --tiktoken-pattern NAME|REGEX (NAME one of "
        f"{', '.join(sorted(PATTERNS))}; Python: tiktoken_pattern=), or write it in {sidecar.name} beside the file"
    )


class TiktokenSegmenter(Segmenter):
    """A ``tiktoken.Encoding`` applied word by word, each word as it stands after a space.

    Args:
        encoding: a ``tiktoken.Encoding``.
        name: display name.
        count_lone_boundary: count a lone ``Ġ`` piece (a space the pattern keeps apart, as before digits).
        source: where it was loaded from (for messages).
    """

    kind = "tiktoken"
    context = BYTE_LEVEL

    def __init__(self, encoding, *, name: str, count_lone_boundary: bool = True, source: str | None = None):
        self.encoding = encoding
        self.name = name
        self.count_lone_boundary = count_lone_boundary
        self.source = source
        self.vocab_size = encoding.n_vocab
        table = byte_to_unicode()
        pieces = np.empty(encoding.max_token_value + 1, dtype=object)
        for i in range(len(pieces)):
            try:
                raw = encoding.decode_single_token_bytes(i)
            except KeyError:  # a hole in the ranks
                raw = b""
            pieces[i] = "".join(table[b] for b in raw)
        self._id_to_piece = pieces
        try:
            self.boundary_id = encoding.encode_single_token(b" ")
        except KeyError:
            self.boundary_id = -1

    @classmethod
    def from_file(
        cls, path: str | os.PathLike, *, name: str, pattern: str | None = None, **kwargs
    ) -> TiktokenSegmenter:
        """Load a ``.tiktoken`` rank file with the pre-tokenizer ``pattern`` (see :func:`pattern_for`)."""
        tiktoken = import_tiktoken()
        path = Path(path)
        ranks = read_tiktoken_ranks(path)
        try:
            enc = tiktoken.Encoding(name, pat_str=pattern_for(path, pattern), mergeable_ranks=ranks, special_tokens={})
        except ValueError as exc:
            raise TokenizerLoadError(f"{path}: not a usable tiktoken encoding ({exc})") from exc
        kwargs.setdefault("source", str(path))
        return cls(enc, name=name, **kwargs)

    @classmethod
    def from_name(cls, encoding_name: str, *, name: str | None = None, **kwargs) -> TiktokenSegmenter:
        """``tiktoken.get_encoding(encoding_name)``: downloads the ranks the first time (needs the network)."""
        tiktoken = import_tiktoken()
        try:
            enc = tiktoken.get_encoding(encoding_name)
        except ValueError as exc:
            raise TokenizerLoadError(
                f"tiktoken:{encoding_name}: unknown tiktoken encoding (expected a name tiktoken.get_encoding "
                f"knows, e.g. cl100k_base or o200k_base; tiktoken.list_encoding_names() lists them)"
            ) from exc
        except Exception as exc:  # network errors come in many types (requests', urllib3's, OSError)
            raise TokenizerLoadError(
                f"tiktoken:{encoding_name}: could not load the encoding: tiktoken downloads it on first use and "
                f"then reads it from its cache, {tiktoken_cache()}; offline, copy that folder from a machine where "
                f"tiktoken:{encoding_name} loaded (or set TIKTOKEN_CACHE_DIR to a folder holding its cached file), "
                f"or give the ranks as a .tiktoken file with --tiktoken-pattern ({type(exc).__name__}: {exc})"
            ) from exc
        kwargs.setdefault("source", f"tiktoken:{encoding_name}")
        return cls(enc, name=name or encoding_name, **kwargs)

    def segment(self, words: Sequence[str]) -> Segmentation:
        n = len(words)
        keep = [i for i, w in enumerate(words) if w]
        batch = [" " + words[i] for i in keep]
        ids = self.encoding.encode_ordinary_batch(batch) if batch else []
        lens = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter((t for x in ids for t in x), dtype=np.int64, count=int(lens.sum()))
        counts = np.zeros(n, dtype=np.int64)
        if keep:
            counts[np.asarray(keep, dtype=np.int64)] = lens
        return ids_to_segmentation(
            flat, counts, self._id_to_piece, -1, drop_id=None if self.count_lone_boundary else self.boundary_id
        )


def tiktoken_cache() -> str:
    """Where ``tiktoken.get_encoding`` keeps the files it downloads, as its ``load.read_file_cached`` decides.

    >>> "TIKTOKEN_CACHE_DIR" in tiktoken_cache()
    True
    """
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            value = os.environ[variable]
            return f"{variable}={value}" if value else f"{variable} is empty, which turns the cache off"
    default = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return f"{default} (TIKTOKEN_CACHE_DIR is not set)"


def import_tiktoken():
    try:
        import tiktoken  # deferred: optional (tokstudy[tiktoken]); its absence is a message, not a crash
    except ImportError as exc:
        raise TokenizerLoadError(
            "tiktoken encodings need the tiktoken package: pip install 'tokstudy[tiktoken]'"
        ) from exc
    return tiktoken
