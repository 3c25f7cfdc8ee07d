"""What the ``tokstudy`` commands share: the only place that knows argparse's ``Namespace``.

* :mod:`~tokstudy.cli.arguments.options`: the shared options, declared once and checked as they are parsed;
* :mod:`~tokstudy.cli.arguments.loading`: the options turned into :mod:`tokstudy.inputs` requests, loaded, and
  what loading has to tell printed;
* :mod:`~tokstudy.cli.arguments.outputs`: the files a command writes, refused as they are parsed when they
  could not be written, and written together (none left when the command fails).

Command modules import these names from here; they never import one another.
"""

from tokstudy.cli.arguments.loading import (
    FILE_OPTION_NAMES,
    check_sentence_specs,
    dataset_request,
    file_options,
    inputs_from_args,
    load_requested,
    parity_from_args,
    piece_agreements,
    print_input_notes,
    resolve_sentences,
    shredded_from_args,
    table_from_args,
    tokenizer_request,
    tokenizers_from_args,
    train_request,
)
from tokstudy.cli.arguments.options import (
    TOKENIZER_HELP,
    DeprecatedAlias,
    add_bootstrap_arguments,
    add_deprecated_alias,
    add_input_arguments,
    add_output_arguments,
    add_parallel_text_arguments,
    add_predictions_arguments,
    add_sentence_argument,
    add_shredded_arguments,
    add_tiktoken_pattern_argument,
    bootstrap_settings,
    confidence_arg,
    encoding_arg,
    min_pieces_arg,
    non_negative_int,
    scheme_arg,
)
from tokstudy.cli.arguments.outputs import (
    OutputKind,
    OutputType,
    output_file,
    output_folder,
    output_stem,
    print_written,
    staged_outputs,
    write_repairs_beside,
)

__all__ = [
    "FILE_OPTION_NAMES",
    "OutputKind",
    "OutputType",
    "TOKENIZER_HELP",
    "DeprecatedAlias",
    "add_bootstrap_arguments",
    "add_deprecated_alias",
    "add_input_arguments",
    "add_output_arguments",
    "add_parallel_text_arguments",
    "add_predictions_arguments",
    "add_sentence_argument",
    "add_shredded_arguments",
    "add_tiktoken_pattern_argument",
    "bootstrap_settings",
    "check_sentence_specs",
    "confidence_arg",
    "dataset_request",
    "encoding_arg",
    "file_options",
    "inputs_from_args",
    "load_requested",
    "min_pieces_arg",
    "non_negative_int",
    "output_file",
    "output_folder",
    "output_stem",
    "parity_from_args",
    "piece_agreements",
    "print_input_notes",
    "print_written",
    "resolve_sentences",
    "scheme_arg",
    "shredded_from_args",
    "staged_outputs",
    "table_from_args",
    "tokenizer_request",
    "tokenizers_from_args",
    "train_request",
    "write_repairs_beside",
]
