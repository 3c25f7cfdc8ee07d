"""Fine-tuning throughput: training and inference sentences/s for a tiny and a small ALBERT.

Run (CPU, 2 threads as on the dev machine):

    OMP_NUM_THREADS=2 TOKSTUDY_DATA=/work/shared/data .venv/bin/python benchmarks/bench_finetune.py

On a GPU machine add ``--device cuda``. Models are random-initialised (speed does not
depend on the weights) with a 2k SentencePiece vocabulary trained on the shared raw text.
Training: one epoch over the first ``--train`` SNIPS / CoNLL-2003 training sentences
(forward, backward, AdamW step; dynamic padding, length-grouped batches of 32).
Inference: ``predict_tags`` over the dev split (windows, first-piece predictions, batch 64), word by word
(argmax) and with Viterbi decoding under the training labels' bigrams (``decode: viterbi``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import runinfo  # a sibling script module: benchmarks/ is sys.path[0] when a benchmark runs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# torch and transformers: this benchmark measures the pre-trainer's fine-tuning, which needs them
import torch  # noqa: E402
from transformers import AlbertConfig, AlbertModel  # noqa: E402

from pretrain.finetune.config import FinetuneConfig  # noqa: E402
from pretrain.finetune.data import prepare_task  # noqa: E402
from pretrain.finetune.decoding import label_bigrams  # noqa: E402
from pretrain.finetune.features import special_ids, token_windows, word_pieces  # noqa: E402
from pretrain.finetune.modeling import load_for_task  # noqa: E402
from pretrain.finetune.predict import predict_tags  # noqa: E402
from pretrain.finetune.trainer import train  # noqa: E402
from tests.finetune.conftest import build_tiny_albert  # noqa: E402
from tokstudy.data.registry import load_dataset  # noqa: E402

SIZES = {
    "tiny": dict(embedding_size=32, hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128),
    "small": dict(
        embedding_size=128, hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024
    ),
}


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--train", type=int, default=1000, help="training sentences (one epoch)")
    ap.add_argument("--datasets", nargs="+", default=["snips", "conll2003"])
    return ap.parse_args()


def model_of_size(size: str, base: Path, root: Path) -> Path:
    """A random-initialised ALBERT of ``SIZES[size]`` with the tiny model's tokenizer (the tiny one is ``base``)."""
    if size == "tiny":
        return base
    model_dir = root / size
    shutil.copytree(base, model_dir)
    for f in model_dir.glob("*.safetensors"):
        f.unlink()
    AlbertModel(AlbertConfig(vocab_size=2000, max_position_embeddings=128, **SIZES[size])).save_pretrained(model_dir)
    return model_dir


def measure(model_dir: Path, size: str, name: str, args) -> str:
    """One epoch of training on ``args.train`` sentences of ``name``, then inference on its dev split (argmax
    and Viterbi); the table's row."""
    tr = load_dataset(name, "train")
    tr = tr.with_meta(sentences=tr.sentences[: args.train])
    dev = load_dataset(name, "dev")
    data = prepare_task(tr, dev, dev, task="ner", unseen_labels="keep")
    model, tok = load_for_task(model_dir, "ner", data.labels)
    model.to(args.device)
    max_length = min(128, model.config.max_position_embeddings)
    cfg = FinetuneConfig(
        model=str(model_dir),
        task="ner",
        dataset=name,
        epochs=1,
        patience=0,
        progress=False,
        max_length=max_length,
        stride=16,
        device=args.device,
    )
    cls_id, sep_id, pad_id, _ = special_ids(tok)
    l2i = {l: i for i, l in enumerate(data.labels)}
    pieces = word_pieces(tok, [list(s.words) for s in data.train])
    tags = [[l2i[t] for t in s.tags] for s in data.train]
    items = token_windows(pieces, tags, cls_id=cls_id, sep_id=sep_id, max_length=max_length, stride=16)
    start = time.perf_counter()
    train(model, items, evaluate=lambda m: 0.0, config=cfg, seed=1, pad_id=pad_id, device=torch.device(args.device))
    train_rate = len(data.train) / (time.perf_counter() - start)
    words = [list(s.words) for s in data.dev]
    bigrams = label_bigrams(([l2i[t] for t in s.tags] for s in data.train), len(data.labels), prior_scale=0.5)
    rates = []
    for b in (None, bigrams):
        start = time.perf_counter()
        id2label = dict(enumerate(data.labels))
        predict_tags(model, tok, words, id2label, max_length=max_length, stride=16, bigrams=b)
        rates.append(len(words) / (time.perf_counter() - start))
    n_params = sum(p.numel() for p in model.parameters())
    return (
        f"| {size} | {n_params / 1e6:.2f} M | {name} | {train_rate:,.0f} | {rates[0]:,.0f} | {rates[1]:,.0f} "
        f"| {len(words)} | {data.dev.n_words / len(words):.1f} |"
    )


def main() -> None:
    args = parse_args()
    print(runinfo.describe(torch=True), flush=True)
    print(f"torch threads {torch.get_num_threads()}, device {args.device}")
    root = Path(tempfile.mkdtemp(prefix="bench-ft-"))
    base = build_tiny_albert(root / "tiny")
    print(
        "| model | params | dataset | train sent/s | inference sent/s (argmax) | inference sent/s (Viterbi) "
        "| dev sentences | words/sentence |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for size in SIZES:
        model_dir = model_of_size(size, base, root)
        for name in args.datasets:
            print(measure(model_dir, size, name, args), flush=True)


if __name__ == "__main__":
    main()
    print(runinfo.load_line())
