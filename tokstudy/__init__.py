"""tokstudy: how subword tokenization shapes what compact language models learn.

The public API, importable without torch::

    import tokstudy as ts
    ds = ts.read_conll("eng.testb.gz", name="conll2003", language="en", split="test")
    sp = ts.load_tokenizer("spm32k/")
    table = ts.segmentation_table([ds], [sp])
    ts.additional_segmentation(table, tokenizer=sp.name)

Names are resolved lazily (PEP 562) so ``import tokstudy`` stays fast and pulls in
neither torch nor matplotlib.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> module that defines it
_API = {
    # errors
    "TokstudyError": "tokstudy.errors",
    "DataFormatError": "tokstudy.errors",
    "TagSchemeError": "tokstudy.errors",
    "AlignmentError": "tokstudy.errors",
    "TokenizerLoadError": "tokstudy.errors",
    "TokenizerTrainingError": "tokstudy.errors",
    "DataNotFoundError": "tokstudy.errors",
    "UsageError": "tokstudy.errors",
    "MissingDependencyError": "tokstudy.errors",
    # data
    "Sentence": "tokstudy.data.types",
    "Dataset": "tokstudy.data.types",
    "data_root": "tokstudy.datalocation",
    "corpus_dir": "tokstudy.datalocation",
    "read_conll": "tokstudy.data.conll",
    "read_slu": "tokstudy.data.slu",
    "read_jsonl": "tokstudy.data.jsonl",
    "read_char_span_json": "tokstudy.data.jsonl",
    "read_raw_text": "tokstudy.data.rawtext",
    "read_tsv": "tokstudy.data.tsv",
    "read_parallel": "tokstudy.data.rawtext",
    "to_iob2": "tokstudy.data.schemes",
    "detect_scheme": "tokstudy.data.schemes",
    "load_dataset": "tokstudy.data.registry",
    "list_datasets": "tokstudy.data.registry",
    "dataset_info": "tokstudy.data.registry",
    # what the user named -> datasets and tokenizers (the loader the CLI, the study and the app call)
    "DatasetRequest": "tokstudy.inputs.request",
    "TokenizerRequest": "tokstudy.inputs.request",
    "FileOptions": "tokstudy.data.formats",
    "load_inputs": "tokstudy.inputs.load",
    # tokenizers (tokstudy.tokenization knows which of its modules defines each)
    "Segmenter": "tokstudy.tokenization",
    "Segmentation": "tokstudy.tokenization",
    "load_tokenizer": "tokstudy.tokenization",
    "train_tokenizers": "tokstudy.tokenization",
    "TokenizerTrainingConfig": "tokstudy.tokenization",
    "TrainedTokenizer": "tokstudy.tokenization",
    "SentencePieceSegmenter": "tokstudy.tokenization",
    "HFTokenizerSegmenter": "tokstudy.tokenization",
    "TiktokenSegmenter": "tokstudy.tokenization",
    # analysis
    "SegmentationTable": "tokstudy.analysis.table",
    "segmentation_table": "tokstudy.analysis.table",
    "additional_segmentation": "tokstudy.analysis.stats",
    "segmentation_summary": "tokstudy.analysis.stats",
    "read_predictions": "tokstudy.analysis.model_errors.predictions",
    "write_predictions": "tokstudy.analysis.model_errors.predictions",
    "additional_segmentation_by": "tokstudy.analysis.stats",
    "compare_tokenizers": "tokstudy.analysis.stats",
    "table_statistics": "tokstudy.analysis.stats",
    "align_predictions": "tokstudy.analysis.model_errors.aligned_predictions",
    "parity": "tokstudy.analysis.stats.parity",
    "corpus_stats": "tokstudy.analysis.corpus.engines",
    "EngineSettings": "tokstudy.analysis.corpus.engines",
    "CorpusStatsSettings": "tokstudy.analysis.corpus.counts",
    "write_report": "tokstudy.report.writer",
    "correlate_errors": "tokstudy.analysis.model_errors.correlation",
    "attribute_errors": "tokstudy.analysis.model_errors.attribution",
    # the study
    "StudyConfig": "tokstudy.study.config",
    "load_study_config": "tokstudy.study.config",
    "run_study": "tokstudy.study.pipeline",
    "TrainerBackend": "tokstudy.study.backends",
}

__all__ = sorted(_API) + ["__version__"]


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'tokstudy' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
