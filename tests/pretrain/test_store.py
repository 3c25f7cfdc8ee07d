"""The example store: round trip, dynamic trimming, atomic write, corrupt/incomplete detection."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pretrain.data.store import ExampleStore, ExampleStoreWriter
from tokstudy.errors import DataFormatError

L, P = 16, 4
SPECIAL = {"pad": 0, "unk": 1, "cls": 2, "sep": 3, "mask": 4}
META = {"vocab_size": 50, "special_ids": SPECIAL, "task": "sop", "config": {"seed": 1}}


def random_examples(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Independent reference examples built row by row (plain Python, no vectorisation)."""
    rng = np.random.default_rng(seed)
    ids = np.zeros((n, L), np.int32)
    lengths = np.zeros(n, np.int16)
    bstart = np.zeros(n, np.int16)
    pos = np.full((n, P), -1, np.int16)
    lab = np.full((n, P), -100, np.int32)
    for i in range(n):
        length = int(rng.integers(5, L + 1))
        b = int(rng.integers(2, length - 1))
        row = [2] + list(rng.integers(5, 50, b - 2)) + [3] + list(rng.integers(5, 50, length - b - 1)) + [3]
        row[b - 1] = 3
        ids[i, :length] = row[:length]
        lengths[i], bstart[i] = length, b
        k = int(rng.integers(0, P + 1))
        chosen = sorted(rng.choice(np.arange(1, length - 1), size=min(k, length - 2), replace=False))
        for j, q in enumerate(chosen):
            pos[i, j], lab[i, j] = q, ids[i, q]
            ids[i, q] = 4
    return dict(
        input_ids=ids,
        lengths=lengths,
        segment_b_start=bstart,
        sentence_order_label=rng.integers(0, 2, n).astype(np.int8),
        mlm_positions=pos,
        mlm_labels=lab,
    )


def write_store(path, examples, batch=7):
    w = ExampleStoreWriter(path, max_seq_length=L, max_predictions=P, meta=META)
    n = len(examples["lengths"])
    for s in range(0, n, batch):
        w.append_batch(**{k: v[s : s + batch] for k, v in examples.items()})
    return w.close(stats={"examples": n})


def test_round_trip_and_trimmed_batches(tmp_path):
    ex = random_examples(50)
    write_store(tmp_path / "s", ex)
    store = ExampleStore(tmp_path / "s")
    assert len(store) == 50 and store.task == "sop" and store.special_ids == SPECIAL
    assert store.meta["stats"] == {"examples": 50} and store.meta["config"] == {"seed": 1}
    store.verify()
    for name, arr in ex.items():
        np.testing.assert_array_equal(np.asarray(store.arrays[name]), arr)
    idx = np.array([3, 0, 41, 17])
    b = store.get_batch(idx)
    t = int(ex["lengths"][idx].max())
    assert all(v.dtype == np.int64 for v in b.values())
    assert b["input_ids"].shape == (4, t)
    for r, i in enumerate(idx):
        n = int(ex["lengths"][i])
        bs = int(ex["segment_b_start"][i])
        np.testing.assert_array_equal(b["input_ids"][r, :n], ex["input_ids"][i, :n])
        assert b["attention_mask"][r].tolist() == [1] * n + [0] * (t - n)
        assert b["token_type_ids"][r].tolist() == [0] * bs + [1] * (n - bs) + [0] * (t - n)
        assert b["sentence_order_label"][r] == ex["sentence_order_label"][i]
        real = [(int(p), int(q)) for p, q in zip(ex["mlm_positions"][i], ex["mlm_labels"][i]) if p >= 0]
        got = [(int(p), int(q)) for p, q in zip(b["mlm_positions"][r], b["mlm_labels"][r]) if p >= 0]
        assert got == real
    p_max = max(1, max(int((ex["mlm_positions"][i] >= 0).sum()) for i in idx))
    assert b["mlm_positions"].shape == (4, p_max) and b["mlm_labels"].shape == (4, p_max)
    assert np.all((b["mlm_positions"] == -1) == (b["mlm_labels"] == -100))


