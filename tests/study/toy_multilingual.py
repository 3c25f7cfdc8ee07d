"""A toy data location in the shared corpora's formats, and the ``multilingual`` study scaled down to it.

Generated, seeded, in a second: raw text in three languages, MasakhaNER 2.0 in four (``xho``'s training split
with two malformed lines, as the real one), MultiCoNER 2022 with a training split in ``de`` only (``en`` has dev
only, as five of the real eleven), and MASSIVE en-US. Each language has its own syllables, and its entity names
are longer words, so that vocabularies segment the languages and the names differently.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from tokstudy.study.config import StudyConfig, load_study_config

#: MasakhaNER languages of the toy location (the real corpus has 20)
MASAKHANER = ("hau", "swa", "xho", "yor")
#: MultiCoNER languages with a training split (``en`` has dev only)
MULTICONER_TRAIN = ("de",)
SPLITS = {"train": 60, "dev": 20, "test": 30}
_ONSETS = "b d f g h k l m n p r s t w y z".split()


def _lexicon(rng: random.Random, lang: str) -> tuple[list[str], list[str]]:
    """A language's words and (longer) names, from syllables of its own vowels."""
    vowels = rng.sample(list("aeiouáéíóú"), 4)
    syllables = [o + v for o in rng.sample(_ONSETS, 8) for v in vowels]
    word = lambda n: "".join(rng.choice(syllables) for _ in range(n))  # noqa: E731
    return [word(rng.randint(1, 3)) for _ in range(60)], [word(rng.randint(2, 5)).title() for _ in range(30)]


def _sentence(rng: random.Random, words: list[str], names: list[str]) -> list[tuple[str, str]]:
    """Words with IOB2 tags: 5-9 words and one or two names (PER or LOC, one or two words each)."""
    tagged = [(rng.choice(words), "O") for _ in range(rng.randint(5, 9))]
    for _ in range(rng.randint(1, 2)):
        kind, length = rng.choice(("PER", "LOC")), rng.randint(1, 2)
        entity = [(rng.choice(names), f"{'B' if i == 0 else 'I'}-{kind}") for i in range(length)]
        at = rng.randint(0, len(tagged))
        tagged[at:at] = entity
    return tagged


def _write_raw(root: Path, rng: random.Random) -> None:
    for lang in ("en", "de", "sw"):
        words, names = _lexicon(rng, lang)
        lines = [" ".join(w for w, _ in _sentence(rng, words, names)) for _ in range(300)]
        (root / "raw_text").mkdir(parents=True, exist_ok=True)
        (root / "raw_text" / f"{lang}.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")


def _write_masakhaner(root: Path, rng: random.Random) -> None:
    folder = root / "masakhaner2"
    folder.mkdir(parents=True, exist_ok=True)
    for lang in MASAKHANER:
        words, names = _lexicon(rng, lang)
        for split, n in SPLITS.items():
            blocks = ["\n".join(f"{w} {t}" for w, t in _sentence(rng, words, names)) for _ in range(n)]
            if lang == "xho" and split == "train":  # two lines with a single field, as the real xho_train
                blocks[3] += "\nmalformed"
                blocks[7] += "\nalsomalformed"
            (folder / f"{lang}_{split}.txt").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


def _write_multiconer(root: Path, rng: random.Random) -> None:
    folder = root / "multiconer2022"
    folder.mkdir(parents=True, exist_ok=True)
    for lang in ("de", "en"):
        words, names = _lexicon(rng, lang)
        for split in ("train", "dev") if lang in MULTICONER_TRAIN else ("dev",):
            blocks = [
                f"# id {lang}-{split}-{i}\tdomain={split}\n"
                + "\n".join(f"{w.lower()} _ _ {t}" for w, t in _sentence(rng, words, names))
                for i in range(SPLITS[split])
            ]
            (folder / f"{lang}_{split}.conll").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


def _write_massive(root: Path, rng: random.Random) -> None:
    words, names = _lexicon(rng, "en-US")
    records = []
    for split, n in SPLITS.items():
        for i in range(n):
            tagged = _sentence(rng, words, names)
            utt, annot, k = [], [], 0
            while k < len(tagged):
                w, t = tagged[k]
                if t.startswith("B-"):
                    span = [w]
                    while k + 1 < len(tagged) and tagged[k + 1][1].startswith("I-"):
                        k += 1
                        span.append(tagged[k][0])
                    annot.append(f"[{t[2:].lower()} : {' '.join(span)}]")
                    utt += span
                else:
                    annot.append(w)
                    utt.append(w)
                k += 1
            intent = rng.choice(("alarm_set", "weather_query", "play_music"))
            records.append(
                {
                    "id": f"{split}{i}",
                    "locale": "en-US",
                    "partition": split,
                    "scenario": intent.split("_")[0],
                    "intent": intent,
                    "utt": " ".join(utt),
                    "annot_utt": " ".join(annot),
                }
            )
    (root / "massive").mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    (root / "massive" / "en-US.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_toy_data(root: Path, *, seed: int = 0) -> Path:
    """Write the toy data location under ``root``; returns ``root``."""
    rng = random.Random(seed)
    _write_raw(root, rng)
    _write_masakhaner(root, rng)
    _write_multiconer(root, rng)
    _write_massive(root, rng)
    return root


def toy_multilingual_config(data_dir: Path, output_dir: Path) -> StudyConfig:
    """The shipped ``multilingual`` configuration, its tasks and settings kept, scaled to the toy location:
    small vocabularies, no CoNLL-2003 nor parity corpus, few resamples; the raw text of both corpora is the toy
    ``raw_text``."""
    config = load_study_config("multilingual", output_dir=str(output_dir), data_dir=str(data_dir), jobs=1)
    tokenizers = dataclasses.replace(config.tokenizers, vocab_sizes=(120, 160, 200), corpora=("raw_text",))
    pretrain = dataclasses.replace(config.pretrain, corpora=("raw_text",))
    tasks = tuple(dataclasses.replace(t, max_train=40, max_eval=25) for t in config.finetune.tasks)
    finetune = dataclasses.replace(config.finetune, tasks=tasks)
    datasets = tuple(d for d in config.analysis.datasets if not d.startswith("conll2003"))  # not in the toy location
    analysis = dataclasses.replace(config.analysis, datasets=datasets, parity_corpus=None, bootstrap=40)
    return dataclasses.replace(
        config, tokenizers=tokenizers, pretrain=pretrain, finetune=finetune, analysis=analysis, allow_sample=False
    )
