"""What each page shows before the user changes anything: one place, read by the pages and by the
server's preparation (:mod:`analysis_app.services.background`), so what is computed ahead is exactly
what a newcomer's first visit asks for.

>>> default_languages(["ar", "en", "fr", "zh"])
['en', 'ar', 'zh']
>>> default_languages(["fr", "it"])
['fr', 'it']
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from tokstudy.datalocation import data_root

#: bootstrap resamples and seed of the intervals (the "Confidence intervals" expander's start values).
RESAMPLES = 200
SEED = 0
#: the Statistics page's "By group" view: grouping and word subset shown first.
GROUP_BY = "entity_type"
SUBSET = "ne"
#: the Errors page's table of mislabelled words: rows shown (the download holds all).
MISLABELLED_SHOWN = 50
#: how many loaded tokenizers are selected at start.
N_TOKENIZERS = 3
#: the Languages page: languages compared when the folder has them, and the reference (parity 1.0).
LANGUAGES = ("en", "de", "es", "ru", "ar", "zh")
REFERENCE = "en"


def language_sets(dataset, sets: Mapping[str, Sequence[str]]) -> list[str]:
    """Table 4 per language at start: every language of the sidebar's dataset's corpus in its split
    (``NAME:*:SPLIT``) where the corpus has several, else that dataset alone; nothing without one.

    >>> from analysis_app.services.sources import DatasetSource
    >>> ko = DatasetSource.registry("multiconer2022", "dev", "ko")
    >>> sets = {"multiconer2022:*:dev": ("multiconer2022-ko:dev",), "multiconer2022-ko:dev": ()}
    >>> language_sets(ko, sets), language_sets(None, sets)
    (['multiconer2022:*:dev'], [])
    """
    if dataset is None:
        return []
    group = f"{dataset.name}:*:{dataset.split}"
    return [group] if dataset.kind == "registry" and group in sets else [dataset.key]


def tokenizer_names(names: Sequence[str]) -> list[str]:
    """The tokenizers selected at start: the first :data:`N_TOKENIZERS` loaded."""
    return list(names[:N_TOKENIZERS])


def pieces_under(names: Sequence[str], own: str | None) -> str:
    """The Errors page's tokenizer for a model's mislabelled words at start: the one the model was trained with
    (``own``) where it is selected, else the first selected.

    >>> pieces_under(["spm-600", "spm-1200"], "spm-1200"), pieces_under(["spm-600"], None)
    ('spm-1200', 'spm-600')
    """
    return own if own in names else names[0]


def default_languages(available: Sequence[str]) -> list[str]:
    """The languages compared at start: those of :data:`LANGUAGES` in the folder, else its first four."""
    return [lang for lang in LANGUAGES if lang in available] or sorted(available)[:4]


def reference(languages: Sequence[str]) -> str:
    """The reference language among ``languages``: :data:`REFERENCE` if there, else the first."""
    return REFERENCE if REFERENCE in languages else languages[0]


def parallel_dir() -> str:
    """The parallel-text folder at start: ``xquad_parallel`` at the data location, absolute (a relative
    data location, ``TOKSTUDY_DATA=../shared/data``, is relative to the working directory, never to
    one of the allowed directories ``confine_path`` would try)."""
    return os.path.abspath(data_root() / "xquad_parallel")
