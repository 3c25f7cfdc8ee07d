"""Tag schemes for word-level spans (IOB1, IOB2, IOBES/BIOES, BILOU) and their conversion to IOB2.

Every reader normalises its tags to IOB2 (``B-`` starts every entity, ``I-`` continues
it), the scheme :class:`~tokstudy.data.types.Sentence` stores. The functions here are
pure: they take one sentence's tags and return new tags, never reading files. Readers
pass the per-word line numbers and the file name so that a bad tag is reported at its
place.

Schemes and what each one forbids (strict mode):

========  ==========================  ================================================
scheme    prefixes                    forbidden
========  ==========================  ================================================
IOB2      B I                         ``I-X`` not after ``B-X``/``I-X``
IOB1      B I                         ``B-X`` not after ``B-X``/``I-X`` (in IOB1 ``B-``
                                      only separates two adjacent entities of one type)
IOBES     B I E S                     ``I-X``/``E-X`` not after ``B-X``/``I-X``; ``B-X``/``I-X``
                                      not followed by ``I-X``/``E-X`` (entity left open)
BILOU     B I L U                     as IOBES with ``L`` for ``E`` and ``U`` for ``S``
========  ==========================  ================================================

A tag outside the scheme (``X-PER``, ``B-`` with no type, ``S-LOC`` in IOB2, ``PER``)
is always an error, also in lenient mode: there is no safe guess for it. Lenient mode
repairs forbidden transitions (the entity starts where the bad tag is: ``O I-LOC`` ->
``O B-LOC``; an entity left open in IOBES/BILOU is closed where it stops) and counts
every repaired tag.

>>> to_iob2(["I-ORG", "I-ORG", "O", "I-PER", "B-PER"], "IOB1")
(('B-ORG', 'I-ORG', 'O', 'B-PER', 'B-PER'), 0)
>>> to_iob2(["O", "I-LOC"], "IOB2", lenient=True)
(('O', 'B-LOC'), 1)
>>> to_iob2(["S-PER", "B-ORG", "E-ORG"], "IOBES")
(('B-PER', 'B-ORG', 'I-ORG'), 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, NoReturn, Sequence

from tokstudy.data.repairs import IOB1_B, START, UNCLOSED, Repair
from tokstudy.errors import TagSchemeError

#: The schemes, with the prefixes each allows besides the bare ``O``.
SCHEMES: dict[str, frozenset[str]] = {
    "IOB1": frozenset("BI"),
    "IOB2": frozenset("BI"),
    "IOBES": frozenset("BIES"),
    "BILOU": frozenset("BILU"),
}
#: Other accepted spellings.
ALIASES = {"BIO": "IOB2", "IOB": "IOB2", "BIOES": "IOBES", "BILUO": "BILOU"}

# Per scheme: the prefix that ends a multi-word entity and the one for a single-word entity.
_END_SINGLE = {"IOBES": ("E", "S"), "BILOU": ("L", "U")}


def normalize_scheme(scheme: str) -> str:
    """Canonical scheme name (``"bioes"`` -> ``"IOBES"``); ``"auto"`` is kept.

    >>> normalize_scheme("bio")
    'IOB2'
    """
    s = scheme.strip().upper()
    if s == "AUTO":
        return "auto"
    s = ALIASES.get(s, s)
    if s not in SCHEMES:
        raise ValueError(
            f"unknown tag scheme {scheme!r}; expected one of {sorted(SCHEMES)}, "
            f"their aliases {sorted(ALIASES)} or 'auto'"
        )
    return s


@lru_cache(maxsize=4096)
def split_tag(tag: str) -> tuple[str, str]:
    """``"B-PER"`` -> ``("B", "PER")``; ``"O"`` -> ``("O", "")``; anything else -> ``("", tag)``.

    Only the first hyphen separates the prefix, so types may contain hyphens
    (``I-fromloc.city-name``). A malformed tag gets the empty prefix.
    """
    if tag == "O":
        return "O", ""
    if len(tag) > 2 and tag[1] == "-":
        return tag[0], tag[2:]
    return "", tag


def detect_scheme(sequences: Iterable[Sequence[str]]) -> str:
    """Guess the scheme of a corpus from all its tag sequences (one per sentence).

    The rule, applied to the whole corpus (a single sentence is rarely conclusive):

    1. any ``E-``/``S-`` prefix -> IOBES; any ``L-``/``U-`` -> BILOU (both -> error);
    2. otherwise (only ``B``/``I``/``O``): IOB1 when some ``I-X`` starts an entity
       (it follows ``O``, another type or the sentence start) **and** every ``B-X``
       follows ``B-X`` or ``I-X`` of the same type (in IOB1 ``B-`` only separates two
       adjacent same-type entities; this is how CoNLL-2003 is written);
    3. otherwise IOB2. A corpus where ``B-`` follows ``O`` is IOB2 even when a few ``I-``
       tags follow ``O``: those are errors (CoNLL-2002 Spanish has three), which strict
       reading reports and lenient reading repairs.

    Malformed tags are ignored here; the conversion reports them with their line.

    >>> detect_scheme([["I-PER", "I-PER", "O"], ["I-LOC", "B-LOC"]])
    'IOB1'
    >>> detect_scheme([["B-PER", "I-PER", "O", "I-LOC"]])
    'IOB2'
    """
    prefixes: set[str] = set()
    i_starts = False
    b_after_other = False
    for tags in sequences:
        prev_p, prev_t = "O", ""
        for tag in tags:
            p, t = split_tag(tag)
            prefixes.add(p)
            if p == "I" and not (prev_p in ("B", "I") and prev_t == t):
                i_starts = True
            elif p == "B" and not (prev_p in ("B", "I") and prev_t == t):
                b_after_other = True
            prev_p, prev_t = p, t
    iobes, bilou = prefixes & {"E", "S"}, prefixes & {"L", "U"}
    if iobes and bilou:
        raise TagSchemeError(
            f"tags with prefixes {sorted(iobes)} (IOBES) and {sorted(bilou)} (BILOU) in one corpus; "
            "expected a single scheme (pass scheme= explicitly)"
        )
    if iobes:
        return "IOBES"
    if bilou:
        return "BILOU"
    if i_starts and not b_after_other:
        return "IOB1"
    return "IOB2"


def to_iob2(
    tags: Sequence[str],
    scheme: str,
    *,
    lenient: bool = False,
    path: str | None = None,
    lines: Sequence[int] | None = None,
    repairs: list[Repair] | None = None,
) -> tuple[tuple[str, ...], int]:
    """Convert one sentence's tags from ``scheme`` to IOB2; returns ``(iob2_tags, n_repaired)``.

    ``lines`` (one 1-based line number per tag) and ``path`` serve error messages and repair records.
    Strict mode raises :class:`TagSchemeError` at the first forbidden tag; lenient mode
    repairs it and counts it, and appends a :class:`~tokstudy.data.repairs.Repair` per repaired
    tag to ``repairs`` when given. A tag outside the scheme raises in both modes.

    >>> to_iob2(["B-PER", "L-PER", "U-LOC"], "BILOU")
    (('B-PER', 'I-PER', 'B-LOC'), 0)
    """
    if scheme not in SCHEMES:
        scheme = normalize_scheme(scheme)
        if scheme == "auto":
            scheme = detect_scheme([tags])
    if scheme == "IOB2" and _valid_iob2(tags):
        return tuple(tags), 0  # the common case (WikiANN, SNIPS, ...): nothing to convert
    if scheme == "IOB1":
        converted = _valid_iob1_to_iob2(tags)  # CoNLL-2003: no tag to report or repair
        if converted is not None:
            return converted, 0
    conv = _Conversion(tags, scheme, lenient, path, lines, repairs)
    parsed = [split_tag(t) for t in tags]
    _check_in_scheme(conv, parsed)
    if scheme in ("IOB2", "IOB1"):
        return _iob_to_iob2(conv, parsed)
    return _closed_to_iob2(conv, parsed)


@dataclass(frozen=True)
class _Conversion:
    """One sentence's tags being converted, and where they come from: reports a forbidden tag at its line
    (strict) or records its repair (lenient)."""

    tags: Sequence[str]
    scheme: str
    lenient: bool
    path: str | None
    lines: Sequence[int] | None
    repairs: list[Repair] | None

    def fail(self, i: int, reason: str) -> NoReturn:
        raise TagSchemeError(reason, path=self.path, line=None if self.lines is None else self.lines[i])

    def record(self, i: int, kind: str, became: str) -> None:
        if self.repairs is not None:
            line = None if self.lines is None else self.lines[i]
            self.repairs.append(Repair(kind, self.path, line, self.tags[i], became, _prev(self.tags, i)))


def _check_in_scheme(conv: _Conversion, parsed: list[tuple[str, str]]) -> None:
    """Raise at the first tag outside the scheme (in both modes: there is no safe guess for it)."""
    allowed = SCHEMES[conv.scheme]
    for i, (p, t) in enumerate(parsed):
        if p == "O":
            continue
        if p not in allowed or not t:
            conv.fail(
                i,
                f"tag {conv.tags[i]!r} is outside the {conv.scheme} scheme; expected 'O' or one of "
                f"{'/'.join(sorted(allowed))} followed by '-' and a type",
            )


def _iob_to_iob2(conv: _Conversion, parsed: list[tuple[str, str]]) -> tuple[tuple[str, ...], int]:
    """IOB2 or IOB1 to IOB2: an ``I-`` that starts an entity becomes ``B-`` (a repair in IOB2); an IOB1 ``B-``
    outside an entity of its type is a repair."""
    tags, scheme = conv.tags, conv.scheme
    out: list[str] = []
    repaired = 0
    prev_p, prev_t = "O", ""  # the previous tag, in IOB2 output terms
    for i, (p, t) in enumerate(parsed):
        inside = prev_p != "O" and prev_t == t  # previous word is in an entity of this type
        if p == "O":
            out.append("O")
        elif p == "I":
            if inside:
                out.append(tags[i])
            else:
                if scheme == "IOB2":
                    if not conv.lenient:
                        conv.fail(i, _i_message(tags, i, "IOB2"))
                    repaired += 1
                    conv.record(i, START, "B-" + t)
                p = "B"
                out.append("B-" + t)
        else:  # B
            if scheme == "IOB1" and not inside:
                if not conv.lenient:
                    conv.fail(
                        i,
                        f"tag {tags[i]!r} at word {i + 1} follows {_prev(tags, i)}; IOB1 uses B- only "
                        f"between two adjacent {t} entities (expected I-{t})",
                    )
                repaired += 1
                conv.record(i, IOB1_B, tags[i])
            out.append(tags[i])
        prev_p, prev_t = p, t
    return tuple(out), repaired


def _closed_to_iob2(conv: _Conversion, parsed: list[tuple[str, str]]) -> tuple[tuple[str, ...], int]:
    """IOBES or BILOU to IOB2: an entity must be opened before it continues and closed before it stops;
    lenient mode starts it at a continuing tag and closes it where it stops."""
    tags, scheme, n = conv.tags, conv.scheme, len(parsed)
    end, single = _END_SINGLE[scheme]
    out: list[str] = []
    repaired = 0
    prev_p, prev_t = "O", ""  # the previous tag, in IOB2 output terms
    for i, (p, t) in enumerate(parsed):
        open_entity = prev_p in ("B", "I") and prev_t == t  # an entity of this type is open
        bad = ""  # the first kind of repair: a tag counts once as repaired, even if both its sides were wrong
        if p in ("I", end) and not open_entity:
            if not conv.lenient:
                conv.fail(i, _i_message(tags, i, scheme))
            bad = START
            p = "B" if p == "I" else single  # the entity starts here
        if p in ("B", "I"):
            nxt = parsed[i + 1] if i + 1 < n else ("O", "")
            if not (nxt[0] in ("I", end) and nxt[1] == t):
                if not conv.lenient:
                    j = i + 1 if i + 1 < n else i
                    found = f"found {tags[i + 1]!r}" if i + 1 < n else "the sentence ends"
                    conv.fail(
                        j,
                        f"entity {t} opened by {tags[i]!r} at word {i + 1} is not closed: expected "
                        f"I-{t} or {end}-{t} next, {found} ({scheme})",
                    )
                bad = bad or UNCLOSED
                p = "B" if p == "B" else end  # close it here
        repaired += bool(bad)
        if p == "O":
            out.append("O")
        elif p in ("B", single):
            out.append("B-" + t)
        else:  # I or end: continues the open entity
            out.append("I-" + t)
        if bad:
            conv.record(i, bad, out[-1])
        prev_p, prev_t = ("O", "") if p in (end, single, "O") else (p, t)
    return tuple(out), repaired


def from_iob2(tags: Sequence[str], scheme: str) -> tuple[str, ...]:
    """Write valid IOB2 tags in another scheme (the inverse of :func:`to_iob2`).

    >>> from_iob2(["B-PER", "I-PER", "B-LOC", "O"], "IOBES")
    ('B-PER', 'E-PER', 'S-LOC', 'O')
    >>> from_iob2(["B-PER", "B-PER", "B-LOC"], "IOB1")
    ('I-PER', 'B-PER', 'I-LOC')
    """
    scheme = normalize_scheme(scheme)
    if scheme == "IOB2":
        return tuple(tags)
    out = []
    n = len(tags)
    for i, tag in enumerate(tags):
        p, t = split_tag(tag)
        if p == "O":
            out.append("O")
            continue
        if scheme == "IOB1":
            prev_p, prev_t = split_tag(tags[i - 1]) if i else ("O", "")
            adjacent_same = p == "B" and prev_p in ("B", "I") and prev_t == t
            out.append(("B-" if adjacent_same else "I-") + t)
            continue
        end, single = _END_SINGLE[scheme]
        nxt_p, nxt_t = split_tag(tags[i + 1]) if i + 1 < n else ("O", "")
        continues = nxt_p == "I" and nxt_t == t
        if p == "B":
            out.append(("B-" if continues else single + "-") + t)
        else:
            out.append(("I-" if continues else end + "-") + t)
    return tuple(out)


def is_valid(tags: Sequence[str], scheme: str) -> bool:
    """Whether ``tags`` is a well-formed sequence in ``scheme`` (strict conversion succeeds)."""
    try:
        to_iob2(tags, scheme)
    except TagSchemeError:
        return False
    return True


def _valid_iob2(tags: Sequence[str]) -> bool:
    """Fast check that ``tags`` is valid IOB2 (the full conversion then has nothing to do)."""
    prev = "O"
    for tag in tags:
        if tag != "O":
            head = tag[:2]
            if len(tag) < 3 or (head != "B-" and head != "I-"):
                return False
            if head == "I-" and (prev == "O" or prev[2:] != tag[2:]):
                return False
        prev = tag
    return True


def _valid_iob1_to_iob2(tags: Sequence[str]) -> tuple[str, ...] | None:
    """IOB1 ``tags`` in IOB2 when none is malformed or a forbidden ``B-`` (else ``None``: the full
    conversion then reports or repairs it). An ``I-X`` that starts an entity becomes ``B-X``."""
    out = []
    prev = "O"  # the previous tag, in IOB2
    for tag in tags:
        if tag != "O":
            head = tag[:2]
            if len(tag) < 3 or (head != "B-" and head != "I-"):
                return None
            if prev == "O" or prev[2:] != tag[2:]:  # not inside an entity of this type
                if head == "B-":
                    return None
                tag = "B-" + tag[2:]
        out.append(tag)
        prev = tag
    return tuple(out)


def _prev(tags: Sequence[str], i: int) -> str:
    return f"{tags[i - 1]!r}" if i else "the sentence start"


def _i_message(tags: Sequence[str], i: int, scheme: str) -> str:
    t = split_tag(tags[i])[1]
    return (
        f"tag {tags[i]!r} at word {i + 1} follows {_prev(tags, i)}; {scheme} allows it only inside an "
        f"entity of type {t} (expected B-{t} to start one, or lenient=True to repair)"
    )
