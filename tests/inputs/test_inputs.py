"""tokstudy.inputs: requests in, datasets, tokenizers, repairs and warnings out, nothing printed; its request
module loads no reader, so the command line can build requests while it declares its options."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tokstudy.inputs as inputs
from tests.conftest import corpus_path
from tests.fixtures_sentencepiece import train_unigram
from tokstudy.data.conll import read_conll
from tokstudy.data.registry import load_dataset
from tokstudy.errors import TokenizerLoadError, UsageError
from tokstudy.inputs import DatasetRequest, FileOptions, TokenizerRequest, load_inputs

TEXT = "John B-PER\nlives O\nin O\nParis B-LOC\n\nMary I-PER\nworks O\n"  # Mary: an I- after nothing


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs_spm")
    words = "John lives in Paris Mary works at Acme the river flows north".split()
    sentences = [" ".join(words[(i * 7 + j) % len(words)] for j in range(8)) for i in range(500)]
    return train_unigram(sentences, d / "tiny", 30)


def test_every_public_name_resolves():
    assert sorted(dir(inputs)) == sorted(inputs.__all__)
    for name in inputs.__all__:
        assert getattr(inputs, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        inputs.nope  # noqa: B018


def test_a_request_and_the_cli_parser_load_no_reader():
    # the parser `tokstudy --help` builds: every command listed, none of their modules loaded
    code = (
        "import sys; from tokstudy.inputs.request import DatasetRequest; from tokstudy.cli import build_parser; "
        "build_parser(load=()); print(' '.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    loaded = set(out.split())
    readers = {"tokstudy.data.conll", "tokstudy.data.readers", "tokstudy.inputs.load", "tokstudy.tokenization.loading"}
    assert not readers & loaded


def test_files_and_tokenizers_load_as_their_own_readers_read_them(tmp_path, model, capsys):
    path = tmp_path / "mine.conll"
    path.write_text(TEXT, encoding="utf-8")
    got = load_inputs(
        datasets=DatasetRequest([f"{path}@de"], options=FileOptions(scheme="IOB2", lenient=True)),
        tokenizers=TokenizerRequest([f"t={model}"], count_lone_boundary=False),
    )
    direct = read_conll(path, scheme="IOB2", lenient=True, name="mine", language="de")
    tags = [("B-PER", "O", "O", "B-LOC"), ("B-PER", "O")]
    assert [s.tags for s in got.datasets[0]] == [s.tags for s in direct] == tags
    assert got.datasets[0].language == "de" and got.datasets[0].split == "all"
    assert [t.name for t in got.tokenizers] == ["t"] and got.tokenizers[0].count_lone_boundary is False
    # what lenient reading repaired comes back as data: one repair, in the text and in the record
    (repair,) = got.repairs
    assert repair.dataset == "mine" and repair.log.total == 1 and "lenient reading" in repair.text
    assert got.repair_logs() == {"mine": repair.log} and got.warnings == []
    assert capsys.readouterr() == ("", "")  # nothing printed


def test_a_scheme_registry_datasets_do_not_take_is_a_warning_beside_a_file_and_refused_alone(tmp_path, capsys):
    corpus_path("conll2003")
    path = tmp_path / "mine.conll"
    path.write_text("Paris S-LOC\n", encoding="utf-8")
    got = load_inputs(datasets=DatasetRequest(["conll2003:test", str(path)], options=FileOptions(scheme="IOBES")))
    assert got.warnings == [
        "--scheme IOBES applies to the dataset files given as paths; the registry datasets keep their own: "
        "conll2003:test (IOB1 files)"
    ]
    assert len(got.datasets[0]) == len(load_dataset("conll2003", "test"))
    assert capsys.readouterr() == ("", "")
    with pytest.raises(UsageError, match="does not apply to registry datasets"):
        load_inputs(datasets=DatasetRequest(["conll2003:test"], options=FileOptions(scheme="IOBES")))


def test_a_missing_tokenizer_is_named(tmp_path):
    with pytest.raises(TokenizerLoadError, match=r"absent\.model: tokenizer not found"):
        load_inputs(tokenizers=TokenizerRequest([str(tmp_path / "absent.model")]))
