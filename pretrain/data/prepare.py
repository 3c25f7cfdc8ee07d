"""``pretrain prepare``: raw documents -> pieces -> ALBERT examples -> an example store, once.

The story: sample documents across languages (:mod:`.documents`), tokenize them in batches with
sentencepiece (its tables: :mod:`.tokenizer_tables`), cut each into A/B pairs with an SOP or NSP label
(:mod:`.pairs`), mask whole-word n-grams (:mod:`.masking`), shuffle in bounded blocks (:mod:`.example_writer`) and
stream to disk (:mod:`.store`). One seeded
``numpy`` generator drives every choice in stream order, so a config and a seed give byte-identical
stores. When the output already holds a store of the same config, tokenizer (sha256) and input
files, it is returned as it is.

>>> cfg = PrepareConfig(inputs=["raw_text_large/en"], tokenizer="runs/tok", output="runs/ex")  # doctest: +SKIP
>>> prepare(cfg).path                                                                       # doctest: +SKIP
PosixPath('runs/ex')
"""

from __future__ import annotations

import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
from tqdm import tqdm

from pretrain.data.config import PrepareConfig
from pretrain.data.documents import (
    LanguagePlan,
    document_bytes,
    plan_languages,
    resolve_inputs,
    sample_documents,
    split_sentences,
)
from pretrain.data.example_writer import ExampleWriter
from pretrain.data.store import ExampleStore, ExampleStoreWriter, read_meta
from pretrain.data.tokenizer_tables import TokenizerTables, load_tokenizer_tables
from tokstudy.data.rawtext import Document
from tokstudy.errors import DataFormatError


@dataclass(frozen=True)
class PrepareResult:
    """What :func:`prepare` did: the store path, whether it was reused, and throughput (not stored)."""

    path: Path
    reused: bool
    num_examples: int
    tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


def input_fingerprint(files: dict[str, list[Path]]) -> list[dict[str, Any]]:
    """Names and on-disk sizes of the input files (part of the reuse key)."""
    return [{"language": lang, "file": str(f), "bytes": f.stat().st_size} for lang, fs in files.items() for f in fs]


def reusable(output: Path, config: PrepareConfig, tokenizer_sha: str, inputs: list[dict]) -> bool:
    """Whether ``output`` holds a complete store made from the same config, tokenizer and inputs."""
    if not (output / "meta.json").is_file():
        return False
    try:
        meta = read_meta(output)
        ExampleStore(output)
    except DataFormatError:
        return False
    return (
        meta.get("config") == config.identity()
        and meta.get("tokenizer", {}).get("sha256") == tokenizer_sha
        and meta.get("inputs") == inputs
    )


def prepare(config: PrepareConfig, *, progress: bool = True, force: bool = False) -> PrepareResult:
    """Write (or reuse) the example store described by ``config``; see the module docstring."""
    if not config.output:
        raise ValueError("PrepareConfig.output is empty: where should the store go?")
    if not config.tokenizer:
        raise ValueError("PrepareConfig.tokenizer is empty: give the directory of a trained tokenizer")
    output = Path(config.output)
    files = resolve_inputs(config.inputs, languages=config.languages)
    inputs = input_fingerprint(files)
    sp, tables = load_tokenizer_tables(config.tokenizer)
    if not force and reusable(output, config, tables.sha256, inputs):
        store = ExampleStore(output)
        _log(progress, f"prepare: reusing {output} ({len(store)} examples; same config, tokenizer and inputs)")
        return PrepareResult(output, True, len(store), int(np.asarray(store.lengths, dtype=np.int64).sum()), 0.0)

    start = time.perf_counter()
    plans = plan_languages(files, alpha=config.language_alpha)
    meta = {
        "vocab_size": tables.vocab_size,
        "special_ids": tables.special_ids,
        "task": config.task,
        "tokenizer": {"path": str(tables.model_file), "sha256": tables.sha256},
        "config": config.identity(),
        "inputs": inputs,
    }
    with ExampleStoreWriter(
        output, max_seq_length=config.max_seq_length, max_predictions=config.max_predictions, meta=meta
    ) as writer:
        stats, tokens = _write_examples(config, sp, tables, plans, writer, progress)
        writer.close(stats=stats)
    seconds = time.perf_counter() - start
    result = PrepareResult(output, False, writer.num_examples, tokens, seconds)
    _log(
        progress,
        f"prepare: {result.num_examples} examples, {tokens} tokens in {seconds:.1f}s "
        f"({result.tokens_per_second:,.0f} tokens/s) -> {output}",
    )
    return result


def _log(enabled: bool, message: str) -> None:
    if enabled:
        print(message, file=sys.stderr)


def _encoded_documents(
    docs: Iterable[Document], sp, config: PrepareConfig
) -> Iterator[tuple[Document, list[np.ndarray]]]:
    """Documents with their segments as piece-id arrays; one sentencepiece call per batch of documents."""
    batch: list[Document] = []

    def flush():
        segs = [
            [s for line in d.lines for s in (split_sentences(line) if config.split_sentences else [line])]
            for d in batch
        ]
        flat = [s for doc_segs in segs for s in doc_segs]
        ids = sp.encode(flat, out_type=int) if flat else []
        k = 0
        for d, doc_segs in zip(batch, segs):
            yield d, [np.asarray(x, dtype=np.int32) for x in ids[k : k + len(doc_segs)]]
            k += len(doc_segs)

    for doc in docs:
        batch.append(doc)
        if len(batch) >= config.encode_batch_documents:
            yield from flush()
            batch = []
    if batch:
        yield from flush()


def _write_examples(
    config: PrepareConfig,
    sp,
    tables: TokenizerTables,
    plans: list[LanguagePlan],
    writer: ExampleStoreWriter,
    progress: bool,
) -> tuple[dict[str, Any], int]:
    """Every sampled document's pairs of segments, masked and written in shuffled blocks; returns prepare's
    statistics and the number of tokens written."""
    examples = ExampleWriter(config, tables, plans, writer)
    buffers: dict[str, deque] = {p.language: deque(maxlen=config.nsp_buffer_documents) for p in plans}
    bar = _progress_bar(plans, progress)
    t0 = time.perf_counter()
    rng = examples.rng
    docs = sample_documents(plans, seed=config.seed)
    for doc, segments in _encoded_documents(docs, sp, config):
        lang = doc.language or "?"
        buf = buffers[lang]
        random_doc = (lambda: buf[int(rng.integers(0, len(buf)))] if buf else None) if config.task == "nsp" else None
        examples.count_document(lang, document_bytes(doc))
        bar.update(document_bytes(doc))
        examples.write_document(segments, lang, random_doc)
        if config.task == "nsp":
            buf.append(examples.builder.prepare_segments(segments))
        bar.set_postfix_str(
            f"{examples.examples} examples, {examples.tokens / max(time.perf_counter() - t0, 1e-9):,.0f} tok/s",
            refresh=False,
        )
        if examples.done():
            break
    examples.close()
    bar.close()
    return examples.stats(plans), examples.tokens


def _progress_bar(plans: list[LanguagePlan], progress: bool):
    """Bytes of text read, of those the plans expect."""
    return tqdm(
        total=int(sum(p.expected_bytes for p in plans)),
        unit="B",
        unit_scale=True,
        disable=not progress,
        desc="prepare",
        file=sys.stderr,
        mininterval=1.0,
    )
