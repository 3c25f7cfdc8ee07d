"""Tag schemes: conversions to IOB2, strict errors, lenient repairs, detection, and random round trips."""

from __future__ import annotations

import random

import pytest

from tokstudy.data.schemes import detect_scheme, from_iob2, is_valid, normalize_scheme, split_tag, to_iob2
from tokstudy.data.types import iob2_spans
from tokstudy.errors import TagSchemeError

TYPES = ("PER", "LOC", "ORG")


def random_iob2(rng: random.Random, n: int) -> list[str]:
    """A random valid IOB2 sequence with adjacent same-type entities now and then."""
    tags: list[str] = []
    while len(tags) < n:
        if rng.random() < 0.4:
            tags.append("O")
            continue
        t = rng.choice(TYPES)
        tags.append("B-" + t)
        tags.extend("I-" + t for _ in range(rng.randrange(3)))
    return tags[:n]


def iobes_spans(tags):
    """Independent span reader for valid IOBES/BILOU: B..E or S, by the book."""
    spans, start = [], None
    for i, tag in enumerate(tags):
        p, t = tag[0], tag[2:]
        if p in "SU":
            spans.append((i, i + 1, t))
        elif p == "B":
            start = i
        elif p in "EL":
            spans.append((start, i + 1, t))
    return spans


# ---- conversions -------------------------------------------------------------------------------


def test_iob1_to_iob2_starts_entities_with_b():
    tags = ["I-ORG", "O", "I-MISC", "O", "I-PER", "I-PER", "B-PER", "I-LOC"]
    out, n = to_iob2(tags, "IOB1")
    assert out == ("B-ORG", "O", "B-MISC", "O", "B-PER", "I-PER", "B-PER", "B-LOC")
    assert n == 0


def test_iob2_passes_through():
    tags = ("B-PER", "I-PER", "B-PER", "O", "B-LOC")
    assert to_iob2(tags, "IOB2") == (tags, 0)


@pytest.mark.parametrize(
    "scheme,tags",
    [
        ("IOBES", ["S-PER", "B-LOC", "I-LOC", "E-LOC", "O", "B-ORG", "E-ORG"]),
        ("BIOES", ["S-PER", "B-LOC", "I-LOC", "E-LOC", "O", "B-ORG", "E-ORG"]),
        ("BILOU", ["U-PER", "B-LOC", "I-LOC", "L-LOC", "O", "B-ORG", "L-ORG"]),
    ],
)
def test_iobes_bilou_to_iob2(scheme, tags):
    out, n = to_iob2(tags, scheme)
    assert out == ("B-PER", "B-LOC", "I-LOC", "I-LOC", "O", "B-ORG", "I-ORG")
    assert n == 0
    assert iob2_spans(out) == iobes_spans(tags)


def test_types_with_hyphens_and_dots_survive():
    assert split_tag("B-fromloc.city-name") == ("B", "fromloc.city-name")
    assert to_iob2(["B-a-b", "I-a-b"], "IOB2") == (("B-a-b", "I-a-b"), 0)


def test_normalize_scheme_aliases_and_unknown():
    assert normalize_scheme("bio") == "IOB2"
    assert normalize_scheme("bioes") == "IOBES"
    assert normalize_scheme("Auto") == "auto"
    with pytest.raises(ValueError, match="unknown tag scheme"):
        normalize_scheme("IO")


# ---- strict errors name the line ---------------------------------------------------------------


@pytest.mark.parametrize("bad", ["X-PER", "B-", "PER", "S-PER", "b-PER"])
def test_tag_outside_scheme_is_an_error_even_lenient(bad):
    for lenient in (False, True):
        with pytest.raises(TagSchemeError, match="outside the IOB2 scheme") as exc:
            to_iob2(["O", bad], "IOB2", lenient=lenient, path="f.txt", lines=[10, 11])
        assert exc.value.path == "f.txt" and exc.value.line == 11
        assert str(exc.value).startswith("f.txt:11: ")


@pytest.mark.parametrize(
    "tags,bad_at",
    [
        (["O", "I-PER"], 1),  # I after O
        (["I-PER"], 0),  # I at sentence start
        (["B-LOC", "I-PER"], 1),  # I after another type
    ],
)
def test_iob2_forbidden_i(tags, bad_at):
    lines = [100 + i for i in range(len(tags))]
    with pytest.raises(TagSchemeError, match="allows it only inside an entity") as exc:
        to_iob2(tags, "IOB2", path="x.conll", lines=lines)
    assert exc.value.line == lines[bad_at]
    out, n = to_iob2(tags, "IOB2", lenient=True)
    assert n == 1 and out[bad_at].startswith("B-")


