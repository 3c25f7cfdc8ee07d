"""Split typed text into words, the way CoNLL-style corpora pre-split them.

Runs of letters/digits (with inner ``'``, ``-``, ``.`` as in ``don't``, ``U.S``,
``well-known``) are one word; every other non-space character is a word of its own.
Scripts without spaces (Chinese, Japanese, Thai) stay one word per run: the app
shows how a tokenizer splits what it is given, it does not segment words itself.

>>> split_words("EU rejects German call to boycott British lamb.")
['EU', 'rejects', 'German', 'call', 'to', 'boycott', 'British', 'lamb', '.']
>>> split_words("Peter's well-known U.S. trip, 1996")
["Peter's", 'well-known', 'U.S', '.', 'trip', ',', '1996']
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+(?:['’\-.]\w+)*|[^\w\s]", re.UNICODE)

#: longest text the explorer segments at once (characters); longer input is cut.
MAX_CHARS = 5000


def split_words(text: str) -> list[str]:
    """The words of ``text`` (at most :data:`MAX_CHARS` characters are read)."""
    return _WORD.findall(text[:MAX_CHARS])
