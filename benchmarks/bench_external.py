"""Word predictions from a model fine-tuned elsewhere: ``pretrain evaluate`` against Hugging Face's pipeline.

Run (CPU):

    TOKSTUDY_DATA=/work/shared/data .venv/bin/python benchmarks/bench_external.py [--every 8]

The model is BERT-base-sized (hidden 768, 12 layers, 12 heads, FFN 3072, 512 positions: 86 M parameters without
the embeddings) with random weights (speed does not depend on them), a WordPiece vocabulary of up to 28,996
pieces trained here on the shared English raw text and CoNLL-2003 train, and dslim/bert-base-NER's label order.
Both sides label the same CoNLL-2003 test sentences (all, or every ``--every``-th: a sample with the split's
mix of lengths, which decides how much padding each side computes) with the same model and batch size:

* ours: :func:`pretrain.finetune.external.evaluate_external` end to end (loading the model from disk, word
  alignment, length-sorted windows, the forward passes, the words' tags, the scores, the predictions file);
* the pipeline: ``pipeline("token-classification", aggregation_strategy="first")`` called on the pre-split words
  (``is_split_into_words=True``, ``batch_size=B``), built beforehand.

Each side runs ``--repeats`` times, alternately; the best time of each is reported (the machine may be shared).
The labels are compared as entity spans (type, first and last character): over all sentences, over the
sentences whose words the pipeline's subword test groups as ``word_ids()`` does (ASCII letters and digits only),
and the sentences that differ are checked for a word the pipeline regroups (its pre-tokenizer splits the word,
as ``U.S.`` or ``1-0``, and each part then counts as a word; or an unknown piece, which it counts as a word).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# torch and transformers: this benchmark measures predictions from a Hugging Face model, which needs them
import torch  # noqa: E402
from transformers import AutoModelForTokenClassification, AutoTokenizer, BertConfig, pipeline  # noqa: E402

from pretrain.finetune.external import ExternalOptions, evaluate_external  # noqa: E402
from tests.fixtures_hf_models import LABELS, _lines, train_tokenizer  # noqa: E402
from tokstudy.analysis.model_errors.predictions import read_predictions  # noqa: E402
from tokstudy.data.registry import load_dataset  # noqa: E402
from tokstudy.data.types import iob2_spans  # noqa: E402

BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--every", type=int, default=1, help="every K-th sentence of CoNLL-2003 test, its lengths kept (default: all)"
    )
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    return ap.parse_args()


def build_model(root: Path) -> Path:
    """The BERT-base-sized token classifier with its WordPiece tokenizer, saved as ``save_pretrained`` writes."""
    lines = _lines(20000) + [" ".join(s.words) for s in load_dataset("conll2003", "train")]
    tok = train_tokenizer("bert", lines, vocab_size=28996)
    tok.model_max_length = 512
    labels = LABELS["bert"]
    config = BertConfig(
        vocab_size=len(tok),
        max_position_embeddings=512,
        id2label=dict(enumerate(labels)),
        label2id={l: i for i, l in enumerate(labels)},
        **BASE,
    )
    torch.manual_seed(0)
    model = AutoModelForTokenClassification.from_config(config)
    model.save_pretrained(root / "bert-base-ner")
    tok.save_pretrained(root / "bert-base-ner")
    return root / "bert-base-ner"


def spans(tags, words) -> set[tuple[str, int, int]]:
    """Entity spans as ``(type, start char, end char)`` in the words joined by spaces (the pipeline's offsets)."""
    starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
    return {(t, starts[a], starts[b - 1] + len(words[b - 1])) for a, b, t in iob2_spans(tags)}


def main() -> None:
    args = parse_args()
    print(runinfo.describe(torch=True), flush=True)
    print(f"torch threads {torch.get_num_threads()}, device {args.device}, batch size {args.batch_size}")
    root = Path(tempfile.mkdtemp(prefix="bench-external-"))
    model_dir = build_model(root)
    test = load_dataset("conll2003", "test")
    test = test.with_meta(sentences=test.sentences[:: args.every])
    words = [list(s.words) for s in test]
    tok = AutoTokenizer.from_pretrained(str(model_dir))
    hf_model = AutoModelForTokenClassification.from_pretrained(str(model_dir)).eval()
    n_params = sum(p.numel() for p in hf_model.parameters())
    pipe = pipeline(
        "token-classification", model=hf_model, tokenizer=tok, aggregation_strategy="first", device=args.device
    )
    options = ExternalOptions(batch_size=args.batch_size, device=args.device)
    ours, theirs, found = [], [], None
    for _ in range(args.repeats):
        start = time.perf_counter()
        evaluate_external(model_dir, test, options=options, predictions=root / "pred.tsv")
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        found = pipe(words, is_split_into_words=True, batch_size=args.batch_size)
        theirs.append(time.perf_counter() - start)
    pred = read_predictions(root / "pred.tsv").sentences
    names = {label.split("-")[-1]: label.split("-")[-1] for label in LABELS["bert"]}
    same = [
        spans(p.pred, s.words) == {(names[g["entity_group"]], g["start"], g["end"]) for g in f}
        for p, s, f in zip(pred, test, found)
    ]
    plain = [i for i, s in enumerate(test) if all(w.isascii() and w.isalnum() for w in s.words)]
    # where the pipeline's subword test sees other words: a word its pre-tokenizer splits, or an unknown piece
    pre = tok.backend_tokenizer.pre_tokenizer
    regrouped = [
        i
        for i, s in enumerate(test)
        if any(len(pre.pre_tokenize_str(w)) > 1 or tok.unk_token_id in tok(w)["input_ids"] for w in s.words)
    ]
    n_pieces = sum(len(tok(w, is_split_into_words=True, add_special_tokens=False)["input_ids"]) for w in words)
    print(
        f"model {n_params / 1e6:.1f} M parameters, vocabulary {len(tok):,}; {len(words):,} sentences, "
        f"{test.n_words:,} words, {n_pieces:,} pieces"
    )
    print("| side | best s | sentences/s | times (s) |")
    print("|---|---|---|---|")
    for side, times in (("pretrain evaluate", ours), ("HF pipeline, first", theirs)):
        print(
            f"| {side} | {min(times):.1f} | {len(words) / min(times):,.1f} | {' / '.join(f'{t:.1f}' for t in times)} |"
        )
    print(f"speed-up {min(theirs) / min(ours):.2f}x")
    print(
        f"same entities in {sum(same):,} of {len(same):,} sentences; in {sum(same[i] for i in plain):,} of "
        f"{len(plain):,} sentences of ASCII letters and digits only; of the {len(same) - sum(same):,} others, "
        f"{sum(1 for i in regrouped if not same[i]):,} hold a word the pipeline regroups (split by its "
        "pre-tokenizer, or an unknown piece)"
    )


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
