"""tokstudy's Python API in one page: segment CoNLL-2003 with two vocabularies, get Table 4,
correlate segmentation with a model's errors, and write a full report.

Run: TOKSTUDY_DATA=../shared/data python docs/api_example.py  (a test runs it as is)
"""

import random
import tempfile
from pathlib import Path

import sentencepiece as spm

import tokstudy as ts
from tokstudy.analysis.model_errors.aligned_predictions import align_predictions
from tokstudy.analysis.model_errors.predictions import write_predictions
from tokstudy.analysis.stats import additional_segmentation_by, segmentation_summary
from tokstudy.analysis.stats.estimates import BootstrapSettings
from tokstudy.data.rawtext import iter_sentences
from tokstudy.report.writer import write_report

work = Path(tempfile.mkdtemp())

# 1. Two small SentencePiece vocabularies (use your own tokenizers: .model, tokenizer.json or a directory)
corpus = work / "en.txt"
corpus.write_text("\n".join(iter_sentences(ts.corpus_dir("raw_text") / "en.txt.gz")) + "\n", encoding="utf-8")
for vocab in (2000, 8000):
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(work / f"sp{vocab}"), vocab_size=vocab, model_type="unigram", minloglevel=2
    )
tokenizers = [ts.load_tokenizer(work / f"sp{v}.model", name=f"sp{v // 1000}k") for v in (2000, 8000)]

# 2. One row per word, pieces under each tokenizer (one vectorised call per tokenizer)
test = ts.load_dataset("conll2003", "test")
table = ts.segmentation_table([test], tokenizers, progress=False)

# 3. Table 4: additional segmentation % (pieces / words - 1) of NE vs non-NE words, with 95% CIs
for name in table.tokenizer_names:
    t4 = ts.additional_segmentation(table, name, bootstrap=BootstrapSettings(200))
    print(f"{name}: NE {t4.ne:.2f}  non-NE {t4.non_ne:.2f}  ({t4.boundary_policy})")
print(additional_segmentation_by(table, "sp8k", by="entity_type", bootstrap=BootstrapSettings(0)).groups["PER"])
summary = segmentation_summary(table, "sp8k", bootstrap=BootstrapSettings(0))
print(f"fertility: {summary.all.fertility.value:.3f} pieces per word")

# 4. Correlation with a model's errors (here: fake predictions that miss long words more often;
#    `pretrain evaluate` writes real ones in the same format)
rng = random.Random(0)
preds = [(s.words, s.tags, [t if rng.random() > len(w) / 30 else "O" for w, t in zip(s.words, s.tags)]) for s in test]
write_predictions(work / "preds.tsv", preds, metadata={"model": "demo", "dataset": "conll2003", "split": "test"})
predictions = ts.read_predictions(work / "preds.tsv")
corr = ts.correlate_errors(table, predictions, "sp8k", bootstrap=BootstrapSettings(200))
print(f"Pearson r = {corr.all.r:.3f} (p = {corr.all.p_value:.2g}), 95% CI [{corr.all.low:.3f}, {corr.all.high:.3f}]")
print("error rate by pieces:", {b.pieces: round(b.error_rate, 3) for b in corr.by_pieces})

# 5. Everything at once: Table 3, Table 4, breakdowns, correlations, figures
files = write_report(
    table, work / "report", predictions=[align_predictions(table, predictions)], boot=BootstrapSettings(200)
)
print("report:", files.index)
