"""A model directory given as a tokenizer segments each word exactly as the model saw it.

The reference is the model's own fast tokenizer, ``AutoTokenizer.from_pretrained(dir)``, as token classification
loads it (with ``add_prefix_space`` where the tokenizer has the option and saved it off, as ``pretrain evaluate``
and Hugging Face's ``run_ner`` do), encoding real CoNLL-2003 sentences as a token-classification model reads them
(``tokenizer(words, is_split_into_words=True)``), each piece given to its word by ``word_ids()``. tokstudy's
pieces for each distinct word (one ``segment`` call, the table's fast path) must equal them, word for word, for
every family: BERT/WordPiece, RoBERTa/byte-level BPE (saved without ``add_prefix_space``, as roberta-base is,
and with it), ALBERT/SentencePiece, XLM-R/SentencePiece; and for the directories older tools wrote
(``spiece.model`` or ``vocab.txt`` beside the settings, no ``tokenizer.json``, or a ``tokenizer_config.json``
that overrides what ``tokenizer.json`` holds).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import corpus_path
from tests.fixtures_hf_models import build_token_model, train_tokenizer
from tests.fixtures_sentencepiece import train_unigram
from tests.tokenization.conftest import conll_sentences
from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization.loading import load_tokenizer

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def sentences():
    """Real sentences: the first 1,500 of CoNLL-2003's test split."""
    sents = conll_sentences(corpus_path("conll2003") / "eng.testb.gz", 1500)
    assert len(sents) == 1500
    return sents


@pytest.fixture(scope="module")
def lines():
    """Training text for the tokenizers: CoNLL-2003's training sentences, which mix cases (``SOCCER``)."""
    return [" ".join(s) for s in conll_sentences(corpus_path("conll2003") / "eng.train.gz", 4000)]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """family -> a token-classification model directory (tests/fixtures_hf_models.py), built once here."""
    root = tmp_path_factory.mktemp("models")
    return {family: build_token_model(family, root / family).path for family in ("bert", "roberta", "albert")}


def fast_tokenizer(directory):
    """The model's fast tokenizer as token classification loads it: ``add_prefix_space`` on where it has the
    option and saved it off (RoBERTa's), so that a pre-split word is read as after a space."""
    fast = transformers.AutoTokenizer.from_pretrained(str(directory))
    if getattr(fast, "add_prefix_space", None) is False:
        fast = transformers.AutoTokenizer.from_pretrained(str(directory), add_prefix_space=True)
    assert fast.is_fast and len(fast) > 500  # a real vocabulary, not the class's five special tokens
    return fast


def model_word_pieces(fast, sents):
    """Per sentence, per word: the pieces the model's fast tokenizer gives it through ``word_ids()``."""
    out = []
    for words in sents:
        enc = fast(words, is_split_into_words=True, add_special_tokens=False)
        per = [[] for _ in words]
        for token, w in zip(enc.tokens(), enc.word_ids()):
            per[w].append(token)
        out.append(per)
    return out


def tokstudy_word_pieces(segmenter, sents):
    """Per sentence, per word: tokstudy's pieces, from one ``segment`` call over the distinct words."""
    distinct = list(dict.fromkeys(w for s in sents for w in s))
    of = dict(zip(distinct, segmenter.segment(distinct).as_lists()))
    return [[of[w] for w in s] for s in sents]


def assert_same_pieces(directory, sents, fast=None):
    seg = load_tokenizer(directory)
    got = tokstudy_word_pieces(seg, sents)
    want = model_word_pieces(fast if fast is not None else fast_tokenizer(directory), sents)
    bad = [(w, g, m) for s, gs, ms in zip(sents, got, want) for w, g, m in zip(s, gs, ms) if g != m]
    assert not bad, f"{directory.name}: {len(bad)} words differ from the model's pieces, first: {bad[:3]}"
    return seg


def _save_model_dir(tokenizer, directory, model_type):
    """A model directory's tokenizer side: what ``save_pretrained`` writes, and the model's ``config.json``."""
    tokenizer.save_pretrained(str(directory))
    (directory / "config.json").write_text(json.dumps({"model_type": model_type}))
    return directory


def _edit_config(directory, **settings):
    """Set (or, given ``None``, remove) settings of a directory's ``tokenizer_config.json``."""
    path = directory / "tokenizer_config.json"
    config = {k: v for k, v in json.loads(path.read_text()).items() if k not in settings}
    config.update({k: v for k, v in settings.items() if v is not None})
    path.write_text(json.dumps(config))


@pytest.mark.parametrize("family", ["bert", "roberta", "albert"])
def test_a_model_directory_segments_words_as_the_model_saw_them(models, sentences, family):
    seg = assert_same_pieces(models[family], sentences)
    assert seg.name == family  # a directory is named after itself


def test_the_tokenizer_pretrain_evaluate_encodes_with_gives_the_same_pieces(models, sentences):
    """The predictions ``tokstudy correlate`` reads come from ``pretrain evaluate``: its tokenizer is the reference."""
    token_classifier = pytest.importorskip("pretrain.finetune.token_classifier")
    for family, directory in models.items():
        fast = token_classifier.load_token_classifier(directory, device="cpu").tokenizer
        assert_same_pieces(directory, sentences[:300], fast=fast)


