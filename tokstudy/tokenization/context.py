"""A word's pieces are the pieces the model sees for it in its sentence: the definition, per family.

Datasets come pre-split into words (CoNLL, WikiANN). A model fine-tuned for token
classification sees the sentence as those words joined by single spaces, which is what
Hugging Face's ``tokenizer(words, is_split_into_words=True)`` encodes (with
``add_prefix_space=True`` for byte-level BPE). The statistics count, for each word, the
pieces of that encoding that ``word_ids()`` assigns to it. Segmenting each *distinct*
word once (the fast path of :mod:`tokstudy.analysis.table`) gives exactly those pieces
when the word is handed to the tokenizer in the form it has inside the sentence:

==================  =====================================  =================  ======================
family              a word inside a sentence is encoded as  boundary marker    examples
==================  =====================================  =================  ======================
``sentencepiece``   the word alone (the model adds ``▁``)   ``▁`` word start   ALBERT, T5, XLM-R
``metaspace``       the word alone (``prepend_scheme``      ``▁`` word start   ``tokenizers`` Unigram/
                    ``always``/``first``, or a ``Prepend``                     BPE with Metaspace,
                    normaliser), or ``" " + word``                             Llama-2 / Gemma
                    (``never``; a normaliser that only                         ``tokenizer.json``
                    replaces spaces by ``▁``)
``wordpiece``       the word alone (whitespace is dropped)  ``##`` continues   BERT
``byte-level``      ``" " + word``: the space before it     ``Ġ`` word start   GPT-2, RoBERTa, Llama-3,
                    is part of its first piece                                 tiktoken encodings
``whitespace``      the word alone                          none               BPE/Unigram over a
                                                                               Whitespace pre-tokenizer
==================  =====================================  =================  ======================

Why this is exact (the tests check it, for every family, against whole-sentence encodings
of real CoNLL-2003 and WikiANN text: the sentence as running text with pieces assigned by
offsets, and ``word_ids()`` of ``transformers`` fast tokenizers with ``is_split_into_words``):

* ``sentencepiece``, ``metaspace``, ``wordpiece``, ``whitespace``: the pre-tokenizer
  (or SentencePiece's ``split_by_whitespace``) cuts the sentence at every space, so no
  piece crosses a word boundary and a word's pieces do not depend on its neighbours.
* ``byte-level``: the pre-tokenizer regex (GPT-2's ``' ?\\p{L}+| ?\\p{N}+|...'``, cl100k's,
  Llama-3's) starts a chunk at the space before a word and never lets a chunk run from
  one word across the space into the next, so ``" " + word`` is encoded exactly as in
  the sentence. **The sentence's first word** has no space before it in raw text; we
  follow Hugging Face's token-classification convention (``add_prefix_space=True``,
  required by GPT-2/RoBERTa fast tokenizers for pre-split input) and give it the space
  too, so a word has one segmentation wherever it stands. A model that reads raw text
  without a prefix space sees the first word of each sentence without ``Ġ``; that
  differs for at most one word per sentence and is stated in every output. Metaspace
  with ``prepend_scheme="never"`` and Gemma-style normalisers (spaces replaced by ``▁``,
  nothing prepended) follow the same convention (``" " + word`` -> ``▁word``).

A SentencePiece ``.model`` trained with ``add_dummy_prefix=false`` gives a word inside a
sentence a ``▁`` that the word alone lacks; it is encoded after an anchor word whose
pieces are dropped (:mod:`.sentencepiece_`), with the same first-word convention.

What is not covered: a SentencePiece model trained with ``split_by_whitespace=false``
whose vocabulary has pieces spanning a ``▁`` in their middle can merge across words (the
setting is read from the model, and loading it warns: :mod:`.sentencepiece_`); a
``tokenizer.json`` without a pre-tokenizer with such pieces can too, and
:func:`hf_word_context` cannot detect it. The per-word definition then differs from the
sentence encoding.

>>> from tokenizers import Tokenizer, models, pre_tokenizers
>>> tok = Tokenizer(models.BPE()); tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
>>> hf_word_context(tok)
WordContext(family='byte-level', prefix=' ', marker='Ġ', marker_starts_word=True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

#: SentencePiece's / Metaspace's word-boundary marker (U+2581).
METASPACE = "\u2581"
#: the byte-level BPE form of a space (GPT-2's byte-to-unicode map sends byte 0x20 to U+0120).
BYTE_LEVEL_SPACE = "\u0120"

FAMILIES = ("sentencepiece", "metaspace", "wordpiece", "byte-level", "whitespace")


@dataclass(frozen=True)
class WordContext:
    """How one tokenizer family sees a word inside a sentence.

    >>> WordContext("wordpiece", "", "##", marker_starts_word=False).describe(count_lone_boundary=True)
    "WordPiece marks a word's non-initial pieces with '##' and has no word-boundary piece; every piece counts as one"
    """

    #: one of :data:`FAMILIES`.
    family: str
    #: text put before a word when it is segmented alone, so that it is encoded as inside a sentence.
    prefix: str
    #: the tokenizer's own boundary marker (``▁``, ``Ġ``, ``##``), ``None`` when it has none.
    marker: str | None
    #: ``True`` when the marker opens a word (``▁``, ``Ġ``), ``False`` when it marks continuation (``##``).
    marker_starts_word: bool = True

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {self.family!r}")

    def describe(self, *, count_lone_boundary: bool) -> str:
        """The boundary-policy sentence printed with the statistics, naming this tokenizer's marker."""
        if self.marker is None:
            return (
                "the tokenizer has no word-boundary marker; each word's pieces are counted as it emits them, "
                "every piece counts as one"
            )
        if not self.marker_starts_word:
            return (
                f"WordPiece marks a word's non-initial pieces with '{self.marker}' and has no word-boundary "
                f"piece; every piece counts as one"
            )
        m = self.marker
        if count_lone_boundary:
            text = f"a lone word-boundary piece ('{m}' before a word it does not attach to) counts as one piece"
        else:
            text = f"lone word-boundary pieces ('{m}' alone) are not counted"
        if self.prefix:
            text += (
                f"; each word is segmented as it stands after a space in running text, the sentence's first "
                f"word included (is_split_into_words with add_prefix_space=True), so its first piece carries "
                f"'{m}'"
            )
        return text


