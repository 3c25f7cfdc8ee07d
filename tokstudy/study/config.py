"""Typed configuration of an end-to-end study, mirrored by the YAML files in ``configs/``.

A study trains K tokenizers, pre-trains one ALBERT per tokenizer with identical
settings, fine-tunes each on NER/slot-filling and classification tasks over N seeds,
and analyses segmentation against errors. Each section below configures one stage;
the stage cache (:mod:`tokstudy.study.stages`) keys each stage on its own section,
so changing a fine-tuning setting reruns fine-tuning and analysis only.

>>> cfg = StudyConfig(name="t")
>>> cfg.tokenizers.vocab_sizes
(2000, 4000, 8000)
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tokstudy.configfile import build_config, read_config
from tokstudy.data.registry import DatasetTask
from tokstudy.data.segmentations import split_language
from tokstudy.errors import DataFormatError
from tokstudy.study.checkpoints import Checkpoint, check_checkpoints
from tokstudy.study.cluster_section import ClusterSection
from tokstudy.training_vocabulary import COMPILE_MODES, DECODINGS

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
#: Model presets the study ships beside the pre-trainer's (``pretrain.model: small`` -> ``models/small.yaml``).
MODEL_DIR = CONFIG_DIR / "models"
#: the suffixes of the gold segmentation files a study reads (before an optional ``.gz``): ``.csv`` is MorphScore's
#: format, the others SIGMORPHON 2022's, as :func:`tokstudy.data.segmentations.read_segmentations` reads them
GOLD_SUFFIXES = (".csv", ".tsv", ".txt")


@dataclass(frozen=True)
class TokenizerSection:
    """Which tokenizers the study compares."""

    algorithm: str = "sp-unigram"
    """sp-unigram (the paper's), sp-bpe, hf-unigram, hf-bpe or hf-wordpiece."""
    vocab_sizes: tuple[int, ...] = (2000, 4000, 8000)
    """One tokenizer per size; the paper's ratio is 1:2:4 (32k/64k/128k)."""
    corpora: tuple[str, ...] = ("raw_text",)
    """Raw-text corpora (names at the data location, or paths) the vocabularies are trained on."""
    languages: tuple[str, ...] = ()
    """Language codes to keep from those corpora (file names ``<lang>.txt.gz``); empty keeps all."""
    sample_size: int = 200_000
    """Sentences drawn at random (seeded) from the corpora for training, as the paper did."""
    character_coverage: float = 0.9995
    """SentencePiece character coverage."""
    seed: int = 0
    add_task_text: bool = False
    """Add the words of every fine-tuning task's training split (one sentence a line, never dev or test) to the
    corpora the vocabularies are trained on, so that every task language is seen even where the raw text has
    none of it. The report says so: the vocabularies have then seen the tasks' own words."""

    def __post_init__(self) -> None:
        if not self.vocab_sizes or any(v < 100 for v in self.vocab_sizes):
            raise ValueError(f"vocab_sizes must be a non-empty list of sizes >= 100, got {self.vocab_sizes}")
        if len(set(self.vocab_sizes)) != len(self.vocab_sizes):
            raise ValueError(f"vocab_sizes has duplicates: {self.vocab_sizes}")


@dataclass(frozen=True)
class PretrainSection:
    """Pre-training, identical for every tokenizer. A setting the pre-trainer also has is spelt as its config
    spells it (``pretrain.data.config.PrepareConfig``, ``pretrain.config.TrainConfig``), and
    :mod:`pretrain.study_backend` hands it over by that name."""

    RESPELT: ClassVar[dict[str, str]] = {"steps": "total_steps", "learning_rate": "lr"}
    """Settings renamed to the pre-trainer's names, old -> new: a configuration, or a results folder's
    ``config.json``, that writes the old one is read as if it wrote the new one."""

    model: str = "tiny"
    """Model preset: tiny, base, large, xlarge, xxlarge (the pre-trainer's), small (the study's, in
    ``configs/models/``), or a model YAML file."""
    corpora: tuple[str, ...] = ("raw_text_large",)
    """Raw-text corpora for pre-training (multi-line documents make sentence-order pairs)."""
    languages: tuple[str, ...] = ()
    """Languages to keep; empty keeps all."""
    max_seq_length: int = 128
    """The pre-trainer's ``PrepareConfig.max_seq_length``: pieces per example."""
    total_steps: int = 300
    """Optimizer steps per model (``TrainConfig.total_steps``; written ``steps`` in older configurations)."""
    batch_size: int = 32
    """Global batch size."""
    lr: float = 1e-3
    """Peak learning rate (``TrainConfig.lr``; written ``learning_rate`` in older configurations)."""
    warmup_steps: int = 30
    max_examples: int | None = None
    """Cap on pre-training examples written (None: the whole corpus); keeps the CPU configurations short."""
    seed: int = 0
    add_task_text: bool = False
    """Add the words of every fine-tuning task's training split (each sentence its own document, as in
    ``raw_text``) to the pre-training corpora; the report says so."""
    compile: str = "auto"
    """The pre-trainer's ``TrainConfig.compile``: ``auto`` (on with CUDA), ``on`` or ``off``. A short run can
    spend more on compiling than it saves (ALBERT-base: about 30 s a tokenizer on an H200)."""

    def __post_init__(self) -> None:
        if self.total_steps < 1 or self.batch_size < 1:
            raise ValueError("pretrain.total_steps and pretrain.batch_size must be >= 1")
        if isinstance(self.compile, bool):  # YAML reads a bare on/off as a boolean
            object.__setattr__(self, "compile", "on" if self.compile else "off")
        if self.compile not in COMPILE_MODES:
            raise ValueError(f"pretrain.compile must be one of {COMPILE_MODES}, got {self.compile!r}")

    def model_spec(self) -> str:
        """What ``pretrain.config.ModelConfig.load`` takes: a preset name, or the path of the study's model file."""
        shipped = MODEL_DIR / f"{self.model}.yaml"
        return str(shipped) if shipped.is_file() else self.model


def _check_rates(obj, names: tuple[str, ...]) -> None:
    """Each named attribute is None (unset) or a probability in [0, 1)."""
    for name in names:
        value = getattr(obj, name)
        if value is not None and not 0 <= value < 1:
            raise ValueError(f"{name} must be in [0, 1), got {value}")


#: what a fine-tuning task may be: tags per word (NER, slot filling) or a label per sentence
FINETUNE_TASKS = (DatasetTask.NER, DatasetTask.CLASSIFICATION)

#: fine-tuning settings a task may set for itself (None in the task: the ``finetune`` section's value)
TASK_OVERRIDES = ("epochs", "learning_rate", "dropout", "token_dropout", "label_all_pieces")


#: what a task's ``language`` may be to stand for every language whose training split is present
LANGUAGE_WILDCARD = "*"


@dataclass(frozen=True)
class TaskSpec:
    """One fine-tuning task.

    >>> TaskSpec("masakhaner2:yor").label, TaskSpec("masakhaner2:*").is_wildcard
    ('masakhaner2-yor-ner', True)
    """

    dataset: str
    """Registry name (conll2003, conll2002_es, wikiann, snips, atis, sst2, multiconer2022, masakhaner2, massive),
    ``NAME:LANGUAGE`` (``masakhaner2:yor``, the same as ``language: yor``), ``NAME:*`` for one task per language
    whose training split is present at the data location (``masakhaner2:*``: 20 tasks), or a Hugging Face dataset
    ``hf:NAME[@CONFIG]`` for users who are online (splits train / validation / test)."""
    task: DatasetTask = DatasetTask.NER
    """``ner`` (token classification, also slot filling) or ``classification``; read from its spelling."""
    language: str | None = None
    """For multilingual datasets (wikiann, multiconer2022, masakhaner2); ``*``: every language present."""
    max_train: int | None = None
    """Cap on training sentences (None: all)."""
    max_eval: int | None = None
    """Cap on dev/test sentences (None: all)."""
    epochs: int | None = None
    """Maximum epochs for this task (early stopping still applies); None: ``finetune.epochs``."""
    learning_rate: float | None = None
    """Peak learning rate for this task; None: ``finetune.learning_rate``."""
    dropout: float | None = None
    """Fine-tuning dropout for this task; None: ``finetune.dropout``."""
    token_dropout: float | None = None
    """Word-dropout rate for this task; None: ``finetune.token_dropout``."""
    label_all_pieces: bool | None = None
    """Train on every piece of a word for this task; None: ``finetune.label_all_pieces``."""
    variant: str | None = None
    """A name appended to the task's label, so that a twin of the task (the other labelling of pieces, added by
    ``finetune.compare_labelling``: ``allpieces`` or ``firstpiece``) has runs of its own beside the task's."""
    lenient: bool | None = None
    """Read the task's splits leniently: tags that continue no entity become ``B-`` and lines with a single field
    are skipped, both counted in the report (MasakhaNER's ``xho`` train has 2 such lines). None: the registry's
    default for the corpus (tags repaired for conll2002_es and masakhaner2; a malformed line is an error naming
    its file and line)."""

    def __post_init__(self) -> None:
        if self.task not in FINETUNE_TASKS:
            raise ValueError(f"task must be 'ner' or 'classification', got {str(self.task)!r}")
        object.__setattr__(self, "task", DatasetTask(self.task))
        if self.epochs is not None and self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}")
        if self.learning_rate is not None and not 0 < self.learning_rate < 1:
            raise ValueError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        _check_rates(self, ("dropout", "token_dropout"))
        if ":" in self.dataset and not self.dataset.startswith("hf:"):
            name, _, language = self.dataset.partition(":")
            if not name or not language or ":" in language:
                raise ValueError(f"dataset must be NAME or NAME:LANGUAGE (e.g. masakhaner2:*), got {self.dataset!r}")
            if self.language not in (None, language):
                raise ValueError(f"dataset {self.dataset!r} names language {language!r}; language is {self.language!r}")
            object.__setattr__(self, "dataset", name)
            object.__setattr__(self, "language", language)

    def settings(self, section: FinetuneSection) -> FinetuneSection:
        """``section`` with this task's own settings (:data:`TASK_OVERRIDES`), where it sets them."""
        overrides = {k: getattr(self, k) for k in TASK_OVERRIDES if getattr(self, k) is not None}
        return dataclasses.replace(section, **overrides) if overrides else section

    @property
    def is_wildcard(self) -> bool:
        """Whether the task stands for one task per language present (:func:`tokstudy.study.tasks.expand_tasks`)."""
        return self.language == LANGUAGE_WILDCARD

    @property
    def label(self) -> str:
        lang = f"-{self.language}" if self.language else ""
        return f"{self.dataset}{lang}-{self.task}" + (f"-{self.variant}" if self.variant else "")