def test_iob1_b_after_o_is_forbidden():
    with pytest.raises(TagSchemeError, match="IOB1 uses B- only between") as exc:
        to_iob2(["O", "B-PER"], "IOB1", path="a", lines=[5, 6])
    assert exc.value.line == 6
    assert to_iob2(["O", "B-PER"], "IOB1", lenient=True) == (("O", "B-PER"), 1)


@pytest.mark.parametrize(
    "scheme,tags,bad_line,match",
    [
        ("IOBES", ["O", "I-PER", "E-PER"], 2, "allows it only inside"),  # I without B
        ("IOBES", ["O", "E-PER"], 2, "allows it only inside"),  # E without start
        ("IOBES", ["B-PER", "O"], 2, "is not closed"),  # B left open
        ("IOBES", ["B-PER", "I-PER"], 2, "sentence ends"),  # open at sentence end
        ("IOBES", ["B-PER", "E-LOC"], 2, "is not closed"),  # E of another type
        ("BILOU", ["O", "L-LOC"], 2, "allows it only inside"),
        ("BILOU", ["B-LOC", "U-LOC"], 2, "is not closed"),
    ],
)
def test_iobes_bilou_forbidden(scheme, tags, bad_line, match):
    with pytest.raises(TagSchemeError, match=match) as exc:
        to_iob2(tags, scheme, path="s.txt", lines=list(range(1, len(tags) + 1)))
    assert exc.value.line == bad_line
    out, n = to_iob2(tags, scheme, lenient=True)
    assert n >= 1
    assert is_valid(out, "IOB2")


def test_lenient_counts_each_bad_tag_once():
    # I-PER with neither a start nor an end is one bad tag, repaired once
    assert to_iob2(["O", "I-PER", "O"], "IOBES", lenient=True) == (("O", "B-PER", "O"), 1)


# ---- detection ---------------------------------------------------------------------------------


def test_detect_iob1_when_b_only_separates_same_type():
    assert detect_scheme([["I-PER", "I-PER", "B-PER", "O"], ["O", "I-LOC"]]) == "IOB1"


def test_detect_iob2_despite_a_few_i_after_o():
    # like CoNLL-2002 Spanish: B- after O proves IOB2; the stray I- is an error, not IOB1
    assert detect_scheme([["B-PER", "I-PER"], ["O", "I-LOC"]]) == "IOB2"


def test_detect_iobes_bilou_and_mixed():
    assert detect_scheme([["S-PER", "O"]]) == "IOBES"
    assert detect_scheme([["B-PER", "L-PER"]]) == "BILOU"
    assert detect_scheme([["O"]]) == "IOB2"
    with pytest.raises(TagSchemeError, match="single scheme"):
        detect_scheme([["S-PER"], ["U-LOC"]])


# ---- property-style tests on random sequences --------------------------------------------------


@pytest.mark.parametrize("scheme", ["IOB1", "IOB2", "IOBES", "BILOU"])
def test_random_round_trip(scheme):
    rng = random.Random(1234)
    corpus = []
    for _ in range(2000):
        tags = random_iob2(rng, rng.randrange(1, 12))
        encoded = from_iob2(tags, scheme)
        assert is_valid(encoded, scheme), (tags, encoded)
        assert to_iob2(encoded, scheme) == (tuple(tags), 0)
        corpus.append(encoded)
    # over a whole corpus the detection is exact (one sentence alone may be ambiguous)
    assert detect_scheme(corpus) == scheme


@pytest.mark.parametrize("scheme", ["IOB1", "IOB2", "IOBES", "BILOU"])
def test_random_garbage_lenient_gives_valid_iob2_and_strict_agrees(scheme):
    """On arbitrary prefix/type sequences: lenient output is valid IOB2 with the same length,
    strict mode raises exactly when lenient repairs something."""
    rng = random.Random(99)
    prefixes = sorted(normalize_and_prefixes(scheme))
    for _ in range(3000):
        tags = [
            rng.choice(prefixes) + "-" + rng.choice(TYPES[:2]) if rng.random() < 0.7 else "O"
            for _ in range(rng.randrange(1, 8))
        ]
        out, n = to_iob2(tags, scheme, lenient=True)
        assert len(out) == len(tags) and is_valid(out, "IOB2")
        assert n <= len(tags)
        assert is_valid(tags, scheme) == (n == 0)
        # the words inside entities never change: O stays O and entity words stay entity words
        assert [t == "O" for t in out] == [t == "O" for t in tags]


def normalize_and_prefixes(scheme):
    from tokstudy.data.schemes import SCHEMES

    return SCHEMES[normalize_scheme(scheme)]