def hf_word_context(tokenizer) -> WordContext:
    """The :class:`WordContext` of a ``tokenizers.Tokenizer``, read from its pre-tokenizer, normaliser and model."""
    parts = _components(tokenizer.pre_tokenizer)
    by_type = {p.get("type"): p for p in parts}
    if "ByteLevel" in by_type:
        return WordContext("byte-level", " ", BYTE_LEVEL_SPACE)
    if "Metaspace" in by_type:
        meta = by_type["Metaspace"]
        scheme = meta.get("prepend_scheme", "always" if meta.get("add_prefix_space", True) else "never")
        return WordContext("metaspace", " " if scheme == "never" else "", meta.get("replacement", METASPACE))
    model = type(tokenizer.model).__name__
    if model == "WordPiece":
        return WordContext("wordpiece", "", tokenizer.model.continuing_subword_prefix, marker_starts_word=False)
    norms = _components(tokenizer.normalizer)
    prepend = next((n for n in norms if n.get("type") == "Prepend"), None)
    if prepend is not None:
        # Llama-2 / Mistral style tokenizer.json: the normaliser prepends "▁" and turns spaces into "▁"
        return WordContext("metaspace", "", prepend.get("prepend", METASPACE))
    space = next((n for n in norms if n.get("type") == "Replace" and n.get("pattern") == {"String": " "}), None)
    if space is not None and space.get("content"):
        # Gemma style: spaces become "▁" but nothing is prepended, so a word alone would lose its marker
        return WordContext("metaspace", " ", space["content"])
    return WordContext("whitespace", "", None)


def _components(obj) -> list[dict]:
    """A pre-tokenizer's or normaliser's JSON state, ``Sequence`` flattened."""
    if obj is None:
        return []
    state = json.loads(obj.__getstate__())
    out = []
    stack = [state]
    while stack:
        s = stack.pop(0)
        inner = s.get("pretokenizers") or s.get("normalizers")
        if s.get("type") == "Sequence" and inner is not None:
            stack = list(inner) + stack
        else:
            out.append(s)
    return out