@dataclass(frozen=True)
class FinetuneSection:
    """Fine-tuning, identical for every pre-trained model."""

    tasks: tuple[TaskSpec, ...] = (TaskSpec("conll2003", "ner"), TaskSpec("snips", "classification"))
    seeds: int = 3
    """Runs per (model, task); the paper used 10."""
    epochs: int = 3
    batch_size: int = 32
    learning_rate: float = 5e-4
    max_length: int = 128
    patience: int = 2
    """Early-stopping patience, in epochs without dev improvement."""
    dropout: float | None = None
    """Fine-tuning dropout (hidden, attention, classifier); None keeps the model's own (0 for our exports)."""
    token_dropout: float = 0.0
    """Probability that a training input piece is replaced by ``<unk>`` (word dropout); never at evaluation."""
    decode: str = "argmax"
    """Token tasks: ``argmax`` (each word's best label) or ``viterbi`` (each sentence's best label sequence under
    the training split's label bigrams; the model is unchanged)."""
    decode_prior_scale: float = 0.0
    """Viterbi only: how much of the training label prior is divided out of the model's log-probabilities."""
    label_all_pieces: bool = False
    """Token tasks: train on every piece of a word (its label), not only the first; the word predictions read the
    first piece (``compare_labelling`` also writes every piece's)."""
    compare_labelling: bool = False
    """Token tasks: beside every NER task, fine-tune its twin with the other labelling of pieces
    (``label_all_pieces`` flipped; the twin's label ends in ``-allpieces`` or ``-firstpiece``), write every NER
    run's per-piece predictions, and add "Pieces that disagree" to the report (entity F1 and r under each way of
    giving a word its label)."""
    no_pretraining_control: bool = False
    """Also fine-tune each vocabulary's architecture from random weights (same tasks, settings and seeds),
    so the report can say whether pre-training helped."""
    holdout_fraction: float = 0.05
    """Where a corpus has no test split (its dev split is then the test set): the part of the training split held
    out for early stopping (``FinetuneConfig.holdout_fraction``)."""

    def __post_init__(self) -> None:
        # checked here, at load, rather than when the first fine-tuning run starts after pre-training
        if self.decode not in DECODINGS:
            raise ValueError(f"decode must be one of {DECODINGS}, got {self.decode!r}")
        if not 0 <= self.decode_prior_scale <= 1 or (self.decode_prior_scale and self.decode != "viterbi"):
            raise ValueError(
                f"decode_prior_scale must be in [0, 1] and needs decode: viterbi, got {self.decode_prior_scale}"
            )
        _check_rates(self, ("dropout", "token_dropout"))
        if not 0 < self.holdout_fraction < 1:
            raise ValueError(f"holdout_fraction must be in (0, 1), got {self.holdout_fraction}")


