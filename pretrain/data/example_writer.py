"""Pairs of segments -> masked examples -> shuffled blocks of the example store, counted as they are written (the
statistics ``meta.json`` keeps). One random generator draws the pairs, the masks and the block order, in the order
the documents come, so a config and a seed give byte-identical stores.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from pretrain.data.config import PrepareConfig
from pretrain.data.documents import LanguagePlan
from pretrain.data.masking import NgramMasker
from pretrain.data.pairs import PairBuilder
from pretrain.data.store import PAD_LABEL, PAD_POSITION, ExampleStoreWriter
from pretrain.data.tokenizer_tables import TokenizerTables


class ExampleWriter:
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
