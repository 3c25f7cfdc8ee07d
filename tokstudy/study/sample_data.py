"""A small synthetic corpus the project generates itself, for machines without the real corpora.

The demo study uses the real corpora when the data location has them. Without them
it falls back to this generator, and the report says plainly that a synthetic sample
was used. The sample imitates the shape of the real data, not its content:

* raw text: template sentences, grouped into documents of several sentences (so
  sentence-order prediction has pairs), in English-like and Spanish-like variants;
* NER: CoNLL-style sentences (``word tag``, IOB2) whose entities are made-up names
  built from syllables, which is also why they are split more than common words;
* intents: SNIPS-style utterances (``seq.in`` / ``seq.out`` / ``label``).

Everything is seeded, so the same seed writes byte-identical files.

>>> import tempfile
>>> paths = write_sample(tempfile.mkdtemp(), seed=0, n_ner=20, n_intent=10, n_docs=5)
>>> sorted(paths)
['intent', 'ner', 'raw_text']
"""

from __future__ import annotations

import gzip
import os
import random
from pathlib import Path

_SYLLABLES = "ka to ri ne mo sa lu vi an el or us ba di fe go ha ju ki la me no pe qu ro si ta ve wa xo ya ze".split()
#: sentence templates by language; ``{TYPE}`` is an entity of that type (PER, ORG, LOC, MISC)
_TEMPLATES = {
    "en": (
        "{PER} said on Monday that {ORG} would open a new office in {LOC} .",
        "The {MISC} team beat {ORG} 3-1 in {LOC} on Sunday .",
        "{PER} , the head of {ORG} , arrived in {LOC} for talks .",
        "Shares in {ORG} rose after {PER} announced the deal .",
        "Police in {LOC} said {PER} was arrested late on Friday .",
        "{LOC} and {LOC} signed a trade agreement with {ORG} .",
        "The {MISC} election will be held in {LOC} next year .",
        "Prices fell sharply as traders waited for the report .",
        "It was the first time the two sides had met since the war .",
        "Officials said the talks would continue next week .",
    ),
    "es": (
        "{PER} dijo el lunes que {ORG} abrira una oficina en {LOC} .",
        "El equipo {MISC} vencio a {ORG} en {LOC} el domingo .",
        "{PER} , presidente de {ORG} , llego a {LOC} para las conversaciones .",
        "La policia de {LOC} detuvo a {PER} el viernes .",
        "Los precios bajaron mientras se esperaba el informe .",
        "Las conversaciones continuaran la proxima semana .",
    ),
}
_INTENTS = {
    "PlayMusic": "play {artist} songs on {service}",
    "GetWeather": "what is the weather in {city} tomorrow",
    "BookRestaurant": "book a table at {restaurant} in {city} for two",
    "AddToPlaylist": "add {artist} to my {playlist} playlist",
}


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(parts)).capitalize()


def _entity(rng: random.Random, etype: str) -> list[str]:
    n_words = {"PER": rng.choice([1, 2, 2]), "LOC": 1, "ORG": rng.choice([1, 2]), "MISC": 1}[etype]
    return [_name(rng, rng.choice([2, 3, 3, 4])) for _ in range(n_words)]


def _sentence(rng: random.Random, lang: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for tok in rng.choice(_TEMPLATES[lang]).split():
        if tok.startswith("{") and tok.endswith("}"):
            etype = tok[1:-1]
            for i, w in enumerate(_entity(rng, etype)):
                out.append((w, ("B-" if i == 0 else "I-") + etype))
        else:
            out.append((tok, "O"))
    return out


def write_sample(
    directory: str | os.PathLike, *, seed: int = 0, n_ner: int = 1500, n_intent: int = 600, n_docs: int = 400
) -> dict[str, Path]:
    """Write the synthetic sample under ``directory`` and return its parts' paths.

    Returns ``{"raw_text": dir with <lang>.txt.gz, "ner": dir with train/dev/test.conll,
    "intent": dir with train/valid/test in the SNIPS layout}``.
    """
    rng = random.Random(seed)
    root = Path(directory)
    raw, ner, intent = root / "raw_text", root / "ner", root / "intent"
    for d in (raw, ner, intent):
        d.mkdir(parents=True, exist_ok=True)

    for lang in _TEMPLATES:
        with gzip.GzipFile(raw / f"{lang}.txt.gz", "wb", mtime=0) as fh:
            for _ in range(n_docs):
                lines = [" ".join(w for w, _ in _sentence(rng, lang)) for _ in range(rng.randint(2, 6))]
                fh.write(("\n".join(lines) + "\n\n").encode())

    sizes = {"train": int(n_ner * 0.7), "dev": int(n_ner * 0.15), "test": n_ner - int(n_ner * 0.7) - int(n_ner * 0.15)}
    for split, n in sizes.items():
        with open(ner / f"{split}.conll", "w", encoding="utf-8") as fh:
            for _ in range(n):
                fh.write("".join(f"{w} {t}\n" for w, t in _sentence(rng, "en")) + "\n")

    n_train, n_valid = int(n_intent * 0.7), int(n_intent * 0.15)
    for split, n in (("train", n_train), ("valid", n_valid), ("test", n_intent - n_train - n_valid)):
        d = intent / split
        d.mkdir(exist_ok=True)
        seq_in, seq_out, labels = [], [], []
        for _ in range(n):
            label = rng.choice(sorted(_INTENTS))
            words, tags = [], []
            for tok in _INTENTS[label].split():
                if tok.startswith("{"):
                    slot = tok[1:-1]
                    for i, w in enumerate(_entity(rng, "PER")):
                        words.append(w.lower())
                        tags.append(("B-" if i == 0 else "I-") + slot)
                else:
                    words.append(tok)
                    tags.append("O")
            seq_in.append(" ".join(words))
            seq_out.append(" ".join(tags))
            labels.append(label)
        for fname, lines in (("seq.in", seq_in), ("seq.out", seq_out), ("label", labels)):
            (d / fname).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"raw_text": raw, "ner": ner, "intent": intent}
