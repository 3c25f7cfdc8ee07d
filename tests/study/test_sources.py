"""A study reads each split once per process: its fine-tuning runs all read their task's splits."""

from __future__ import annotations

import pickle

from tokstudy.study.sources import resolve_sources


def test_a_split_is_read_once_and_cut_to_each_limit(tmp_path):
    sources = resolve_sources({"conll2003"}, tmp_path / "out", data_dir=tmp_path / "no_corpora")
    assert sources.used_sample
    whole = sources.dataset("conll2003", "train")
    conll = sources.sample_dir / "ner" / "train.conll"
    conll.write_text("")  # a second read would find nothing
    assert sources.dataset("conll2003", "train").sentences == whole.sentences
    first = sources.dataset("conll2003", "train", limit=10)
    assert first.sentences == whole.sentences[:10] and len(whole) > 10
    assert sources.dataset("conll2003", "test", limit=10) != first  # another split is another read


def test_the_datasets_read_stay_in_their_process(tmp_path):
    """Sources travel to the process pool's workers with every stage: without the splits read here."""
    sources = resolve_sources({"conll2003"}, tmp_path / "out", data_dir=tmp_path / "no_corpora")
    sources.dataset("conll2003", "train")
    copy = pickle.loads(pickle.dumps(sources))
    assert copy.fingerprint() == sources.fingerprint() and copy.notes == sources.notes
    assert len(pickle.dumps(sources)) < 2_000 and copy._read == {}
    assert copy.dataset("conll2003", "train").sentences == sources.dataset("conll2003", "train").sentences
