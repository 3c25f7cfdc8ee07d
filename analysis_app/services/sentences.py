"""Find a dataset sentence and its predicted tags (by position, checked word by word).

>>> from tokstudy.data.types import Dataset, Sentence
>>> ds = Dataset((Sentence(("a",), ("O",), sent_id=0), Sentence(("EU",), ("B-ORG",), sent_id=1)))
>>> find_sentence(ds, 1)
1
"""

from __future__ import annotations


def find_sentence(ds, sent_id: int) -> int:
    """Position in ``ds`` of the sentence whose ``sent_id`` is ``sent_id`` (``IndexError`` if none)."""
    if 0 <= sent_id < len(ds) and ds[sent_id].sent_id == sent_id:
        return sent_id
    for i, s in enumerate(ds):
        if s.sent_id == sent_id:
            return i
    raise IndexError(f"no sentence {sent_id} in {ds.name}:{ds.split} ({len(ds)} sentences)")


def predicted_tags(preds, position: int, sentence) -> tuple[str, ...] | None:
    """The predicted tags of ``sentence`` (at ``position`` in its dataset) or ``None`` when the
    predictions file has no sentence there with the same words (never a shifted guess)."""
    cands = []
    if 0 <= position < len(preds.sentences):
        cands.append(preds.sentences[position])
    cands.extend(p for p in preds.sentences[max(0, position - 2) : position + 3] if p.sent_id == sentence.sent_id)
    for p in cands:
        if tuple(p.words) == tuple(sentence.words):
            return tuple(p.pred)
    return None
