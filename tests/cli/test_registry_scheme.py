"""Issue 33 item 6: ``--scheme`` with a registry dataset is no longer ignored without a word.

A registry dataset is read in the scheme its files are in, which the registry knows (CoNLL-2003 is
IOB1, WikiANN IOB2): a ``--scheme`` that contradicts it is refused when only registry datasets are given,
and stated in a warning when dataset files beside them take it.
"""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from tokstudy.cli import main
from tokstudy.data.registry import dataset_info, list_datasets


@pytest.fixture
def vocab(tmp_path):
    """A character-level WordPiece vocab.txt (no training needed)."""
    import string

    chars = string.ascii_letters + string.digits + ".,-'"
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(["[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
    return path


def test_every_registry_dataset_states_its_scheme():
    schemes = {name: dataset_info(name).scheme for name in list_datasets()}
    assert schemes["conll2003"] == "IOB1" and schemes["wikiann"] == "IOB2"
    assert schemes["ner_ja_wikipedia"] is None and schemes["sst2"] is None
    assert set(schemes.values()) <= {"IOB1", "IOB2", None}


def test_a_scheme_that_contradicts_the_registry_is_refused_before_any_work(vocab, capsys):
    # the tokenizer does not exist: had any work started, the error would be about it
    code = main(["stats", "-d", "conll2003:test", "-t", "no-such-tokenizer", "--scheme", "IOBES"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (
        "tokstudy stats: error: --scheme IOBES does not apply to registry datasets, which are read in the scheme "
        "of their files: conll2003:test (IOB1 files); --scheme is for dataset files given as paths: leave it out"
    )


def test_a_scheme_on_a_dataset_without_tags_is_refused(capsys):
    code = main(["stats", "-d", "ner_ja_wikipedia:test", "-t", "no-such-tokenizer", "--scheme", "BIO"])
    assert code == 2
    assert "ner_ja_wikipedia:test (no tag scheme: character spans)" in capsys.readouterr().err


def test_the_registrys_own_scheme_is_accepted(vocab, capsys):
    corpus_path("conll2003")
    code = main(["stats", "-d", "conll2003:test", "-t", str(vocab), "--scheme", "IOB1", "--resamples", "0"])
    out, err = capsys.readouterr()
    assert code == 0 and "warning: --scheme" not in err
    from tokstudy.data.registry import load_dataset

    ds = load_dataset("conll2003", "test")
    assert out.startswith(f"{ds.n_words} words, {len(ds)} sentences")


def test_beside_a_file_the_scheme_applies_to_the_file_and_the_registry_keeps_its_own(vocab, tmp_path, capsys):
    corpus_path("conll2003")
    iobes = tmp_path / "mine.conll"
    iobes.write_text("New B-LOC\nYork E-LOC\nis O\nbig O\n\nParis S-LOC\n", encoding="utf-8")
    code = main(
        ["stats", "-d", "conll2003:test", "-d", str(iobes), "-t", str(vocab), "--scheme", "IOBES", "--resamples", "0"]
        + ["--by", "dataset", "--no-progress"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (
        "tokstudy: warning: --scheme IOBES applies to the dataset files given as paths; the registry datasets keep "
        "their own: conll2003:test (IOB1 files)"
    ) in err
    from tokstudy.data.registry import load_dataset
    from tokstudy.inputs import FileOptions, load_datasets

    ds = load_dataset("conll2003", "test")  # read as IOB1, as without --scheme
    header = (
        f"{ds.n_words + 5} words, {len(ds) + 2} sentences, {ds.n_entities + 2} entities in conll2003:test, mine:all"
    )
    assert out.startswith(header)
    # the file was read as IOBES: two entities (New York, Paris)

    mine = load_datasets([str(iobes)], options=FileOptions(scheme="IOBES"))[0]
    assert [s.tags for s in mine] == [("B-LOC", "I-LOC", "O", "O"), ("B-LOC",)]
