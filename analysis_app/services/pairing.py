"""Which tokenizer a model was trained with: the pairing the Errors page's r is measured under.

The paper's measure pairs each model with its own tokenizer: r between the pieces a word gets from the
tokenizer the model was trained with and whether the model mislabelled it. A predictions file says which
model made it (the fine-tuner writes ``# model=<folder>`` in its header), and that folder carries the model's
vocabulary: the exporter copies the tokenizer's files into it byte for byte (``pretrain/export.py``). The
model's tokenizer is the loaded tokenizer whose vocabulary file is the same file. Nothing is inferred from
names: a file with no ``model`` line, or one naming a folder that is not here, has no known pairing, and
:class:`Pairing` says why.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for d in ("tokenizers/spm-8k", "pretrain/spm-8k/run/final_model"):
...     (root / d).mkdir(parents=True)
...     _ = (root / d / "spiece.model").write_bytes(b"vocabulary of spm-8k")
>>> toks = [TokenizerSource("spm-8k", str(root / "tokenizers/spm-8k"))]
>>> preds = PredictionSource("spm-8k", str(root / "predictions/spm-8k/conll2003_test.tsv"), "conll2003_test")
>>> pair(preds, {"model": str(root / "pretrain/spm-8k/run/final_model")}, toks).tokenizer
'spm-8k'
>>> pair(preds, {}, toks).tokenizer is None
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from analysis_app.services.sources import PredictionSource, TokenizerSource

#: the files that define a vocabulary, by kind: a SentencePiece model (any ``*.model``), a Hugging Face
#: ``tokenizer.json``, a WordPiece ``vocab.txt`` (the ones the exporter copies and fingerprints)
_KINDS = {".model": "SentencePiece model", ".json": "tokenizer.json", ".txt": "vocab.txt"}


@dataclass(frozen=True)
class Pairing:
    """A model's own tokenizer, or why it is not known.

    Attributes:
        model: the predictions' model (:attr:`PredictionSource.model`).
        tokenizer: the name of the loaded tokenizer the model was trained with; ``None`` when not known.
        reason: how it is known, or why it is not (a clause, for a sentence on the page).
    """

    model: str
    tokenizer: str | None
    reason: str

    @property
    def known(self) -> bool:
        return self.tokenizer is not None


def pair(pred: PredictionSource, metadata: Mapping[str, str], tokenizers: Sequence[TokenizerSource]) -> Pairing:
    """The tokenizer among ``tokenizers`` that the model of ``pred`` (header ``metadata``) was trained with."""
    reference = metadata.get("model", "").strip()
    if not reference:
        return Pairing(pred.model, None, "its predictions file records no model (no `model=` line in its header)")
    folder = model_folder(reference, pred.path)
    if folder is None:
        return Pairing(
            pred.model, None, f"the model its predictions name ({reference}) is not a folder holding a vocabulary here"
        )
    own = vocabulary_digests(folder)
    for tok in tokenizers:
        theirs = vocabulary_digests(tok.path)
        shared = own.keys() & theirs.keys()
        if shared and all(own[k] == theirs[k] for k in shared):
            files = " and ".join(sorted(shared))
            return Pairing(pred.model, tok.name, f"the model it names ({folder}) carries {tok.name}'s {files}")
    return Pairing(
        pred.model, None, f"the vocabulary of the model it names ({folder}) is none of the loaded tokenizers'"
    )


def model_folder(reference: str, predictions_path: str | Path) -> Path | None:
    """The folder a predictions header's ``model`` names, where it is now; ``None`` when not found.

    First as written; then, for a results folder moved or copied since (the header keeps the path the
    fine-tuner saw), the same path's tail under the folder that holds ``predictions/``, longest tail first
    (``/old/results/pretrain/spm-8k/run/final_model`` is found as ``<results>/pretrain/spm-8k/run/final_model``).
    Only a folder holding a vocabulary file counts.
    """
    ref = Path(reference)
    candidates = [ref]
    root = results_root(predictions_path)
    if root is not None:
        parts = ref.parts[1:] if ref.is_absolute() else ref.parts
        # tails of two parts or more: a lone "final_model" could be any model's
        candidates += [root.joinpath(*parts[i:]) for i in range(max(len(parts) - 1, 0))]
    return next((c for c in candidates if c.is_dir() and vocabulary_digests(c)), None)


def results_root(predictions_path: str | Path) -> Path | None:
    """The folder holding the ``predictions/`` folder a predictions file lies under (``None`` if none).

    >>> results_root("/r/predictions/spm-8k/conll2003_test.tsv").as_posix(), results_root("/up/x.tsv")
    ('/r', None)
    """
    return next((p.parent for p in Path(predictions_path).parents if p.name == "predictions"), None)


def vocabulary_digests(path: str | Path) -> dict[str, str]:
    """sha256 of each vocabulary file of a tokenizer or model folder (or of a lone tokenizer file), by kind.

    A folder with several ``*.model`` files names no single SentencePiece model: none of them counts.
    """
    path = Path(path)
    if path.is_file():
        files = [path]
    elif path.is_dir():
        models = sorted(path.glob("*.model"))
        files = [p for p in (path / "tokenizer.json", path / "vocab.txt") if p.is_file()]
        files += models if len(models) == 1 else []
    else:
        return {}
    digests = {_KINDS[f.suffix]: _sha256(f) for f in files if f.suffix in _KINDS}
    return {kind: digest for kind, digest in digests.items() if digest}


def _sha256(path: Path) -> str:
    """The file's sha256; ``""`` when it cannot be read (it then matches nothing)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return ""
    return h.hexdigest()
