"""Turning what the user named into datasets and tokenizers: the one place the CLI, the study and the app call.

* :mod:`tokstudy.inputs.request`: :class:`DatasetRequest` and :class:`TokenizerRequest` (what is asked) and
  :class:`Inputs` (datasets, tokenizers, and the repairs and warnings to tell the user, as data); it loads
  nothing, so a command line builds requests without importing a reader;
* :mod:`tokstudy.inputs.load`: :func:`load_inputs`, requests in, :class:`Inputs` out;
* :mod:`tokstudy.inputs.datasets`: dataset specs (a registry name, ``hf:``, a file, a folder) -> datasets;
* :mod:`tokstudy.inputs.tokenizers`: tokenizer specs (``[NAME=]PATH``, ``tiktoken:ENCODING``) -> tokenizers.

How a file is read by its format lives below, in :mod:`tokstudy.data.formats` (the options) and
:mod:`tokstudy.data.readers` (the reader per format); this layer stands on :mod:`tokstudy.data` and
:mod:`tokstudy.tokenization` only. Names are resolved when first used (PEP 562), as in :mod:`tokstudy`, so that
importing :mod:`tokstudy.inputs.request` does not load the readers and tokenizer libraries.
"""

from __future__ import annotations

import importlib

# public name -> module that defines it
_API = {
    "FORMATS": "tokstudy.data.formats",
    "FileOptions": "tokstudy.data.formats",
    "dataset_file_key": "tokstudy.data.formats",
    "DatasetRequest": "tokstudy.inputs.request",
    "TokenizerRequest": "tokstudy.inputs.request",
    "Inputs": "tokstudy.inputs.request",
    "RepairReport": "tokstudy.inputs.request",
    "SchemeNotAppliedWarning": "tokstudy.inputs.request",
    "check_files": "tokstudy.inputs.request",
    "load_inputs": "tokstudy.inputs.load",
    "repair_reports": "tokstudy.inputs.load",
    "DatasetsRead": "tokstudy.inputs.datasets",
    "load_dataset_spec": "tokstudy.inputs.datasets",
    "load_datasets": "tokstudy.inputs.datasets",
    "read_datasets": "tokstudy.inputs.datasets",
    "load_tokenizer_path": "tokstudy.inputs.tokenizers",
    "load_tokenizers": "tokstudy.inputs.tokenizers",
    "parse_tokenizer_spec": "tokstudy.inputs.tokenizers",
}
__all__ = sorted(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'tokstudy.inputs' has no attribute {name!r}")


def __dir__():
    return __all__