@dataclass(frozen=True)
class AnalysisSection:
    """Segmentation statistics and their link to errors."""

    datasets: tuple[str, ...] = ("conll2003:test",)
    """Labelled sets for Table 4, as ``name:split``, ``name:language:split`` (``*`` as the language: every language
    present, ``masakhaner2:*:test``) or ``hf:NAME[@CONFIG]:SPLIT``; the first one is Table 4's, all of them are in
    the breakdowns by entity type, language and dataset."""
    parity_corpus: str | None = "xquad_parallel"
    """Parallel text for fertility parity across languages (None: skip)."""
    bootstrap: int = 1000
    """Bootstrap resamples for every confidence interval."""
    n_examples: int = 3
    """Table-3 example sentences chosen automatically."""
    count_lone_boundary: bool = True
    """Count a lone word-boundary piece as in the paper's Table 3."""
    seed: int = 0
    per_language: bool = False
    """Add the languages section (the ``multilingual`` study): for every NER task (a language of a corpus) the
    additional segmentation of its test words (NE words, all words) next to its F1; their rank correlation across
    languages with a bootstrap CI over languages; the word-level correlation and attribution per language; the
    languages whose F1 gains most from the smallest vocabulary to the largest."""
    gold_segmentations: tuple[str, ...] = ()
    """Gold morpheme segmentations, ``FILE`` or ``FILE@LANG`` as ``tokstudy report --gold`` takes them: a ``.csv``
    is MorphScore's format, a ``.tsv`` or ``.txt`` SIGMORPHON 2022's (``.gz`` allowed). Adds the "Morpheme
    boundaries" section: MorphScore and boundary precision / recall / F1 of every tokenizer on every file, by
    frequency band of the words in the analysis datasets. Paths are relative to where the study runs; empty (the
    default): no section, and the analysis stage's key is as before."""

    def __post_init__(self) -> None:
        for spec in self.gold_segmentations:
            path = Path(split_language(spec)[0])
            if not path.name.lower().removesuffix(".gz").endswith(GOLD_SUFFIXES):
                raise ValueError(
                    f"analysis.gold_segmentations: {spec!r}: expected a MorphScore .csv or a SIGMORPHON 2022 .tsv "
                    "(or .txt, each optionally .gz), optionally followed by @LANG"
                )
            if not path.is_file():
                raise ValueError(f"analysis.gold_segmentations: {spec!r}: no file {path}")


