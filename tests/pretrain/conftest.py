"""Fixtures for the pre-trainer's tests: a tokenizer trained on the real raw text, and an example store.

The tokenizer is an ALBERT-style SentencePiece unigram model (pad=0, unk=1, control symbols
[CLS] [SEP] [MASK]) with the Hugging Face files tokstudy writes beside it, so
``AutoTokenizer.from_pretrained(dir)`` loads it. The store is made from consecutive English
sentences with a small example builder local to these tests (single-token masking 80/10/10,
SOP swap with probability 0.5): the trainer's tests need realistic examples, not the
n-gram masking that ``pretrain prepare`` implements and tests on its own.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import corpus_path

os.environ.setdefault("OMP_NUM_THREADS", "1")

VOCAB_SIZE = 600
MAX_SEQ = 64
MAX_PRED = 10
N_SENTENCES = 3000


def read_sentences(n: int = N_SENTENCES) -> list[str]:
    path = corpus_path("raw_text") / "en.txt.gz"
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(line)
            if len(out) >= n:
                break
    return out


def train_tokenizer(sentences: list[str], directory: Path, vocab_size: int = VOCAB_SIZE) -> Path:
    """An ALBERT-style SentencePiece model plus its Hugging Face files in ``directory``."""
    import sentencepiece as spm

    from tokstudy.tokenization.hf_export import (
        ALBERT_SPECIALS,
        add_albert_post_processor,
        spm_to_hf_tokenizer,
        write_hf_files,
    )

    directory.mkdir(parents=True, exist_ok=True)
    text = directory / "train.txt"
    text.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(text), model_prefix=str(directory / "spiece"), vocab_size=vocab_size, model_type="unigram",
        pad_id=0, unk_id=1, bos_id=-1, eos_id=-1, control_symbols="[CLS],[SEP],[MASK]",
        character_coverage=1.0, minloglevel=2, num_threads=1,
    )
    text.unlink()
    (directory / "spiece.vocab").unlink(missing_ok=True)
    tok = spm_to_hf_tokenizer(directory / "spiece.model", algorithm="unigram")
    add_albert_post_processor(tok)
    write_hf_files(tok, directory, special_tokens=ALBERT_SPECIALS)
    return directory


def build_store(sentences: list[str], tokenizer_dir: Path, path: Path, *, seed: int = 0,
                max_seq: int = MAX_SEQ, max_pred: int = MAX_PRED) -> Path:
    """Examples [CLS] A [SEP] B [SEP] from consecutive sentences, single-token masking, SOP labels."""
    import sentencepiece as spm

    from pretrain.data.store import ExampleStoreWriter

    sp = spm.SentencePieceProcessor(model_file=str(tokenizer_dir / "spiece.model"))
    ids = {p: sp.piece_to_id(p) for p in ("[CLS]", "[SEP]", "[MASK]")}
    cls_id, sep_id, mask_id = ids["[CLS]"], ids["[SEP]"], ids["[MASK]"]
    vocab = sp.get_piece_size()
    rng = np.random.default_rng(seed)
    encoded = [sp.encode(s) for s in sentences]
    half = (max_seq - 3) // 2
    rows = {k: [] for k in ("input_ids", "lengths", "segment_b_start", "sentence_order_label", "mlm_positions", "mlm_labels")}
    for i in range(0, len(encoded) - 1, 2):
        a, b = encoded[i][:half], encoded[i + 1][:half]
        if not a or not b:
            continue
        swap = int(rng.random() < 0.5)
        if swap:
            a, b = b, a
        tokens = [cls_id, *a, sep_id, *b, sep_id]
        candidates = [j for j, t in enumerate(tokens) if t not in (cls_id, sep_id)]
        n_mask = min(max_pred, max(1, round(0.15 * len(candidates))))
        chosen = np.sort(rng.choice(candidates, size=n_mask, replace=False))
        labels = [tokens[j] for j in chosen]
        for j in chosen:
            r = rng.random()
            tokens[j] = mask_id if r < 0.8 else (int(rng.integers(5, vocab)) if r < 0.9 else tokens[j])
        row = np.zeros(max_seq, dtype=np.int64)
        row[: len(tokens)] = tokens
        pos = np.full(max_pred, -1, dtype=np.int64)
        lab = np.full(max_pred, -100, dtype=np.int64)
        pos[:n_mask], lab[:n_mask] = chosen, labels
        rows["input_ids"].append(row)
        rows["lengths"].append(len(tokens))
        rows["segment_b_start"].append(len(a) + 2)
        rows["sentence_order_label"].append(swap)
        rows["mlm_positions"].append(pos)
        rows["mlm_labels"].append(lab)
    meta = {
        "vocab_size": vocab,
        "special_ids": {"pad": 0, "unk": 1, "cls": cls_id, "sep": sep_id, "mask": mask_id},
        "task": "sop",
        "tokenizer": {"path": str(tokenizer_dir)},
    }
    writer = ExampleStoreWriter(path, max_seq_length=max_seq, max_predictions=max_pred, meta=meta)
    writer.append_batch(**{k: np.stack(v) if k in ("input_ids", "mlm_positions", "mlm_labels") else np.array(v)
                           for k, v in rows.items()})
    return writer.close()


@pytest.fixture(scope="session")
def sentences() -> list[str]:
    return read_sentences()


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory, sentences) -> Path:
    return train_tokenizer(sentences, tmp_path_factory.mktemp("tok") / "spm600")


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory, sentences, tokenizer_dir) -> Path:
    return build_store(sentences, tokenizer_dir, tmp_path_factory.mktemp("store") / "examples")


@pytest.fixture(scope="session")
def store(store_dir):
    from pretrain.data.store import ExampleStore

    return ExampleStore(store_dir)
