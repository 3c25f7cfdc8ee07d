"""Trained directories load with transformers.AutoTokenizer and give sentencepiece's / tokenizers' pieces exactly."""

from __future__ import annotations

import json

import pytest

transformers = pytest.importorskip("transformers")


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe"])
def test_sentencepiece_directory_matches_sentencepiece(trained, raw_lines, algorithm):
    import sentencepiece as spm

    results = trained(algorithm)
    assert [r.vocab_size for r in results] == [v for v in sorted(r.vocab_size for r in results)]
    for res in results:
        sp = spm.SentencePieceProcessor(model_file=str(res.path / "spiece.model"))
        auto = transformers.AutoTokenizer.from_pretrained(str(res.path))
        assert len(auto) == sp.get_piece_size() == res.vocab_size
        scripts = {"ru": "а", "ar": "ا", "zh": "的"}
        assert all(any(ch in l for l in raw_lines) for ch in scripts.values())
        for line in raw_lines:
            ids = sp.encode(line)
            pieces = sp.encode(line, out_type=str)
            if algorithm == "sp-bpe":  # tokenizers' BPE names unknown pieces <unk>; sentencepiece shows the text
                pieces = ["<unk>" if i == sp.unk_id() else p for p, i in zip(pieces, ids)]
            assert auto.tokenize(line) == pieces, line
            assert auto(line, add_special_tokens=False)["input_ids"] == ids, line
            assert auto(line)["input_ids"] == [auto.cls_token_id, *ids, auto.sep_token_id]


@pytest.mark.parametrize("algorithm", ["sp-unigram", "sp-bpe", "hf-unigram", "hf-bpe", "hf-wordpiece"])
def test_albert_special_token_ids(trained, algorithm):
    res = trained(algorithm)[0]
    auto = transformers.AutoTokenizer.from_pretrained(str(res.path))
    assert (auto.pad_token, auto.pad_token_id) == ("<pad>", 0)
    assert (auto.unk_token, auto.unk_token_id) == ("<unk>", 1)
    assert auto.convert_tokens_to_ids(["[CLS]", "[SEP]", "[MASK]"]) == [2, 3, 4]
    assert (auto.cls_token, auto.sep_token, auto.mask_token) == ("[CLS]", "[SEP]", "[MASK]")
    pair = auto("a b", "c")
    assert pair["input_ids"][0] == 2 and pair["input_ids"].count(3) == 2
    assert pair["token_type_ids"][-1] == 1
    manifest = json.loads((res.path / "training.json").read_text())
    assert manifest["algorithm"] == algorithm and manifest["vocab_size"] == res.vocab_size
    assert manifest["n_sentences"] == res.n_sentences and manifest["seed"] == 1
    assert {"sentencepiece", "tokenizers", "tokstudy"} <= set(manifest["versions"])


@pytest.mark.parametrize("algorithm", ["hf-unigram", "hf-bpe", "hf-wordpiece"])
def test_hf_directory_matches_tokenizers(trained, raw_lines, algorithm):
    from tokenizers import Tokenizer

    res = trained(algorithm)[0]
    tok = Tokenizer.from_file(str(res.path / "tokenizer.json"))
    auto = transformers.AutoTokenizer.from_pretrained(str(res.path))
    assert len(auto) == tok.get_vocab_size() == res.vocab_size
    for line in raw_lines:
        enc = tok.encode(line, add_special_tokens=False)
        assert auto.tokenize(line) == enc.tokens, line
        assert auto(line, add_special_tokens=False)["input_ids"] == enc.ids, line


def test_sample_is_shared_by_all_vocabulary_sizes(trained):
    small, large = trained("sp-unigram")
    assert small.n_sentences == large.n_sentences
    assert small.vocab_size < large.vocab_size
    a = json.loads((small.path / "training.json").read_text())
    b = json.loads((large.path / "training.json").read_text())
    assert a["config"] == b["config"]
