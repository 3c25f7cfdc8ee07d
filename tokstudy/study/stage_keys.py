"""Each stage's key: the settings of its section, less those added after results were first written.

A stage is keyed on the settings of its section (:func:`section_key`, :func:`task_key`, :func:`finetune_key`),
less those added after results were first written and left at their default. A setting added to a section
changes that section's ``dataclasses.asdict``, and so the key of every stage keyed on it: a results folder of
an earlier version would be trained again for a setting it never used. Each setting added later is therefore
left out of the key while it has its default (the earlier behaviour) and enters the key as soon as it is set,
which reruns exactly the stages it changes.
"""

from __future__ import annotations

import dataclasses

from tokstudy.study.config import FinetuneSection, PretrainSection, TaskSpec

#: the names the keys give settings that were renamed (:attr:`~tokstudy.study.config.PretrainSection.RESPELT`)
KEY_SPELLING = {new: old for old, new in PretrainSection.RESPELT.items()}
#: settings of the tokenizers, pretrain and analysis sections added later, at their default
SECTION_ADDED_AT_DEFAULT = {"add_task_text": False, "per_language": False, "gold_segmentations": ()}
#: fine-tuning settings added later, at their default
FINETUNE_ADDED_AT_DEFAULT = {
    "dropout": None,
    "token_dropout": 0.0,
    "decode": "argmax",
    "decode_prior_scale": 0.0,
    "label_all_pieces": False,
    "compare_labelling": False,
    "holdout_fraction": 0.05,
}
#: task settings added later (None: the task takes the section's value, or the corpus default)
TASK_ADDED_AT_DEFAULT = ("dropout", "token_dropout", "label_all_pieces", "lenient", "variant")
_MISSING = object()


def _without(values: dict, defaults: dict) -> dict:
    return {k: v for k, v in values.items() if defaults.get(k, _MISSING) != v}


def section_key(section) -> dict:
    """A tokenizers, pretrain or analysis section's part of its stage keys.

    >>> from tokstudy.study.config import TokenizerSection
    >>> "add_task_text" in section_key(TokenizerSection())
    False
    >>> section_key(TokenizerSection(add_task_text=True))["add_task_text"]
    True
    >>> key = section_key(PretrainSection(total_steps=50))
    >>> key["steps"], "total_steps" in key
    (50, False)
    """
    # settings renamed to the pre-trainer's names keep their first names in the key: a results folder is reused
    return {
        KEY_SPELLING.get(k, k): v for k, v in _without(dataclasses.asdict(section), SECTION_ADDED_AT_DEFAULT).items()
    }


def task_key(task: TaskSpec) -> dict:
    """A task's part of its stage keys: its fields, less those added later and left unset."""
    return _without(dataclasses.asdict(task), dict.fromkeys(TASK_ADDED_AT_DEFAULT))


def finetune_key(ft: FinetuneSection) -> dict:
    """The fine-tuning section's part of every fine-tuning stage key: its settings, less the run plan (tasks,
    seeds, control) and those added later and left at their default."""
    plan = ("tasks", "seeds", "no_pretraining_control")
    return _without({k: v for k, v in dataclasses.asdict(ft).items() if k not in plan}, FINETUNE_ADDED_AT_DEFAULT)
