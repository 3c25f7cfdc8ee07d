"""The fine-tuner's task is the registry's DatasetTask, read once from its spelling; files keep the spelling."""

import json

import pytest

from pretrain.finetune.config import TASKS, FinetuneConfig
from pretrain.finetune.data import label_set
from tokstudy.data.registry import DatasetTask
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import ConfigError


def test_the_spelling_is_read_once_into_the_enum():
    cfg = FinetuneConfig(model="m", task="ner", dataset="conll2003")
    assert cfg.task is DatasetTask.NER
    assert FinetuneConfig.from_dict({"model": "m", "task": "classification", "dataset": "sst2"}).task is (
        DatasetTask.CLASSIFICATION
    )
    assert cfg == FinetuneConfig(model="m", task=DatasetTask.NER, dataset="conll2003")
    assert TASKS == ("ner", "classification")


def test_files_keep_the_spelling():
    cfg = FinetuneConfig(model="m", task="ner", dataset="conll2003")
    plain = cfg.to_dict()
    assert type(plain["task"]) is str and plain["task"] == "ner"
    assert json.loads(json.dumps(cfg.training_key()))["task"] == "ner"


@pytest.mark.parametrize("task", ["slot", "NER", "tagging"])
def test_a_task_the_fine_tuner_does_not_train_is_refused(task):
    with pytest.raises(ConfigError, match=f"task='{task}': expected one of \\('ner', 'classification'\\)"):
        FinetuneConfig.from_dict({"model": "m", "task": task, "dataset": "snips"})


def test_the_spelling_and_the_enum_give_the_same_labels():
    ds = Dataset((Sentence(("a", "b"), ("B-X", "O"), label="q"),), name="toy", split="train")
    assert label_set(ds, "ner") == label_set(ds, DatasetTask.NER) == ("O", "B-X")
    assert label_set(ds, DatasetTask.CLASSIFICATION) == ("q",)
