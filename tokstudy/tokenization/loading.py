"""One entry point for every tokenizer kind: :func:`load_tokenizer`.

What a path or name is taken to be, first match wins:

=========================================  ==========================================
``*.model`` file                           SentencePiece model
``tokenizer.json`` (any ``*.json`` file)   Hugging Face ``tokenizers`` serialisation
``vocab.txt`` (any ``*.txt`` file)         BERT-style WordPiece vocabulary
``*.tiktoken`` file                        tiktoken BPE ranks (``<base64 token> <rank>``)
``tiktoken:<encoding>``                    ``tiktoken.get_encoding`` (online the first time)
directory with ``tokenizer.json``          that file (exact, fast)
directory with ``spiece.model`` /          that SentencePiece model (ALBERT/T5 style
``sentencepiece.bpe.model`` / ``*.model``  directories without ``tokenizer.json``)
directory with ``vocab.txt``               WordPiece (BERT style)
anything else that looks like a hub name   ``tokenizers.Tokenizer.from_pretrained``
=========================================  ==========================================

A directory with both ``tokenizer.json`` and ``spiece.model`` (what
:func:`~tokstudy.tokenization.training.train_tokenizers` writes) loads the SentencePiece
model: it is the reference the HF file was converted from, and both give the same pieces.

>>> sp = load_tokenizer("runs/tok/sp-unigram-32000")        # doctest: +SKIP
>>> sp.name, sp.kind
('sp-unigram-32000', 'sentencepiece')
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization.base import Segmenter
from tokstudy.tokenization.hf import HFTokenizerSegmenter, wordpiece_tokenizer
from tokstudy.tokenization.sentencepiece_ import SentencePieceSegmenter, default_name

_SPM_NAMES = ("spiece.model", "sentencepiece.bpe.model", "tokenizer.model")
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")


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
        path_or_name: a file, a directory, or a Hugging Face hub name (online only).
        name: display name; defaults to the directory or file name.
        count_lone_boundary: whether a lone ``"▁"`` piece counts (see ``base``).
        lowercase: WordPiece ``vocab.txt`` only; ``None`` guesses from the vocabulary.
        tiktoken_pattern: ``.tiktoken`` files only: the pre-tokenizer pattern, a name
            (``"cl100k"``, ``"o200k"``, ``"r50k"``) or a regex; ``None`` picks it by file name
            (see :func:`~tokstudy.tokenization.tiktoken_.pattern_for`).

    Raises:
        TokenizerLoadError: naming the path and what was expected there.
    """
    text = str(path_or_name)
    common = {"count_lone_boundary": count_lone_boundary}
    if text.startswith("tiktoken:"):
        from tokstudy.tokenization.tiktoken_ import TiktokenSegmenter

        return TiktokenSegmenter.from_name(text.removeprefix("tiktoken:"), name=name, **common)
    path = Path(path_or_name).expanduser()
    if path.is_file():
        if path.suffix == ".tiktoken":
            from tokstudy.tokenization.tiktoken_ import TiktokenSegmenter

            return TiktokenSegmenter.from_file(path, name=name or path.stem, pattern=tiktoken_pattern, **common)
        return _load_file(path, name or default_name(path), lowercase, common)
    if path.is_dir():
        for spm_name in _SPM_NAMES:
            if (path / spm_name).is_file():
                return SentencePieceSegmenter(path / spm_name, name=name or default_name(path), **common)
        if (path / "tokenizer.json").is_file():
            return HFTokenizerSegmenter.from_file(path / "tokenizer.json", name=name or default_name(path), **common)
        models = sorted(path.glob("*.model"))
        if len(models) == 1:
            return SentencePieceSegmenter(models[0], name=name or default_name(path), **common)
        if (path / "vocab.txt").is_file():
            return _load_file(path / "vocab.txt", name or default_name(path), lowercase, common)
        raise TokenizerLoadError(
            f"{path}: directory holds no tokenizer (expected tokenizer.json, spiece.model or another "
            f"single *.model file, or vocab.txt)"
        )
    if (
        _HUB_NAME.match(text)
        and not text.startswith((".", "/", "~"))
        and Path(text).suffix not in {".model", ".json", ".txt", ".tiktoken"}
    ):
        return _load_hub(text, name or text.replace("/", "--"), common)
    raise TokenizerLoadError(
        f"{path}: no such file or directory (expected a SentencePiece .model, a tokenizer.json, a vocab.txt, "
        f"a .tiktoken file, a directory holding one of them, a Hugging Face hub name or tiktoken:<encoding>)"
    )


def _load_file(path: Path, name: str, lowercase: bool | None, common: dict) -> Segmenter:
    if path.suffix == ".model":
        return SentencePieceSegmenter(path, name=name, **common)
    if path.suffix == ".json":
        return HFTokenizerSegmenter.from_file(path, name=name, **common)
    if path.suffix == ".txt":
        tok = wordpiece_tokenizer(path, lowercase=lowercase)
        return HFTokenizerSegmenter(tok, name=name, kind="wordpiece", source=str(path), **common)
    raise TokenizerLoadError(
        f"{path}: unknown tokenizer file type {path.suffix!r} (expected .model, tokenizer.json, vocab.txt or .tiktoken)"
    )


def _load_hub(repo: str, name: str, common: dict) -> Segmenter:  # pragma: no cover - needs the network
    """A hub name: ``tokenizer.json`` if the repo has one, else its SentencePiece model."""
    try:
        from tokenizers import Tokenizer

        return HFTokenizerSegmenter(Tokenizer.from_pretrained(repo), name=name, source=repo, **common)
    except Exception as first:
        try:
            from huggingface_hub import hf_hub_download

            for spm_name in _SPM_NAMES:
                try:
                    return SentencePieceSegmenter(hf_hub_download(repo, spm_name), name=name, **common)
                except Exception:
                    continue
        except ImportError:
            pass
        raise TokenizerLoadError(
            f"{repo}: not a local path, and loading it as a Hugging Face hub name failed ({first}); "
            f"expected a .model, tokenizer.json, vocab.txt or a directory holding one"
        ) from first
