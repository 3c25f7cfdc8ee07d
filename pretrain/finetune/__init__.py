"""Fine-tuning and evaluation: NER / slot filling and sentence classification over N seeds.

Read top-down: ``config`` (settings) -> ``data`` (splits, label set, unseen-label policy) ->
``features`` (word -> pieces alignment, first-piece labels, windows) -> ``modeling`` (load and
check a local Hugging Face encoder) -> ``trainer`` (AdamW loop, early stopping) -> ``predict`` /
``evaluation`` (per-word predictions, seqeval scores, predictions files) -> ``run`` (N seeds,
atomic outputs, ``run.json``) -> ``results`` (Tables 1-2; mean ± std and Welch from
:mod:`tokstudy.analysis.stats.welch`).

A model fine-tuned elsewhere (``pretrain evaluate --model``, any Hugging Face token classifier) takes a side
road: ``token_classifier`` (load and check it) -> ``label_mapping`` (its labels as the dataset's tags) ->
``predict`` (every piece's probabilities) -> ``mapped_tags`` (each word's tag) -> ``external`` (scores and the
same predictions files).

The main entry point::

    from pretrain.finetune.config import FinetuneConfig
    from pretrain.finetune.run import finetune
    result = finetune(FinetuneConfig(model="models/albert-32k", task="ner", dataset="conll2003"), "runs/c03")

Importing this package imports nothing heavy; torch and transformers load inside the functions.
"""
