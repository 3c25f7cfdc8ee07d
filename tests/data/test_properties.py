"""Property-based tests (hypothesis) of the readers and the predictions round trip (issue 15, "make it systematic").

* ``write -> read`` is the identity for arbitrary words (``#``, spaces, tabs, newlines, non-BMP,
  right-to-left, combining marks where the format can hold them), arbitrary line endings
  (LF, CRLF, CR), a byte-order mark or not, gzip or not.
* Replacing any one byte of a valid file either reads the same number of words or raises a
  :class:`~tokstudy.errors.TokstudyError` that names the file and a line: never another
  exception, never a different count without a word. (CoNLL files here have no
  ``-DOCSTART-`` lines: one changed byte there makes a plausible word line, which no reader
  could tell from a real one; and they have three word lines or more: a file of two word
  lines that loses the line end between them is a valid file of one longer line.)

Examples are bounded and derandomized, so each test takes a few seconds and CI is repeatable.
"""

from __future__ import annotations

import gzip
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokstudy.analysis.model_errors.predictions import read_predictions, write_predictions
from tokstudy.data.conll import read_conll
from tokstudy.data.jsonl import read_jsonl
from tokstudy.data.textio import iter_lines
from tokstudy.data.tsv import read_tsv
from tokstudy.errors import TokstudyError

# more examples for a deeper local search: TOKSTUDY_PROPERTY_EXAMPLES=5000 pytest tests/data/test_properties.py
SETTINGS = settings(
    max_examples=int(os.environ.get("TOKSTUDY_PROPERTY_EXAMPLES", "60")),
    deadline=None,
    derandomize=not os.environ.get("TOKSTUDY_PROPERTY_EXAMPLES"),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Characters the sample draws from besides hypothesis' own: '#', backslash, RTL (Hebrew, Arabic),
# combining marks, non-BMP (emoji, Gothic), a zero-width joiner, a BOM in the middle of text.
SPECIAL = "#\\\u05d0\u05e9\u0627\u0644\u0301\u0308\U0001f600\U00010348\u200d\ufeff"
ANY_CHAR = st.one_of(st.characters(exclude_categories=("Cs",)), st.sampled_from(SPECIAL))
NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])
#: how a file's text is stored: line endings, a byte-order mark or not, gzip or not (keyword arguments of encode)
FORMS = st.fixed_dictionaries({"newline": NEWLINES, "bom": st.booleans(), "gz": st.booleans()})
TYPES = st.sampled_from(["PER", "LOC", "ORG", "MISC", "fromloc.city_name"])


def _no_space(c: str) -> bool:
    return not c.isspace() and c not in "\n\r"


# a CoNLL word: no whitespace (columns are whitespace-separated), never -DOCSTART-, and not starting
# with U+FEFF (at the start of a file that is a byte-order mark, dropped by design)
CONLL_WORD = st.text(ANY_CHAR.filter(_no_space), min_size=1, max_size=8).filter(
    lambda w: w != "-DOCSTART-" and not w.startswith("\ufeff")
)
# a predictions word: anything non-empty
ANY_WORD = st.text(ANY_CHAR, min_size=1, max_size=8)


@st.composite
def iob2_tags(draw, n: int) -> list[str]:
    """A valid IOB2 sequence of ``n`` tags."""
    tags: list[str] = []
    while len(tags) < n:
        kind = draw(st.sampled_from(["O", "B", "I"] if tags and tags[-1] != "O" else ["O", "B"]))
        if kind == "I":
            tags.append("I-" + tags[-1][2:])
        elif kind == "B":
            tags.append("B-" + draw(TYPES))
        else:
            tags.append("O")
    return tags


@st.composite
def tagged_sentences(draw, word=CONLL_WORD, max_sentences: int = 4) -> list[tuple[list[str], list[str]]]:
    out = []
    for _ in range(draw(st.integers(1, max_sentences))):
        words = draw(st.lists(word, min_size=1, max_size=6))
        out.append((words, draw(iob2_tags(len(words)))))
    return out


def encode(text: str, *, newline: str, bom: bool, gz: bool) -> bytes:
    raw = (("\ufeff" if bom else "") + text.replace("\n", newline)).encode("utf-8")
    return gzip.compress(raw, mtime=0) if gz else raw


def conll_text(sentences, sep: str) -> str:
    return "\n".join("".join(f"{w}{sep}{t}\n" for w, t in zip(words, tags)) for words, tags in sentences)


def check_mutation(path, raw: bytes, pos: int, value: int, read, count) -> None:
    """Replace byte ``pos`` by ``value``: same count, or a TokstudyError at file:line."""
    mutated = bytearray(raw)
    mutated[pos % len(raw)] = value
    path.write_bytes(bytes(mutated))
    expected = count(read(path.with_name("valid")))
    try:
        got = read(path)
    except TokstudyError as exc:
        assert str(path) in str(exc), exc
        assert getattr(exc, "line", None) is not None, f"no line in: {exc}"
        return
    assert count(got) == expected, f"byte {pos} -> {value:#x} silently changed the count {expected} -> {count(got)}"


# ---- textio ------------------------------------------------------------------------


@SETTINGS
@given(
    lines=st.lists(st.text(ANY_CHAR.filter(lambda c: c not in "\n\r"), max_size=12), min_size=1, max_size=12),
    form=FORMS,
    final=st.booleans(),
)
def test_iter_lines_gives_back_the_lines(tmp_path, lines, form, final):
    if lines[0].startswith("\ufeff"):
        lines[0] = "x" + lines[0]  # a leading BOM is dropped by design
    text = "\n".join(lines) + ("\n" if final or lines[-1] == "" else "")
    path = tmp_path / "f.txt"
    path.write_bytes(encode(text, **form))
    assert [t for _, t in iter_lines(path, allow_empty=True)] == lines


