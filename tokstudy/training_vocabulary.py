"""The closed vocabularies of the trainer's settings, shared by the pre-trainer and the torch-free study.

The study checks its configuration when it is loaded, long before a training run starts, so it needs the same
choices the pre-trainer and the fine-tuner accept. They are defined here, below both: ``pretrain.config``
(``TrainConfig.compile``) and ``pretrain.finetune.config`` (``FinetuneConfig.decode``) import them, as
:mod:`tokstudy.study.config` does, since ``tokstudy`` never imports ``pretrain``.

>>> COMPILE_MODES, DECODINGS
(('auto', 'on', 'off'), ('argmax', 'viterbi'))
"""

from __future__ import annotations

from typing import Literal, get_args

#: whether the pre-trainer compiles the model: ``auto`` (on with CUDA), ``on`` or ``off``
CompileMode = Literal["auto", "on", "off"]
COMPILE_MODES: tuple[str, ...] = get_args(CompileMode)
#: how a token task turns the model's scores into labels (:mod:`pretrain.finetune.decoding` implements them)
Decoding = Literal["argmax", "viterbi"]
DECODINGS: tuple[str, ...] = get_args(Decoding)
