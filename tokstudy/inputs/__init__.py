"""Turning what the user named into datasets and tokenizers: the one place the CLI, the study and the app call.

* :mod:`tokstudy.inputs.request`: :class:`DatasetRequest` and :class:`TokenizerRequest` in,
  :class:`Inputs` out (datasets, tokenizers, and the repairs and warnings to tell the user, as data);
* :mod:`tokstudy.inputs.datasets`: dataset specs (a registry name, ``hf:``, a file, a folder) -> datasets;
* :mod:`tokstudy.inputs.tokenizers`: tokenizer specs (``[NAME=]PATH``, ``tiktoken:ENCODING``) -> tokenizers.

How one file is read by its format lives below, in :mod:`tokstudy.data.formats`; this layer stands on
:mod:`tokstudy.data` and :mod:`tokstudy.tokenization` only.
"""

from tokstudy.data.formats import FORMATS, FileOptions, dataset_file_key
from tokstudy.inputs.datasets import (
    DatasetsRead,
    SchemeNotAppliedWarning,
    load_dataset_spec,
    load_datasets,
    read_datasets,
)
from tokstudy.inputs.request import (
    DatasetRequest,
    Inputs,
    RepairReport,
    TokenizerRequest,
    check_files,
    load_inputs,
)
from tokstudy.inputs.tokenizers import load_tokenizer_path, load_tokenizers, parse_tokenizer_spec

__all__ = [
    "FORMATS",
    "DatasetRequest",
    "DatasetsRead",
    "FileOptions",
    "Inputs",
    "RepairReport",
    "SchemeNotAppliedWarning",
    "TokenizerRequest",
    "check_files",
    "dataset_file_key",
    "load_dataset_spec",
    "load_datasets",
    "load_inputs",
    "load_tokenizer_path",
    "load_tokenizers",
    "parse_tokenizer_spec",
    "read_datasets",
]
