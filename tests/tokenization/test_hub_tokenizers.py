"""``-t owner/name``: a Hugging Face hub model's own tokenizer, read from its folder in the hub cache.

The cache is laid out by hand in a temporary folder (``models--owner--name/snapshots/<commit>``, ``refs/main``),
``HF_HUB_OFFLINE=1`` and every socket connection refused: nothing here reaches the network. The model's folder
holds what ``save_pretrained`` writes for a RoBERTa model saved as roberta-base is (``add_prefix_space`` off), so
the pieces also show that the hub name goes through the model directory's rules (test_model_directories.py).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import corpus_path
from tests.fixtures_hf_models import train_tokenizer
from tests.inputs.hub_cache import offline_cache, put_in_cache
from tests.tokenization.conftest import conll_sentences
from tests.tokenization.test_model_directories import fast_tokenizer, model_word_pieces, tokstudy_word_pieces
from tokstudy.cli import main
from tokstudy.errors import PretrainedNotFoundError, TokenizerLoadError
from tokstudy.inputs import load_tokenizer_path, load_tokenizers
from tokstudy.tokenization.loading import load_tokenizer

pytest.importorskip("transformers")

CONLL = "EU B-ORG\nrejects O\nGerman B-MISC\ncall O\nto O\nboycott O\nBritish B-MISC\nlamb O\n. O\n\n"


@pytest.fixture(scope="module")
def sentences():
    return conll_sentences(corpus_path("conll2003") / "eng.testb.gz", 300)


@pytest.fixture(scope="module")
def model_dir(sentences, tmp_path_factory):
    """A RoBERTa model directory's tokenizer side (``save_pretrained``'s files and the model's config.json)."""
    directory = tmp_path_factory.mktemp("saved") / "roberta-ner"
    train_tokenizer("roberta", [" ".join(s) for s in sentences] * 3, vocab_size=600).save_pretrained(str(directory))
    (directory / "config.json").write_text(json.dumps({"model_type": "roberta"}))
    return directory


@pytest.fixture
def cache(tmp_path, monkeypatch):
    return offline_cache(tmp_path, monkeypatch)


def test_a_hub_name_loads_the_model_tokenizer_from_the_cache(cache, model_dir, sentences):
    snapshot = put_in_cache(cache, "acme/roberta-ner", model_dir)
    (seg,) = load_tokenizers(["acme/roberta-ner"])
    assert seg.name == "roberta-ner" and seg.source == str(snapshot / "tokenizer.json")
    want = model_word_pieces(fast_tokenizer(snapshot), sentences)
    assert tokstudy_word_pieces(seg, sentences) == want


def test_names_of_hub_models(cache, model_dir):
    put_in_cache(cache, "acme/roberta-ner", model_dir, refs=("main", "v1"))
    put_in_cache(cache, "other/roberta-ner", model_dir)
    assert load_tokenizer_path("acme/roberta-ner@v1").name == "roberta-ner@v1"
    assert load_tokenizer_path("acme/roberta-ner", name="mine").name == "mine"
    both = load_tokenizers(["acme/roberta-ner", "other/roberta-ner"])
    assert [s.name for s in both] == ["acme/roberta-ner", "other/roberta-ner"]  # told apart by their owners
    assert [s.name for s in load_tokenizers(["r=acme/roberta-ner"])] == ["r"]


def test_a_local_directory_of_that_name_comes_first(cache, model_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(model_dir, tmp_path / "acme" / "roberta-ner")
    (seg,) = load_tokenizers(["acme/roberta-ner"])  # not in the cache: the folder is read
    assert seg.source == str((tmp_path / "acme" / "roberta-ner" / "tokenizer.json").relative_to(tmp_path))


def test_not_cached_offline_is_one_line_naming_the_model(cache):
    with pytest.raises(PretrainedNotFoundError, match=r"^acme/absent: .*`hf download acme/absent`"):
        load_tokenizers(["acme/absent"])


def test_load_tokenizer_says_where_hub_names_are_loaded(cache):
    with pytest.raises(TokenizerLoadError, match=r"acme/absent: no such file .*load_tokenizer_path\('acme/absent'\)"):
        load_tokenizer("acme/absent")


def test_the_command_line_takes_a_hub_name(cache, model_dir, tmp_path, capsys):
    put_in_cache(cache, "acme/roberta-ner", model_dir)
    data = tmp_path / "t.conll"
    data.write_text(CONLL)
    out = tmp_path / "s.json"
    argv = ["stats", "-d", str(data), "--resamples", "0", "--no-progress", "--json", str(out)]
    assert main([*argv, "-t", "acme/roberta-ner"]) == 0
    assert '"roberta-ner"' in out.read_text()
    capsys.readouterr()
    out.unlink()
    assert main([*argv, "-t", "acme/absent"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "acme/absent" in err and "`hf download acme/absent`" in err
    assert not out.exists()  # no partial output


def test_help_and_messages_name_model_directories_and_hub_names(capsys):
    from tokstudy.tokenization.loading import ACCEPTED

    assert "model directory" in ACCEPTED and "hub name" in ACCEPTED
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "model directory" in help_text and "hub name" in help_text
