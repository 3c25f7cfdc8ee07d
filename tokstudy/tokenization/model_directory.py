"""A model directory's tokenizer, as the model's own fast tokenizer applies it.

A directory written by ``save_pretrained`` (``config.json``, the weights, the tokenizer files) is read by
``AutoTokenizer.from_pretrained(dir)``, and a model fine-tuned for token classification encodes
``tokenizer(words, is_split_into_words=True)`` with it. Its tokenizer class (``tokenizer_class`` in
``tokenizer_config.json``, else the one of ``config.json``'s ``model_type``) builds the normaliser and the
pre-tokenizer from its own settings, saved in ``tokenizer_config.json`` or left at the class default, and
takes the vocabulary from ``tokenizer.json``. So the pieces the model saw for a word are those of
``tokenizer.json`` with these settings put back in:

=================================  ====================================  ======================================
family (tokenizer classes)         settings (default when not saved)     what they decide
=================================  ====================================  ======================================
WordPiece (BERT, DistilBERT)       ``do_lower_case`` (true),             the ``BertNormalizer``: a cased
                                   ``strip_accents``,                    vocabulary read by a lowercasing
                                   ``tokenize_chinese_chars`` (true)     class sees lowercase words
ALBERT (SentencePiece)             ``do_lower_case`` (true),             lowercasing and accent stripping
                                   ``keep_accents`` (false)              before the pieces
=================================  ====================================  ======================================

``add_prefix_space`` is read as on, whatever was saved: token classification loads byte-level BPE (RoBERTa,
GPT-2, DeBERTa) and SentencePiece (ALBERT, XLM-R, CamemBERT) tokenizers with it, so that each pre-split word is
read as after a space (``ĠParis``, ``▁Paris``), as in running text. ``pretrain evaluate`` does
(:mod:`pretrain.finetune.token_classifier`), as Hugging Face's ``run_ner`` does for RoBERTa, and the
in-context definition (:mod:`.context`) is the same; roberta-base saves it off, and read bare each word would
start as if it opened the text (``Paris``).

Any other tokenizer class (``PreTrainedTokenizerFast``, what ``tokstudy train-tokenizer`` writes) reads
``tokenizer.json`` as it is, and so does tokstudy.

>>> family_of({"tokenizer_class": "RobertaTokenizerFast"}, {})
'byte-level'
>>> family_of({}, {"model_type": "bert"})
'wordpiece'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tokstudy.errors import TokenizerLoadError

#: tokenizer class (``Fast`` dropped) -> the family whose settings it applies
_CLASSES = {
    "BertTokenizer": "wordpiece",
    "DistilBertTokenizer": "wordpiece",
    "RobertaTokenizer": "byte-level",
    "GPT2Tokenizer": "byte-level",
    "DebertaTokenizer": "byte-level",
    "AlbertTokenizer": "albert",
    "XLMRobertaTokenizer": "metaspace",
    "CamembertTokenizer": "metaspace",
}
#: ``config.json``'s ``model_type`` -> its tokenizer class, when ``tokenizer_config.json`` names none
_MODEL_TYPES = {
    "bert": "BertTokenizer",
    "distilbert": "DistilBertTokenizer",
    "roberta": "RobertaTokenizer",
    "gpt2": "GPT2Tokenizer",
    "deberta": "DebertaTokenizer",
    "albert": "AlbertTokenizer",
    "xlm-roberta": "XLMRobertaTokenizer",
    "camembert": "CamembertTokenizer",
}


def is_model_directory(path: Path) -> bool:
    """A directory ``save_pretrained`` wrote for a model: it holds the model's ``config.json``."""
    return (path / "config.json").is_file()


@dataclass(frozen=True)
class ModelTokenizerSettings:
    """What a model directory says about how its tokenizer segments words.

    >>> ModelTokenizerSettings("wordpiece", {}).lowercase      # BERT's class lowercases unless told not to
    True
    """

    #: ``"wordpiece"``, ``"byte-level"``, ``"albert"``, ``"metaspace"``, or ``None`` (``tokenizer.json`` as it is)
    family: str | None
    #: ``tokenizer_config.json`` as saved (``{}`` when absent)
    saved: dict

    @property
    def lowercase(self) -> bool:
        """Whether the class lowercases (``do_lower_case``; true by default for BERT and ALBERT)."""
        return bool(self.saved.get("do_lower_case", self.family in ("wordpiece", "albert")))

    @property
    def keeps_accents(self) -> bool:
        """ALBERT: whether accents are kept (``keep_accents``, false by default)."""
        return bool(self.saved.get("keep_accents", False))


def read_settings(directory: Path) -> ModelTokenizerSettings:
    """The settings of the model directory ``directory`` (its ``tokenizer_config.json`` and ``config.json``)."""
    saved, config = _read_object(directory / "tokenizer_config.json"), _read_object(directory / "config.json")
    return ModelTokenizerSettings(family_of(saved, config), saved)


def family_of(saved: dict, config: dict) -> str | None:
    """The family of the tokenizer class a directory's files name (``None`` for any other class)."""
    name = saved.get("tokenizer_class") or _MODEL_TYPES.get(str(config.get("model_type", "")))
    return _CLASSES.get(str(name).removesuffix("Fast")) if name else None


def _read_object(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = f":{exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise TokenizerLoadError(f"{path}{line}: not a readable JSON file ({exc})") from exc
    if not isinstance(data, dict):
        raise TokenizerLoadError(f"{path}: expected a JSON object of settings, got a {type(data).__name__}")
    return data


def apply_settings(tokenizer_json: dict, settings: ModelTokenizerSettings) -> dict:
    """``tokenizer.json``'s content with the normaliser and pre-tokenizer the model's tokenizer class builds.

    >>> s = ModelTokenizerSettings("byte-level", {"add_prefix_space": False})    # saved off, read on
    >>> apply_settings({"pre_tokenizer": None}, s)["pre_tokenizer"]["add_prefix_space"]
    True
    """
    out = dict(tokenizer_json)
    if settings.family == "wordpiece":
        saved = settings.saved
        out["normalizer"] = {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": bool(saved.get("tokenize_chinese_chars", True)),
            "strip_accents": saved.get("strip_accents"),
            "lowercase": settings.lowercase,
        }
        out["pre_tokenizer"] = {"type": "BertPreTokenizer"}
    elif settings.family == "byte-level":
        out["pre_tokenizer"] = {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        }
    elif settings.family in ("albert", "metaspace"):
        out["pre_tokenizer"] = {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "WhitespaceSplit"},
                {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
            ],
        }
        if settings.family == "albert":
            out["normalizer"] = _albert_normalizer(settings, tokenizer_json.get("normalizer"))
    return out


def _albert_normalizer(settings: ModelTokenizerSettings, saved: dict | None) -> dict:
    """ALBERT's normaliser: quotes, then accents and case as the settings say, then SentencePiece's own map."""
    steps = [
        {"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
        {"type": "Replace", "pattern": {"String": "''"}, "content": '"'},
    ]
    if not settings.keeps_accents:
        steps += [{"type": "NFKD"}, {"type": "StripAccents"}]
    if settings.lowercase:
        steps.append({"type": "Lowercase"})
    steps += [n for n in _flatten(saved) if n.get("type") == "Precompiled"]
    return {"type": "Sequence", "normalizers": steps}


def _flatten(normalizer: dict | None) -> list[dict]:
    if not normalizer:
        return []
    if normalizer.get("type") == "Sequence":
        return [n for inner in normalizer.get("normalizers", []) for n in _flatten(inner)]
    return [normalizer]