@dataclass(frozen=True)
class StudyConfig:
    """The whole study."""

    name: str = "demo"
    output_dir: str | None = None
    """Results directory; default ``results/<name>``."""
    data_dir: str | None = None
    """Data location; default ``$TOKSTUDY_DATA`` then ``data/corpora``."""
    allow_sample: bool = True
    """Fall back to the generated synthetic sample when the real corpora are absent."""
    smoke_test: bool = False
    """The models are too small or too briefly trained to be analysed; the report says they are a smoke test."""
    jobs: int = 1
    """Training runs (pre-training, fine-tuning) at once, each in its own process with cores / jobs threads: on a
    few CPU cores small models train faster side by side than one at a time on every core. Not part of any
    stage's key (thread counts change only float rounding); on a GPU keep 1."""
    tokenizers: TokenizerSection = field(default_factory=TokenizerSection)
    pretrain: PretrainSection = field(default_factory=PretrainSection)
    finetune: FinetuneSection = field(default_factory=FinetuneSection)
    analysis: AnalysisSection = field(default_factory=AnalysisSection)
    cluster: ClusterSection = field(default_factory=ClusterSection)
    checkpoints: tuple[Checkpoint, ...] = ()
    """Models pre-trained (or fine-tuned) elsewhere to study instead of the study's own: the tokenizers and
    pretrain sections are then not used (:mod:`tokstudy.study.checkpoints`)."""

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise ValueError(f"jobs must be >= 1, got {self.jobs}")
        if self.checkpoints:
            check_checkpoints(
                self.checkpoints,
                control=self.finetune.no_pretraining_control,
                task_kinds=[t.task for t in self.finetune.tasks],
            )
            if self.tokenizers.add_task_text or self.pretrain.add_task_text:
                raise ValueError("add_task_text trains the study's own tokenizers or models; checkpoints bring theirs")

    def results_dir(self) -> Path:
        return Path(self.output_dir or f"results/{self.name}")

    def to_dict(self) -> dict[str, Any]:
        """The configuration as ``config.json`` holds it (``checkpoints`` only in a study on checkpoints)."""
        data = dataclasses.asdict(self)
        if not self.checkpoints:
            del data["checkpoints"]
        return data


def load_study_config(name_or_path: str | os.PathLike, **overrides: Any) -> StudyConfig:
    """Load a shipped configuration by name (``demo``, ``cpu``, ``gpu``) or a YAML file.

    Errors name the file and the offending key.
    """
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        path = CONFIG_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        shipped = sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))
        raise DataFormatError(f"no study configuration {str(name_or_path)!r}; shipped ones: {shipped}")
    data = read_config(path)
    data.setdefault("name", path.stem)
    data.update({k: v for k, v in overrides.items() if v is not None})
    return build_config(StudyConfig, data, source=path)
