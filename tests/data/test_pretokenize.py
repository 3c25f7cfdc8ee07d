"""Script-class pre-tokenisation."""

from __future__ import annotations

import random

from tokstudy.data.pretokenize import char_class, pretokenize


def words(text, cuts=()):
    return [text[s:e] for s, e in pretokenize(text, cuts)]


def test_runs_by_script_and_lone_punctuation():
    assert words("東京都千代田区に本社を置くITサービス企業である。") == [
        "東京都千代田区",
        "に",
        "本社",
        "を",
        "置",
        "く",
        "IT",
        "サービス",
        "企業",
        "である",
        "。",
    ]
    assert words("第2回（2010年）・Ｊリーグ") == ["第", "2", "回", "（", "2010", "年", "）", "・", "Ｊ", "リーグ"]
    assert words("  New  York!! ") == ["New", "York", "!", "!"]


def test_forced_boundaries():
    assert words("東京都千代田区", {3}) == ["東京都", "千代田区"]
    assert words("abc", {0, 1, 3}) == ["a", "bc"]


def test_marks_and_classes():
    assert words("cafe\u0301 ok") == ["cafe\u0301", "ok"]
    assert char_class("々") == "han" and char_class("ー") == "katakana" and char_class("ｶ") == "katakana"
    assert char_class("・") == "other" and char_class("\u3000") == "space"


def test_random_text_invariants():
    """Spans are ordered, disjoint, never contain whitespace, cover every non-space char, respect cuts."""
    rng = random.Random(5)
    alphabet = "東京あいアイーabcЖ12１、。 \u3000!"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 15)))
        cuts = {rng.randrange(0, len(text) + 1) for _ in range(2)} if text else set()
        spans = pretokenize(text, cuts)
        assert all(a < b for a, b in spans) and all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))
        assert "".join(text[a:b] for a, b in spans) == "".join(text.split())
        assert not any(c.isspace() for a, b in spans for c in text[a:b])
        assert not any(a < c < b for a, b in spans for c in cuts)
