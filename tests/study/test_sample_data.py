"""The generated fallback sample is deterministic and readable by the project's own readers."""

from __future__ import annotations

import hashlib

from tokstudy.data.conll import read_conll
from tokstudy.data.rawtext import read_raw_text
from tokstudy.study.sample_data import write_sample


def _digest(root):
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def test_same_seed_same_bytes(tmp_path):
    write_sample(tmp_path / "a", seed=3, n_ner=50, n_intent=20, n_docs=10)
    write_sample(tmp_path / "b", seed=3, n_ner=50, n_intent=20, n_docs=10)
    write_sample(tmp_path / "c", seed=4, n_ner=50, n_intent=20, n_docs=10)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b") != _digest(tmp_path / "c")


def test_sample_reads_back(tmp_path):
    paths = write_sample(tmp_path, seed=0, n_ner=100, n_intent=40, n_docs=20)
    train = read_conll(paths["ner"] / "train.conll", scheme="iob2")
    assert len(train) == 70 and train.n_entities > 50
    docs = list(read_raw_text(paths["raw_text"] / "en.txt.gz"))
    assert len(docs) == 20 and all(len(d.lines) >= 2 for d in docs)
    for split, n in (("train", 28), ("valid", 6), ("test", 6)):
        lines = (paths["intent"] / split / "seq.in").read_text().splitlines()
        tags = (paths["intent"] / split / "seq.out").read_text().splitlines()
        assert len(lines) == n and [len(l.split()) for l in lines] == [len(t.split()) for t in tags]
