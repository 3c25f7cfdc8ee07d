"""One entry point for every tokenizer kind: :func:`load_tokenizer`.

What a path or name is taken to be, first match wins:

=========================================  ==========================================
``*.tiktoken`` file                        tiktoken BPE ranks (``<base64 token> <rank>``);
                                           its pre-tokenizer pattern must be known
                                           (:func:`~tokstudy.tokenization.tiktoken_.pattern_for`)
``*.json`` file                            Hugging Face ``tokenizers`` serialisation
                                           (``tokenizer.json``), or Mistral's Tekken JSON
                                           (``tekken.json``), told apart by content
``*.txt`` file                             BERT-style WordPiece vocabulary (``vocab.txt``)
any other file                             by its content (:func:`file_format`): a
                                           SentencePiece model (protobuf), whatever its
                                           name (``tokenizer.model.v1``), tiktoken ranks
                                           (Llama 3's ``tokenizer.model``) or JSON
``tiktoken:<encoding>``                    ``tiktoken.get_encoding`` (online the first
                                           time, then from tiktoken's cache)
directory with ``spiece.model`` /          that SentencePiece model (ALBERT/T5 style
``sentencepiece.bpe.model`` /              directories)
``tokenizer.model``
directory with ``tokenizer.json``          that file (exact, fast)
directory with ``tekken.json``             that Tekken file (Mistral)
directory with one ``*.model``,            that file; several are refused, named
``*.model.v*`` or ``*.tiktoken`` file      (which one is meant cannot be guessed)
directory with ``vocab.txt``               WordPiece (BERT style)
model directory (``config.json`` beside    the model's own tokenizer, as it segments
the tokenizer files: ``save_pretrained``)  words for the model (below)
=========================================  ==========================================

A directory with both ``tokenizer.json`` and ``spiece.model`` (what
:func:`~tokstudy.tokenization.training.train_tokenizers` writes) loads the SentencePiece
model: it is the reference the HF file was converted from, and both give the same pieces.

A model directory loads what ``AutoTokenizer.from_pretrained(dir)`` reads: ``tokenizer.json``
first (an ALBERT model's ``spiece.model`` lacks the lowercasing its tokenizer applies), else
``vocab.txt``, else its SentencePiece model; the settings its tokenizer class takes from
``tokenizer_config.json`` are put back in (:mod:`.model_directory`), so each word is segmented
as ``tokenizer(words, is_split_into_words=True)`` hands it to a token-classification model.
A Hugging Face hub name (``owner/name``) is resolved to such a directory in the hub cache one
layer up, by :func:`tokstudy.inputs.load_tokenizer_path` (:mod:`tokstudy.inputs.hub_models`),
which the command line's ``-t`` calls.

>>> sp = load_tokenizer("runs/tok/sp-unigram-32000")        # doctest: +SKIP
>>> sp.name, sp.kind
('sp-unigram-32000', 'sentencepiece')
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization.base import Segmenter
from tokstudy.tokenization.hf import HFTokenizerSegmenter, tokenizer_from_json, wordpiece_tokenizer
from tokstudy.tokenization.model_directory import apply_settings, is_model_directory, read_settings
from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter, default_name
from tokstudy.tokenization.tekken import TekkenSegmenter, is_tekken
from tokstudy.tokenization.tiktoken_ import TiktokenSegmenter

_SPM_NAMES = ("spiece.model", "sentencepiece.bpe.model", "tokenizer.model")
#: what may be meant as a hub name (``owner/name[@revision]``), to say where those are loaded
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+(@[\w.\-/]+)?$")


def load_tokenizer(
    path_or_name: str | os.PathLike,
    *,
    name: str | None = None,
    count_lone_boundary: bool = True,
    lowercase: bool | None = None,
    tiktoken_pattern: str | None = None,
) -> Segmenter:
    """Load a tokenizer as a :class:`Segmenter`.

    Args:
        path_or_name: a file, a directory (a model directory included), or ``tiktoken:<encoding>``; a Hugging
            Face hub name is resolved to its directory by :func:`tokstudy.inputs.load_tokenizer_path`.
        name: display name; defaults to the directory or file name.
        count_lone_boundary: whether a lone ``"▁"`` piece counts (see ``base``).
        lowercase: WordPiece ``vocab.txt`` only; ``None`` guesses from the vocabulary.
        tiktoken_pattern: tiktoken rank files only: the pre-tokenizer pattern, a name
            (``"cl100k"``, ``"o200k"``, ``"r50k"``) or a regex; ``None`` takes it from the file's
            sidecar or its name, else refuses the file (see
            :func:`~tokstudy.tokenization.tiktoken_.pattern_for`).

    Raises:
        TokenizerLoadError: naming the path and what was expected there.
    """
    text = str(path_or_name)
    common = {"count_lone_boundary": count_lone_boundary}
    if text.startswith("tiktoken:"):
        return TiktokenSegmenter.from_name(text.removeprefix("tiktoken:"), name=name, **common)
    path = Path(path_or_name).expanduser()
    if path.is_file():
        return _load_file(path, name, lowercase, tiktoken_pattern, common)
    if path.is_dir() and is_model_directory(path):
        return _load_model_directory(path, name or default_name(path), common)
    if path.is_dir():
        found = _tokenizer_in_directory(path)
        return _load_file(found, name or default_name(path), lowercase, tiktoken_pattern, common)
    if _HUB_NAME.match(text) and not text.startswith((".", "/", "~")):
        raise TokenizerLoadError(
            f"{path}: no such file or directory; a Hugging Face hub name is loaded from the hub cache by "
            f"tokstudy.inputs.load_tokenizer_path({text!r}), as -t does (expected {ACCEPTED})"
        )
    raise TokenizerLoadError(f"{path}: no such file or directory (expected {ACCEPTED})")


#: what a tokenizer argument may be, for messages and help texts
ACCEPTED = (
    "a SentencePiece model (.model, whatever its suffix), a tokenizer.json, a Tekken tekken.json, a vocab.txt, "
    "a .tiktoken file, a directory holding one of them, a model directory (config.json beside the tokenizer "
    "files: the model's own tokenizer), a Hugging Face hub name owner/name[@revision] (read from the hub cache, "
    "downloaded when online) or tiktoken:<encoding>"
)


def _tokenizer_in_directory(path: Path) -> Path:
    """The tokenizer file of a directory (the order of the module docstring's table).

    A directory holding several tokenizer files and none of the standard names (``a.model`` and
    ``b.model``, ``tokenizer.model.v1`` and ``tokenizer.model.v3``) is refused with their names: which one
    is meant cannot be guessed.
    """
    for file_name in (*_SPM_NAMES, "tokenizer.json", "tekken.json"):
        if (path / file_name).is_file():
            return path / file_name
    found = sorted({f for pattern in _FILE_PATTERNS for f in path.glob(pattern) if f.is_file()})
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(f.name for f in found)
        raise TokenizerLoadError(
            f"{path}: directory holds {len(found)} tokenizer files ({names}); which one? "
            f"Give it as the path, e.g. {path / found[0].name}"
        )
    if (path / "vocab.txt").is_file():
        return path / "vocab.txt"
    held = sorted(f.name for f in path.iterdir())
    listing = ", ".join(held[:8]) + (f" and {len(held) - 8} more" if len(held) > 8 else "") if held else "nothing"
    raise TokenizerLoadError(
        f"{path}: directory holds no tokenizer (expected tokenizer.json, spiece.model or another "
        f"single *.model file, a Mistral tekken.json, a .tiktoken file, or vocab.txt; it holds {listing})"
    )


#: tokenizer files a directory may hold under a name of their own (one of them is loaded when it is alone)
_FILE_PATTERNS = ("*.model", "*.model.v*", "*.tiktoken")


def file_format(path: Path, *, default: str | None = None) -> str:
    """What a tokenizer file holds, from its first bytes: ``"sentencepiece"``, ``"tiktoken"`` or ``"json"``.

    A SentencePiece model is a protobuf ``ModelProto`` whose first field is its repeated
    ``pieces`` (field 1, length-delimited: byte ``0x0a``); tiktoken ranks are ASCII lines
    ``<base64 token> <rank>``; JSON starts with ``{``. The name is not looked at, so
    ``tokenizer.model.v1`` is a SentencePiece model and Llama 3's ``tokenizer.model`` a
    tiktoken file.

    Raises:
        TokenizerLoadError: naming the file, when it is none of them and no ``default`` is given
            (``.model`` files default to SentencePiece, whose loader then says what is wrong).
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise TokenizerLoadError(f"{path}: cannot read the tokenizer file ({exc})") from exc
    if head[:1] == b"\x0a":
        return "sentencepiece"
    if _TIKTOKEN_LINE.match(head):
        return "tiktoken"
    if head.lstrip()[:1] == b"{":
        return "json"
    if default is not None:
        return default
    raise TokenizerLoadError(
        f"{path}: unknown tokenizer file type (it starts with {head[:16]!r}; expected .model, tokenizer.json, "
        f"vocab.txt or .tiktoken content, or a Tekken tekken.json; files are recognised by content, not by name)"
    )


_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/]+=* \d+\r?\n")


def _load_file(path: Path, name: str | None, lowercase: bool | None, tiktoken_pattern: str | None, common) -> Segmenter:
    if path.suffix == ".txt":
        tok = wordpiece_tokenizer(path, lowercase=lowercase)
        return HFTokenizerSegmenter(tok, name=name or default_name(path), kind="wordpiece", source=str(path), **common)
    if path.suffix in (".tiktoken", ".json"):
        fmt = path.suffix[1:]
    else:
        fmt = file_format(path, default="sentencepiece" if path.suffix == ".model" else None)
    if fmt == "tiktoken":
        display = name or (path.stem if path.suffix == ".tiktoken" else default_name(path))
        return TiktokenSegmenter.from_file(path, name=display, pattern=tiktoken_pattern, **common)
    if fmt == "json":
        return _load_json(path, name or default_name(path), common)
    return SentencePieceSegmenter(path, name=name or default_name(path), **common)


def _load_json(path: Path, name: str, common: dict) -> Segmenter:
    """A ``tokenizer.json``, or a Tekken file (a file named ``tekken*``, or one the Hugging Face loader refuses).

    A file that is neither is refused naming both formats: a JSON syntax error at its line and column
    (Python's count, in characters; the Hugging Face loader's position is that of its own schema
    attempt, not of the error), JSON of another shape with its top-level keys.
    """
    refused = None
    if not path.name.startswith("tekken"):
        try:
            return HFTokenizerSegmenter.from_file(path, name=name, **common)
        except TokenizerLoadError as exc:
            refused = exc
    tried = JSON_FORMATS if refused is not None else TEKKEN_FORMAT
    data = _read_json(path, tried)
    if is_tekken(data):
        return TekkenSegmenter.from_json(data, path, name=name, **common)
    if refused is not None and isinstance(data, dict) and isinstance(data.get("model"), dict):
        raise refused from refused.__cause__  # a tokenizer.json the Hugging Face loader finds wrong: its reason
    keys = ", ".join(repr(k) for k in list(data)[:6]) if isinstance(data, dict) else None
    shape = f"an object with the keys {keys}" if keys else f"a JSON {type(data).__name__}"
    raise TokenizerLoadError(f"{path}: {shape}, which is no tokenizer format tokstudy knows; {tried}") from refused


#: the JSON tokenizer formats, for messages
JSON_FORMATS = (
    "tried as a Hugging Face tokenizer.json (an object with a 'model') and as a Mistral Tekken file "
    "(a 'config' with a 'pattern', and a 'vocab' list)"
)
TEKKEN_FORMAT = "read as a Mistral Tekken file (named tekken*: a 'config' with a 'pattern', and a 'vocab' list)"


def _read_json(path: Path, tried: str):
    """The parsed JSON of a tokenizer file; a syntax error is reported at its line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TokenizerLoadError(f"{path}: not UTF-8 text (byte {exc.start}), so not JSON; {tried}") from exc
    except OSError as exc:
        raise TokenizerLoadError(f"{path}: cannot read the tokenizer file ({exc})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        ends = exc.pos >= len(text.rstrip())
        hint = " (the file ends there: is it cut short, an interrupted download?)" if ends else ""
        raise TokenizerLoadError(
            f"{path}:{exc.lineno}: not valid JSON at column {exc.colno}: {exc.msg}{hint}; {tried}"
        ) from exc


def _load_model_directory(path: Path, name: str, common: dict) -> Segmenter:
    """A model directory's tokenizer, segmenting each word as the model read it (see the module docstring).

    Raises:
        TokenizerLoadError: the directory holds no tokenizer, or only a SentencePiece model its tokenizer
            class changes the text for (ALBERT lowercases and strips accents) with no ``tokenizer.json`` to
            say how.
    """
    settings = read_settings(path)
    if (path / "tokenizer.json").is_file():
        source = path / "tokenizer.json"
        data = _read_json(source, "read as the model's Hugging Face tokenizer.json")
    elif (path / "vocab.txt").is_file() and settings.family in (None, "wordpiece"):
        source = path / "vocab.txt"
        lowercase = settings.lowercase if settings.family else None  # no class: guessed from the vocabulary
        data = json.loads(wordpiece_tokenizer(source, lowercase=lowercase).to_str())
    else:
        found = _tokenizer_in_directory(path)
        if settings.family == "albert" and (settings.lowercase or not settings.keeps_accents):
            raise TokenizerLoadError(
                f"{path}: the model's AlbertTokenizer lowercases and strips accents before {found.name}, and the "
                f'directory holds no tokenizer.json saying how; write one with: python -c "from transformers '
                f"import AutoTokenizer as A; A.from_pretrained('{path}').save_pretrained('{path}')\""
            )
        return _load_file(found, name, None, None, common)
    data = apply_settings(data, settings)
    tok = tokenizer_from_json(data, source)
    kind = "wordpiece" if type(tok.model).__name__ == "WordPiece" else "hf-tokenizers"
    return HFTokenizerSegmenter(tok, name=name, kind=kind, source=str(source), **common)
