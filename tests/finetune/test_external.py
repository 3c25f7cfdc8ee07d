"""Predictions from models fine-tuned elsewhere (one per tokenizer family) against references computed here:
the model's argmax at each word's first piece through ``word_ids()``, and Hugging Face's own token-classification
pipeline; long sentences keep every word."""

from __future__ import annotations

import pytest

from pretrain.finetune.external import ExternalOptions, evaluate_external
from tests.conftest import corpus_path
from tests.fixtures_hf_models import FAMILIES, build_token_model
from tokstudy.analysis.model_errors.piece_agreement import word_tags
from tokstudy.analysis.model_errors.piece_predictions import read_piece_predictions
from tokstudy.analysis.model_errors.predictions import read_predictions
from tokstudy.data.types import iob2_spans

QUIET = ExternalOptions(batch_size=16)

#: each family's labels (tests/fixtures_hf_models.py) as CoNLL-2003 tags, written out by hand
_SPELLED = {"person": "PER", "organization": "ORG", "location": "LOC", "miscellaneous": "MISC"}
NAMES = {
    "bert": {t: t for t in ("O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")},
    "roberta": {"O": "O"}
    | {f"{p}-{s}": f"{'B' if p in 'BS' else 'I'}-{t}" for s, t in _SPELLED.items() for p in "BIES"},
    "albert": {"O": "O", "MISC": "I-MISC", "PER": "I-PER", "ORG": "I-ORG", "LOC": "I-LOC"},
}


def _repair(tags):
    """IOB2 by hand: an I-X that does not continue an X entity opens one."""
    out = []
    for t in tags:
        if t.startswith("I-") and (not out or out[-1] == "O" or out[-1][2:] != t[2:]):
            t = "B-" + t[2:]
        out.append(t)
    return out


def _hf(model_dir):
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir), add_prefix_space=True)  # RoBERTa's; a no-op for the others
    return tok, AutoModelForTokenClassification.from_pretrained(str(model_dir)).eval()


def _first_piece_argmax(model_dir, sentences, names):
    """Each word's tag: the model's best label at its first piece (``word_ids()``), named by ``names``."""
    import torch

    tok, model = _hf(model_dir)
    out = []
    with torch.no_grad():
        for words in sentences:
            enc = tok(list(words), is_split_into_words=True, return_tensors="pt")
            best = model(**enc).logits[0].argmax(-1).tolist()
            first = {}
            for pos, wid in enumerate(enc.word_ids()):
                if wid is not None:
                    first.setdefault(wid, pos)
            assert sorted(first) == list(range(len(words)))
            out.append(_repair([names[model.config.id2label[best[first[w]]]] for w in range(len(words))]))
    return out


@pytest.fixture(scope="module")
def conll_test():
    from tokstudy.data.registry import load_dataset

    corpus_path("conll2003")
    return load_dataset("conll2003", "test")


def _fitting(ds, model_dir, n=120, *, plain=False):
    """The first ``n`` sentences of ``ds`` that fit in one window (``plain``: whose words are ASCII letters and
    digits and whose first pieces carry text, where the pipeline's subword heuristic finds the same words)."""
    tok, _ = _hf(model_dir)
    keep = []
    for s in ds:
        ids = tok(list(s.words), is_split_into_words=True)
        pieces = tok.convert_ids_to_tokens(ids["input_ids"])
        firsts = [pieces[i] for i, w in enumerate(ids.word_ids()) if w is not None and ids.word_ids()[i - 1] != w]
        ok = len(ids["input_ids"]) <= 64 and tok.unk_token_id not in ids["input_ids"]
        if plain:
            ok = ok and all(w.isascii() and w.isalnum() for w in s.words) and all(p not in "▁Ġ" for p in firsts)
        if ok:
            keep.append(s)
        if len(keep) == n:
            break
    return ds.with_meta(sentences=tuple(keep))


