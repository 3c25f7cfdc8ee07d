"""One decision says where a dataset spec points: a file, ``hf:`` or a registry name; loading, the scheme
note and wildcards all follow it."""

from __future__ import annotations

import pytest

from tokstudy.errors import DataNotFoundError
from tokstudy.inputs.datasets import SpecKind, _is_wildcard, _registry_name, load_dataset_spec, locate


def test_a_file_named_like_a_registry_dataset_is_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conll2003:test").write_text("John B-PER\nlives O\n", encoding="utf-8")
    assert locate("conll2003:test").kind is SpecKind.FILE
    assert _registry_name("conll2003:test") is None
    assert load_dataset_spec("conll2003:test").sentences[0].words == ("John", "lives")


def test_a_file_with_a_language(tmp_path):
    f = tmp_path / "mine.conll"
    f.write_text("Hans B-PER\n", encoding="utf-8")
    where = locate(f"{f}@de")
    assert (where.kind, where.path, where.language) == (SpecKind.FILE, f, "de")
    assert load_dataset_spec(f"{f}@de").language == "de"


@pytest.mark.parametrize(
    "spec, kind",
    [
        ("hf:conll2003:test", SpecKind.HUB),
        ("conll2003:test", SpecKind.REGISTRY),
        ("masakhaner2:*:test", SpecKind.REGISTRY),
        ("no/such/file", SpecKind.MISSING_FILE),
        ("such.conll", SpecKind.MISSING_FILE),
        ("nosuchdataset:test", SpecKind.UNKNOWN),
    ],
)
def test_each_kind_of_spec(spec, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert locate(spec).kind is kind
    assert (_registry_name(spec) is not None) == (kind is SpecKind.REGISTRY)
    assert _is_wildcard(spec) == (kind is SpecKind.REGISTRY and "*" in spec)
    if kind in (SpecKind.MISSING_FILE, SpecKind.UNKNOWN):
        with pytest.raises(DataNotFoundError):
            load_dataset_spec(spec)