# ---- CoNLL ---------------------------------------------------------------------------


@SETTINGS
@given(
    sentences=tagged_sentences(),
    form=FORMS,
    sep=st.sampled_from([" ", "\t", "  ", " \t"]),
)
def test_conll_write_read_is_identity(tmp_path, sentences, form, sep):
    path = tmp_path / "f.conll"
    path.write_bytes(encode(conll_text(sentences, sep), **form))
    ds = read_conll(path, scheme="IOB2")
    assert [(list(s.words), list(s.tags)) for s in ds] == sentences


@SETTINGS
@given(
    sentences=tagged_sentences().filter(lambda ss: sum(len(w) for w, _ in ss) >= 3),
    newline=NEWLINES,
    gz=st.booleans(),
    pos=st.integers(0, 10**6),
    value=st.integers(0, 255),
)
def test_conll_one_changed_byte_reads_the_same_count_or_names_the_line(tmp_path, sentences, newline, gz, pos, value):
    raw = encode(conll_text(sentences, " "), newline=newline, bom=False, gz=gz)
    (tmp_path / "valid").write_bytes(raw)
    check_mutation(tmp_path / "f.conll", raw, pos, value, lambda p: read_conll(p, scheme="IOB2"), lambda ds: ds.n_words)


# ---- TSV and JSON lines ------------------------------------------------------------------


@SETTINGS
@given(
    rows=st.lists(
        st.tuples(st.lists(CONLL_WORD, min_size=1, max_size=5), st.sampled_from(["0", "1", "pos"])),
        min_size=1,
        max_size=6,
    ),
    form=FORMS,
)
def test_tsv_write_read_is_identity(tmp_path, rows, form):
    text = "sentence\tlabel\n" + "".join(f"{' '.join(w)}\t{label}\n" for w, label in rows)
    path = tmp_path / "s.tsv"
    path.write_bytes(encode(text, **form))
    assert [(list(s.words), s.label) for s in read_tsv(path)] == rows


@SETTINGS
@given(
    sentences=tagged_sentences(word=ANY_WORD),
    form=FORMS,
    ascii_only=st.booleans(),
)
def test_jsonl_write_read_is_identity(tmp_path, sentences, form, ascii_only):
    text = "".join(json.dumps({"tokens": w, "tags": t}, ensure_ascii=ascii_only) + "\n" for w, t in sentences)
    if not ascii_only and any(c in text for c in "\r\u2028\u2029\x85"):
        return  # raw line separators inside a JSON string would cut its line; ensure_ascii escapes them
    path = tmp_path / "t.jsonl"
    path.write_bytes(encode(text, **form))
    assert [(list(s.words), list(s.tags)) for s in read_jsonl(path, scheme="IOB2")] == sentences


# ---- predictions ----------------------------------------------------------------------


def _triples(sentences, preds):
    return [(w, t, p) for (w, t), p in zip(sentences, preds)]


@st.composite
def predicted(draw):
    sentences = draw(tagged_sentences(word=ANY_WORD))
    preds = [draw(iob2_tags(len(w))) for w, _ in sentences]
    return _triples(sentences, preds)


@SETTINGS
@given(
    triples=predicted(),
    form=FORMS,
    meta=st.dictionaries(
        st.sampled_from(["dataset", "model", "seed"]),
        st.text(ANY_CHAR.filter(lambda c: c not in "\t\n\r"), max_size=6).map(str.strip),
    ),
)
def test_predictions_write_read_is_identity(tmp_path, triples, form, meta):
    path = write_predictions(tmp_path / "p.tsv", triples, metadata=meta)
    text = path.read_bytes().decode("utf-8")
    path.write_bytes(encode(text, **form))
    got = read_predictions(path)
    assert [(list(s.words), list(s.gold), list(s.pred)) for s in got] == [tuple(map(list, t)) for t in triples]
    assert [s.sent_id for s in got] == list(range(len(triples)))


@SETTINGS
@given(triples=predicted(), gz=st.booleans(), pos=st.integers(0, 10**6), value=st.integers(0, 255))
def test_predictions_one_changed_byte_reads_the_same_count_or_names_the_line(tmp_path, triples, gz, pos, value):
    path = write_predictions(tmp_path / "valid", triples)
    raw = encode(path.read_bytes().decode("utf-8"), newline="\n", bom=False, gz=gz)
    (tmp_path / "valid").write_bytes(raw)
    check_mutation(tmp_path / "p.tsv", raw, pos, value, read_predictions, lambda p: p.n_words)


@SETTINGS
@given(
    sentences=tagged_sentences(word=ANY_WORD), gz=st.booleans(), pos=st.integers(0, 10**6), value=st.integers(0, 255)
)
def test_jsonl_one_changed_byte_reads_the_same_count_or_names_the_line(tmp_path, sentences, gz, pos, value):
    text = "".join(json.dumps({"tokens": w, "tags": t}) + "\n" for w, t in sentences)
    raw = encode(text, newline="\n", bom=False, gz=gz)
    (tmp_path / "valid").write_bytes(raw)
    check_mutation(tmp_path / "t.jsonl", raw, pos, value, lambda p: read_jsonl(p, scheme="IOB2"), lambda ds: ds.n_words)