def test_empty_store_and_bad_append(tmp_path):
    w = ExampleStoreWriter(tmp_path / "e", max_seq_length=L, max_predictions=P, meta=META)
    with pytest.raises(ValueError, match="input_ids has shape"):
        w.append_batch(**{**random_examples(2), "input_ids": np.zeros((2, L + 1), np.int32)})
    w.close()
    assert len(ExampleStore(tmp_path / "e")) == 0
    with pytest.raises(ValueError, match="lacks"):
        ExampleStoreWriter(tmp_path / "x", max_seq_length=L, max_predictions=P, meta={"task": "sop"})


def test_atomic_write_and_replace(tmp_path):
    path = tmp_path / "s"
    w = ExampleStoreWriter(path, max_seq_length=L, max_predictions=P, meta=META)
    w.append_batch(**random_examples(5))
    assert not path.exists()  # nothing under the final name until close
    w.close()
    assert len(ExampleStore(path)) == 5
    # a failed rewrite leaves the old store intact and no temporary directory behind
    with pytest.raises(RuntimeError):
        with ExampleStoreWriter(path, max_seq_length=L, max_predictions=P, meta=META) as w2:
            w2.append_batch(**random_examples(3))
            raise RuntimeError("interrupted")
    assert len(ExampleStore(path)) == 5
    assert [p.name for p in tmp_path.iterdir()] == ["s"]
    write_store(path, random_examples(9, seed=3))
    assert len(ExampleStore(path)) == 9
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_incomplete_and_corrupt_stores_are_errors(tmp_path):
    path = tmp_path / "s"
    write_store(path, random_examples(20))
    with pytest.raises(DataFormatError, match="no meta.json"):
        ExampleStore(tmp_path / "missing")
    meta = json.loads((path / "meta.json").read_text())

    (path / "meta.json").write_text(json.dumps({**meta, "complete": False}))
    with pytest.raises(DataFormatError, match="not marked complete"):
        ExampleStore(path)
    (path / "meta.json").write_text(json.dumps({**meta, "format": "other"}))
    with pytest.raises(DataFormatError, match="format"):
        ExampleStore(path)
    (path / "meta.json").write_text("{not json")
    with pytest.raises(DataFormatError, match="not valid JSON"):
        ExampleStore(path)
    (path / "meta.json").write_text(json.dumps({**meta, "num_examples": 21}))
    with pytest.raises(DataFormatError, match=r"input_ids.npy is int32\[20, 16\], meta.json expects int32\[21, 16\]"):
        ExampleStore(path)
    (path / "meta.json").write_text(json.dumps(meta))

    data = (path / "input_ids.npy").read_bytes()
    (path / "input_ids.npy").write_bytes(data[: len(data) // 2])  # truncated copy
    with pytest.raises(DataFormatError, match="input_ids.npy"):
        ExampleStore(path)
    (path / "input_ids.npy").write_bytes(data)
    (path / "mlm_labels.npy").unlink()
    with pytest.raises(DataFormatError, match="missing mlm_labels.npy"):
        ExampleStore(path)


def test_verify_catches_inconsistent_content(tmp_path):
    ex = random_examples(10)
    ex["mlm_labels"][4, :] = -100
    ex["mlm_positions"][4, 0] = 2  # a position without a label
    write_store(tmp_path / "s", ex)
    with pytest.raises(DataFormatError, match="mlm positions/labels inconsistent"):
        ExampleStore(tmp_path / "s").verify()


def test_index_out_of_range(tmp_path):
    write_store(tmp_path / "s", random_examples(4))
    with pytest.raises(IndexError):
        ExampleStore(tmp_path / "s").get_batch(np.array([4]))


def test_batches_are_contiguous_for_the_pinned_copy(tmp_path):
    """Every array of a batch is C-contiguous (``mlm_positions`` was a strided slice of the store)."""
    ex = random_examples(20)
    ex["mlm_positions"][:, 2:], ex["mlm_labels"][:, 2:] = -1, -100  # fewer predictions than the store's width
    batch = ExampleStore(write_store(tmp_path / "s", ex)).get_batch([0, 3, 5])
    assert batch["mlm_positions"].shape[1] < P
    assert all(v.flags["C_CONTIGUOUS"] for v in batch.values()), {k: v.strides for k, v in batch.items()}
