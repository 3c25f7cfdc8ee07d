"""``pretrain prepare``: raw documents -> pieces -> ALBERT examples -> an example store, once.

The story: sample documents across languages (:mod:`.documents`), tokenize them in batches with
sentencepiece, cut each into A/B pairs with an SOP or NSP label (:mod:`.examples`), mask whole-word
n-grams (:mod:`.masking`), shuffle in bounded blocks and stream to disk (:mod:`.store`). One seeded
``numpy`` generator drives every choice in stream order, so a config and a seed give byte-identical
stores. When the output already holds a store of the same config, tokenizer (sha256) and input
files, it is returned as it is.

>>> cfg = PrepareConfig(inputs=["raw_text_large/en"], tokenizer="runs/tok", output="runs/ex")  # doctest: +SKIP
>>> prepare(cfg).path                                                                       # doctest: +SKIP
PosixPath('runs/ex')
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from pretrain.data.config import PrepareConfig
from pretrain.data.documents import (
    LanguagePlan,
    document_bytes,
    plan_languages,
    resolve_inputs,
    sample_documents,
    split_sentences,
)
from pretrain.data.masking import NgramMasker, is_word_start_piece
from pretrain.data.pairs import PairBuilder
from pretrain.data.store import PAD_LABEL, PAD_POSITION, ExampleStore, ExampleStoreWriter, read_meta
from tokstudy.data.rawtext import Document
from tokstudy.errors import DataFormatError, TokenizerLoadError

SPECIAL_PIECES = {"cls": "[CLS]", "sep": "[SEP]", "mask": "[MASK]"}


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


@dataclass(frozen=True)
class TokenizerTables:
    """What prepare needs from a sentencepiece model, computed once."""

    model_file: Path
    """The SentencePiece ``.model`` file."""
    sha256: str
    """Hash of the model file (part of the store's identity, so a changed tokenizer rebuilds the store)."""
    vocab_size: int
    """Pieces in the vocabulary (V)."""
    special_ids: dict[str, int]
    """Ids of the special pieces (``cls``, ``sep``, ``mask``, ``pad``, ``unk``)."""
    word_start: np.ndarray
    """bool [V]: the piece starts a word (special pieces count as starts)."""
    random_ids: np.ndarray
    """int32: the ordinary pieces a random replacement is drawn from."""


def model_file_of(tokenizer: str | Path) -> Path:
    """``spiece.model`` inside a tokenizer directory, or the given ``.model`` file."""
    path = Path(tokenizer).expanduser()
    if path.is_dir():
        path = path / "spiece.model"
    if not path.is_file():
        raise TokenizerLoadError(
            f"{path}: no sentencepiece model (expected a directory with spiece.model, as "
            f"`tokstudy train-tokenizer` writes, or a .model file)"
        )
    return path


def load_tokenizer_tables(tokenizer: str | Path):
    """The sentencepiece processor and its :class:`TokenizerTables`; ALBERT specials are required."""
    import sentencepiece as spm

    model_file = model_file_of(tokenizer)
    sp = spm.SentencePieceProcessor()
    try:
        sp.Load(str(model_file))
    except (OSError, RuntimeError) as exc:
        raise TokenizerLoadError(f"{model_file}: cannot load sentencepiece model ({exc})") from exc
    special = {"pad": sp.pad_id(), "unk": sp.unk_id()}
    for key, piece in SPECIAL_PIECES.items():
        pid = sp.piece_to_id(piece)
        special[key] = pid if pid != sp.unk_id() or piece == sp.id_to_piece(pid) else -1
    missing = [k for k, v in special.items() if v < 0]
    if missing:
        raise TokenizerLoadError(
            f"{model_file}: the model lacks ALBERT special pieces {missing}; train it with pad_id=0, unk_id=1 and "
            f"control_symbols [CLS] [SEP] [MASK] (as `tokstudy train-tokenizer` does)"
        )
    v = sp.get_piece_size()
    pieces = [sp.id_to_piece(i) for i in range(v)]
    special_flag = np.array(
        [sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i) or sp.is_byte(i) for i in range(v)], dtype=bool
    )
    special_flag[list(special.values())] = True
    word_start = np.array([is_word_start_piece(p) for p in pieces], dtype=bool) | special_flag
    tables = TokenizerTables(
        model_file=model_file,
        sha256=hashlib.sha256(model_file.read_bytes()).hexdigest(),
        vocab_size=v,
        special_ids=special,
        word_start=word_start,
        random_ids=np.flatnonzero(~special_flag).astype(np.int32),
    )
    return sp, tables


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