@pytest.mark.parametrize("family", FAMILIES)
def test_first_piece_labels_equal_the_models_argmax(family, hf_token_models, conll_test, tmp_path):
    model = hf_token_models[family]
    ds = _fitting(conll_test, model.path)
    out, pieces = tmp_path / "p.tsv", tmp_path / "p.pieces.tsv"
    result = evaluate_external(model.path, ds, options=QUIET, predictions=out, piece_predictions=pieces)
    expected = _first_piece_argmax(model.path, [s.words for s in ds], NAMES[family])
    pred = [list(s.pred) for s in read_predictions(out).sentences]
    assert pred == expected
    assert sum(t != "O" for s in pred for t in s) > 50  # the random model names entities: the test has teeth
    assert [list(s.gold) for s in read_predictions(out).sentences] == [list(s.tags) for s in ds]
    # the per-piece file tells the same story under `first`, in the dataset's tags
    back = read_piece_predictions(pieces)
    assert [list(t) for t in word_tags(back, "first")] == expected
    assert back.metadata["label_map"] == ",".join(f"{k}:{v}" for k, v in NAMES[family].items() if k in model.labels)
    assert result.metrics["n_windowed_sentences"] == 0 and result.metrics["n_words"] == ds.n_words


def _entities(tags, words):
    """IOB2 spans as ``(type, start char, end char)`` in the words joined by spaces (the pipeline's offsets)."""
    starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
    return {(t, starts[a], starts[b - 1] + len(words[b - 1])) for a, b, t in iob2_spans(tags)}


@pytest.mark.parametrize("family", FAMILIES)
def test_entities_equal_the_hugging_face_pipeline(family, hf_token_models, conll_test, tmp_path):
    """``pipeline("token-classification", aggregation_strategy="first")`` on pre-split words, where it groups
    pieces into the same words (its subword test is a heuristic for non-WordPiece tokenizers)."""
    from transformers import pipeline

    model = hf_token_models[family]
    if family == "roberta":  # the pipeline groups only B-/I- names: the same tokenizer under IOB2 labels
        tok, _ = _hf(model.path)
        model = build_token_model("roberta", tmp_path / "roberta-iob2", labels=tuple(NAMES["bert"]), tokenizer=tok)
    ds = _fitting(conll_test, model.path, plain=True)
    assert len(ds) >= 40
    out = tmp_path / "p.tsv"
    evaluate_external(model.path, ds, options=QUIET, predictions=out)
    tok, hf_model = _hf(model.path)
    pipe = pipeline("token-classification", model=hf_model, tokenizer=tok, aggregation_strategy="first", device=-1)
    found = pipe([list(s.words) for s in ds], is_split_into_words=True, batch_size=8)
    names = {k.split("-")[-1]: v.split("-")[-1] for k, v in NAMES[family if family != "roberta" else "bert"].items()}
    n_entities = 0
    for s, p, groups in zip(ds, read_predictions(out).sentences, found):
        theirs = {(names[g["entity_group"]], g["start"], g["end"]) for g in groups}
        assert _entities(p.pred, s.words) == theirs, s.words
        n_entities += len(theirs)
    assert n_entities > 30


def test_long_sentences_keep_every_word(hf_token_models, conll_test, tmp_path):
    """Sentences longer than the window (64 positions; 12 with max_length) are split as our fine-tuning splits
    them: no word is dropped, and each split sentence is counted."""
    model = hf_token_models["roberta"]
    long_words = tuple(w for s in conll_test.sentences[:40] for w in s.words)[:300]
    long_tags = tuple(t for s in conll_test.sentences[:40] for t in s.tags)[:300]
    head = conll_test.sentences[:30]
    ds = conll_test.with_meta(sentences=head + (type(head[0])(long_words, _repair(long_tags), sent_id=999),))
    tok, _ = _hf(model.path)
    n_pieces = [len(tok(list(s.words), is_split_into_words=True, add_special_tokens=False)["input_ids"]) for s in ds]
    assert n_pieces[-1] > 4 * 64
    for max_length, window in ((None, 64), (12, 12)):
        out, pieces = tmp_path / f"p{window}.tsv", tmp_path / f"p{window}.pieces.tsv"
        options = ExternalOptions(max_length=max_length, batch_size=7)
        result = evaluate_external(model.path, ds, options=options, predictions=out, piece_predictions=pieces)
        pred = read_predictions(out).sentences
        assert [len(s.pred) for s in pred] == [len(s.words) for s in ds]
        assert [s.words for s in pred] == [s.words for s in ds]
        assert read_piece_predictions(pieces).n_words == ds.n_words
        split = sum(1 for n in n_pieces if n > window - 2)  # [CLS] and [SEP] take two places of each window
        assert result.metrics["n_windowed_sentences"] == split and result.metrics["max_length"] == window
        assert read_predictions(out).metadata["n_windowed_sentences"] == str(split)