@pytest.mark.parametrize("saved", [False, True, None], ids=["off", "on", "unsaved"])
def test_roberta_words_are_read_after_a_space_however_add_prefix_space_was_saved(models, sentences, tmp_path, saved):
    """roberta-base saves ``add_prefix_space`` off; token classification turns it on: every word starts with ``Ġ``."""
    copy = shutil.copytree(models["roberta"], tmp_path / "roberta")
    _edit_config(copy, add_prefix_space=saved)
    seg = assert_same_pieces(copy, sentences)
    pieces = tokstudy_word_pieces(seg, sentences[:50])
    assert all(w[0].startswith("Ġ") for s in pieces for w in s)


def test_xlm_roberta_directory(lines, sentences, tmp_path):
    model = train_unigram(lines, tmp_path / "xlmr", 1500)
    slow = tmp_path / "slow"
    slow.mkdir()
    shutil.copy(model, slow / "sentencepiece.bpe.model")
    (slow / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "XLMRobertaTokenizer"}))
    fast = transformers.AutoTokenizer.from_pretrained(str(slow))
    directory = _save_model_dir(fast, tmp_path / "xlm-r-ner", "xlm-roberta")
    assert_same_pieces(directory, sentences)
    shutil.copy(model, directory / "sentencepiece.bpe.model")  # as the hub ships it, beside tokenizer.json
    assert_same_pieces(directory, sentences)
    _edit_config(directory, add_prefix_space=False)  # saved off, read on by token classification
    assert_same_pieces(directory, sentences)


@pytest.fixture(scope="module")
def lowercasing_albert(lines, tmp_path_factory):
    """An ALBERT model directory whose tokenizer lowercases (the class default), with its ``spiece.model``."""
    root = tmp_path_factory.mktemp("albert-uncased")
    model = train_unigram(lines, root / "spiece", 1500, albert=True)
    slow = root / "slow"
    slow.mkdir()
    shutil.copy(model, slow / "spiece.model")
    (slow / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "AlbertTokenizer"}))
    fast = transformers.AutoTokenizer.from_pretrained(str(slow))
    directory = _save_model_dir(fast, root / "albert-base-v2-like", "albert")
    shutil.copy(model, directory / "spiece.model")
    return directory


def test_albert_with_spiece_model_uses_the_tokenizer_the_model_reads(lowercasing_albert, sentences):
    """``spiece.model`` alone keeps ``SOCCER`` upper-case; the model's tokenizer lowercases it first."""
    seg = assert_same_pieces(lowercasing_albert, sentences)
    assert seg.segment(["SOCCER"]).pieces_of(0) == seg.segment(["soccer"]).pieces_of(0)


def test_albert_with_only_spiece_model_that_lowercases_is_refused(lowercasing_albert, tmp_path):
    bare = tmp_path / "albert-slow"
    bare.mkdir()
    for name in ("spiece.model", "config.json", "tokenizer_config.json"):
        shutil.copy(lowercasing_albert / name, bare / name)
    with pytest.raises(TokenizerLoadError) as info:
        load_tokenizer(bare)
    message = str(info.value)
    assert message.startswith(f"{bare}: the model's AlbertTokenizer lowercases") and "\n" not in message
    assert "save_pretrained" in message


def test_bert_with_only_vocab_txt_follows_do_lower_case(lines, sentences, tmp_path):
    """A cased vocabulary read by a lowercasing BERT tokenizer: the vocabulary alone would say cased."""
    vocab = train_tokenizer("bert", lines).get_vocab()
    directory = tmp_path / "bert-uncased-ner"
    directory.mkdir()
    (directory / "vocab.txt").write_text("".join(p + "\n" for p, _ in sorted(vocab.items(), key=lambda kv: kv[1])))
    (directory / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer"}))
    (directory / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert any(p[:1].isupper() for p in vocab)
    seg = assert_same_pieces(directory, sentences)
    assert seg.kind == "wordpiece"


def test_tokenizer_config_overrides_tokenizer_json(models, sentences, tmp_path):
    """The class builds its normaliser from ``tokenizer_config.json``: ``do_lower_case`` wins over the file."""
    copy = shutil.copytree(models["bert"], tmp_path / "bert-lowercased")
    _edit_config(copy, do_lower_case=True)
    seg = assert_same_pieces(copy, sentences)
    assert seg.segment(["JAPAN"]).pieces_of(0) == seg.segment(["japan"]).pieces_of(0)


def test_a_tokenizer_directory_without_config_json_keeps_its_own_rules(models, tmp_path):
    """Not a model directory: tokenizer.json as it is, each byte-level word read after a space (the
    token-classification convention the other tests check)."""
    copy = tmp_path / "roberta-tokenizer"
    copy.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(models["roberta"] / name, copy / name)
    assert load_tokenizer(copy).segment(["Japan"]).pieces_of(0)[0].startswith("Ġ")