class _Block:
    """A bounded block of examples, shuffled and written when full."""

    def __init__(self, size: int, length: int, predictions: int, pad: int):
        self.ids = np.full((size, length), pad, np.int32)
        self.lengths = np.zeros(size, np.int16)
        self.b_start = np.zeros(size, np.int16)
        self.labels = np.zeros(size, np.int8)
        self.positions = np.full((size, predictions), PAD_POSITION, np.int16)
        self.mlm_labels = np.full((size, predictions), PAD_LABEL, np.int32)
        self.n = 0
        self.pad = pad

    def full(self) -> bool:
        return self.n == len(self.lengths)

    def add(self, ids: np.ndarray, b_start: int, label: int, positions: np.ndarray, labels: np.ndarray) -> None:
        i = self.n
        self.ids[i, : len(ids)] = ids
        self.lengths[i], self.b_start[i], self.labels[i] = len(ids), b_start, label
        self.positions[i, : len(positions)] = positions
        self.mlm_labels[i, : len(labels)] = labels
        self.n += 1

    def flush(self, writer: ExampleStoreWriter, rng: np.random.Generator) -> None:
        if self.n:
            order = rng.permutation(self.n)
            writer.append_batch(
                input_ids=self.ids[order],
                lengths=self.lengths[order],
                segment_b_start=self.b_start[order],
                sentence_order_label=self.labels[order],
                mlm_positions=self.positions[order],
                mlm_labels=self.mlm_labels[order],
            )
        self.ids.fill(self.pad)
        self.positions.fill(PAD_POSITION)
        self.mlm_labels.fill(PAD_LABEL)
        self.n = 0


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
    examples = _ExampleWriter(config, tables, plans, writer)
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
    from tqdm import tqdm

    return tqdm(
        total=int(sum(p.expected_bytes for p in plans)),
        unit="B",
        unit_scale=True,
        disable=not progress,
        desc="prepare",
        file=sys.stderr,
        mininterval=1.0,
    )


class _ExampleWriter:
    """Pairs of segments -> masked examples -> shuffled blocks of the store, counted as they are written.

    One random generator (seeded ``[config.seed, 1]``) draws the pairs, the masks and the block order, in the
    order the documents come.
    """

    def __init__(self, config: PrepareConfig, tables: TokenizerTables, plans: list[LanguagePlan], writer):
        sid = tables.special_ids
        self.config, self.writer = config, writer
        self.rng = np.random.default_rng([config.seed, 1])
        self.builder = PairBuilder(
            max_num_tokens=config.max_num_tokens,
            word_start=tables.word_start,
            short_seq_prob=config.short_seq_prob,
            task=config.task,
            single_segment=config.single_segment,
        )
        self.masker = NgramMasker(
            word_start=tables.word_start,
            mask_id=sid["mask"],
            random_ids=tables.random_ids,
            max_predictions=config.max_predictions,
            masked_lm_prob=config.masked_lm_prob,
            max_ngram=config.max_ngram,
            mask_token_prob=config.mask_token_prob,
            random_token_prob=config.random_token_prob,
        )
        self.block = _Block(config.shuffle_buffer, config.max_seq_length, config.max_predictions, sid["pad"])
        self.cls, self.sep = np.array([sid["cls"]], np.int32), np.array([sid["sep"]], np.int32)
        self.per_lang: dict[str, Counter] = {p.language: Counter() for p in plans}
        self.ngram_hist: Counter = Counter()
        self.ngram_drawn: Counter = Counter()
        self.replaced = np.zeros(3, np.int64)
        self.tokens = self.masked = self.examples = 0

    def done(self) -> bool:
        """``max_examples`` reached."""
        return self.config.max_examples is not None and self.examples >= self.config.max_examples

    def count_document(self, lang: str, n_bytes: int) -> None:
        c = self.per_lang[lang]
        c["documents"] += 1
        c["bytes"] += n_bytes

    def write_document(self, segments: list[np.ndarray], lang: str, random_doc) -> None:
        """``dupe_factor`` passes of pairs over one document's segments (``random_doc`` draws a NSP partner)."""
        for _ in range(self.config.dupe_factor):
            for a, b, label in self.builder.pairs(segments, self.rng, random_doc):
                self._write_pair(a, b, label, lang)
                if self.done():
                    return
            if self.done():
                return

    def _write_pair(self, a: np.ndarray, b: np.ndarray, label: int, lang: str) -> None:
        ids = np.concatenate([self.cls, a, self.sep, b, self.sep])
        r = self.masker.mask(ids, b_start=len(a) + 2, rng=self.rng)
        self.block.add(r.input_ids, len(a) + 2, label, r.positions, r.labels)
        self.ngram_hist.update(r.ngram_lengths)
        self.ngram_drawn.update(r.ngram_draws)
        self.replaced += np.bincount(r.replaced, minlength=3)
        self.tokens += len(ids)
        self.masked += len(r.positions)
        self.examples += 1
        self.per_lang[lang]["examples"] += 1
        if self.block.full():
            self.block.flush(self.writer, self.rng)

    def close(self) -> None:
        """Write the last, partial block."""
        self.block.flush(self.writer, self.rng)

    def stats(self, plans: list[LanguagePlan]) -> dict[str, Any]:
        """What was written: examples, tokens, masking, pairs, and per language."""
        replaced = self.replaced
        return {
            "examples": self.examples,
            "tokens": self.tokens,
            "masked_tokens": self.masked,
            "masked_replaced_by": {"mask": int(replaced[0]), "random": int(replaced[1]), "unchanged": int(replaced[2])},
            "ngram_lengths": {str(k): int(v) for k, v in sorted(self.ngram_hist.items())},
            "ngram_lengths_drawn": {str(k): int(v) for k, v in sorted(self.ngram_drawn.items())},
            "pairs": dict(sorted(self.builder.stats.items())),
            "languages": {
                p.language: {
                    "text_bytes": p.bytes,
                    "probability": round(p.probability, 6),
                    "rate": round(p.rate, 6),
                    **dict(self.per_lang[p.language]),
                }
                for p in plans
            },
        }
