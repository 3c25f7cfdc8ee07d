"""Hugging Face files for a trained tokenizer, so ``AutoTokenizer.from_pretrained(dir)`` loads it.

A SentencePiece model is converted to a ``tokenizers.Tokenizer`` that gives exactly
sentencepiece's pieces (tested on real text in many scripts):

* normaliser: the model's own precompiled ``nmt_nfkc`` character map, then runs of
  spaces collapsed (sentencepiece's ``remove_extra_whitespaces``);
* pre-tokeniser: split on whitespace, then ``Metaspace`` prefixes every word with ``▁``
  (sentencepiece's ``add_dummy_prefix`` plus its whitespace escaping);
* model: ``Unigram`` with the same scores, or ``BPE`` with merges ranked by the merged
  piece's score, which is the order sentencepiece's BPE applies them.

Why not ``AlbertTokenizer``: in transformers 5 it rebuilds its normaliser and always
rewrites ``''`` and ``````` into ``"`` (ALBERT's original preprocessing), so on text with
those quotes its pieces differ from sentencepiece's. The directory therefore declares
the generic ``PreTrainedTokenizerFast`` class with ALBERT's special tokens, whose
``tokenizer.json`` is used as written. ``spiece.model`` sits beside it for sentencepiece.

The converter reads the few fields it needs straight from the protobuf wire format
(:mod:`~tokstudy.tokenization.spm_proto`), so the core needs neither ``protobuf`` nor ``transformers``.

>>> tok = spm_to_hf_tokenizer("spiece.model", algorithm="unigram")   # doctest: +SKIP
>>> write_hf_files(tok, "out/", special_tokens=ALBERT_SPECIALS)     # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tokstudy.tokenization import spm_proto

#: ALBERT's special symbols, in id order: pad=0, unk=1, then the control symbols.
ALBERT_SPECIALS = {
    "pad_token": "<pad>",
    "unk_token": "<unk>",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}
#: SentencePiece trainer options for that layout: <pad> 0, <unk> 1, no BOS/EOS, [CLS] [SEP] [MASK] as
#: control pieces (what ``pretrain prepare`` and :func:`spm_to_hf_tokenizer` with ALBERT_SPECIALS expect).
ALBERT_SENTENCEPIECE_IDS = dict(pad_id=0, unk_id=1, bos_id=-1, eos_id=-1, control_symbols=["[CLS]", "[SEP]", "[MASK]"])


def spm_to_hf_tokenizer(model_file: str | os.PathLike, *, algorithm: str | None = None):
    """A ``tokenizers.Tokenizer`` equivalent to the SentencePiece model.

    ``algorithm`` is ``"unigram"`` or ``"bpe"``; ``None`` reads it from the model.
    """
    # deferred: sentencepiece and tokenizers (C++/Rust extensions, ~25 ms), only when a model is exported
    import sentencepiece as spm
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, normalizers, pre_tokenizers
    from tokenizers.models import BPE, Unigram

    raw = Path(model_file).read_bytes()
    fields = _spm_fields(raw)
    algorithm = algorithm or {1: "unigram", 2: "bpe"}.get(fields["model_type"], "")
    if algorithm not in ("unigram", "bpe"):
        raise ValueError(f"{model_file}: only unigram and BPE SentencePiece models can be converted")
    sp = spm.SentencePieceProcessor(model_file=str(model_file))
    n = sp.get_piece_size()
    pieces = [sp.id_to_piece(i) for i in range(n)]
    unk_id = sp.unk_id()
    if algorithm == "unigram":
        model = Unigram([(p, sp.get_score(i)) for i, p in enumerate(pieces)], unk_id=unk_id, byte_fallback=False)
    else:
        vocab = {p: i for i, p in enumerate(pieces)}
        model = BPE(
            vocab=vocab, merges=_bpe_merges(pieces, sp), unk_token=pieces[unk_id], fuse_unk=True, byte_fallback=False
        )
    tok = Tokenizer(model)
    norm = []
    if fields["charsmap"]:
        norm.append(normalizers.Precompiled(fields["charsmap"]))
    norm.append(normalizers.Replace(Regex(" {2,}"), " "))
    tok.normalizer = normalizers.Sequence(norm)
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")]
    )
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    specials = [p for i, p in enumerate(pieces) if sp.is_control(i) or sp.is_unknown(i)]
    tok.add_special_tokens([AddedToken(p, special=True, normalized=False) for p in specials])
    return tok


def add_albert_post_processor(tok) -> None:
    """``[CLS] A [SEP]`` and ``[CLS] A [SEP] B [SEP]`` with token types, as ALBERT expects."""
    from tokenizers import processors  # deferred: a Rust extension, only when a model is exported

    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:
        return
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )


def write_hf_files(
    tok,
    directory: str | os.PathLike,
    *,
    special_tokens: dict[str, str],
    model_max_length: int = 512,
    extra_config: dict | None = None,
) -> None:
    """Write ``tokenizer.json``, ``tokenizer_config.json`` and ``special_tokens_map.json``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    present = {k: v for k, v in special_tokens.items() if tok.token_to_id(v) is not None}
    tok.save(str(directory / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": model_max_length,
        "clean_up_tokenization_spaces": False,
        # ALBERT/BERT take segment ids (sentence-order prediction, sentence pairs)
        "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
        **present,
        **(extra_config or {}),
    }
    (directory / "tokenizer_config.json").write_text(
        json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (directory / "special_tokens_map.json").write_text(
        json.dumps(present, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def _bpe_merges(pieces: list[str], sp) -> list[tuple[str, str]]:
    """Merges for every piece that is a concatenation of two other pieces, best score first.

    sentencepiece's BPE merges the adjacent pair whose result has the highest score;
    ranking the merges by that score reproduces it in tokenizers' BPE.
    """
    index = {p: i for i, p in enumerate(pieces)}
    normal = [not (sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i)) for i in range(len(pieces))]
    merges = []
    for merged, k in index.items():
        if not normal[k] or len(merged) < 2:
            continue
        for cut in range(1, len(merged)):
            left, right = merged[:cut], merged[cut:]
            if left in index and right in index and normal[index[left]] and normal[index[right]]:
                merges.append((-sp.get_score(k), k, index[left], index[right], left, right))
    merges.sort()
    return [(m[4], m[5]) for m in merges]


def _spm_fields(raw: bytes) -> dict:
    """``model_type`` and ``precompiled_charsmap`` from a serialised ``ModelProto``
    (:mod:`tokstudy.tokenization.spm_proto`)."""
    out = {"model_type": 1, "charsmap": b""}
    for f, w, v in spm_proto.settings_fields(raw, spm_proto.TRAINER_SPEC):
        if f == 3 and w == spm_proto.VARINT:
            out["model_type"] = v
    for f, w, v in spm_proto.settings_fields(raw, spm_proto.NORMALIZER_SPEC):
        if f == 2 and w == spm_proto.LENGTH_DELIMITED:
            out["charsmap"] = v
    return out
