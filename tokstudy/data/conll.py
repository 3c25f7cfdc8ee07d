"""CoNLL column files (CoNLL-2002/2003, WikiANN, ...) -> :class:`Dataset` with IOB2 tags.

Format: one word per line, whitespace-separated columns (spaces or tabs), the word in
the first column and the tag in ``label_column`` (default: the last); a blank line
ends a sentence; a line whose first column is ``-DOCSTART-`` starts a new document
and is not a sentence. Two-column ``token<TAB>tag`` files (WikiANN, CoNLL-2002, MasakhaNER) are
simply the two-column case. MultiCoNER's sentence headers ``# id <uuid>\\tdomain=<split>`` are
skipped (:func:`is_comment`; a word ``#`` is still a word). Plain or ``.gz``.

Tags in IOB1, IOB2, IOBES/BIOES or BILOU are normalised to IOB2; ``scheme="auto"``
detects the scheme from the whole file (rule in :func:`~tokstudy.data.schemes.detect_scheme`;
CoNLL-2003 is found to be IOB1).

Every problem raises :class:`DataFormatError` / :class:`TagSchemeError` naming the file
and line: a line whose column count differs from the rest of the file's (the count most
word lines have is the expected one, so a ragged first line is the one blamed), more
than ``max_columns`` columns, a tag outside the scheme, a forbidden ``I-`` tag (strict
mode), text not valid in ``encoding``, an empty or missing file, or a file with no word
lines. The first 20 bad lines are listed, with the total. ``skip_malformed`` (on with ``lenient``) reads the
lines whose field count differs from the file's instead: a word fused with its next column is split off where that
is clear (CoNLL-2002 Dutch's 112 lines in ``ned.testb`` whose word and part of speech are fused,
``Itali\x81EN B-LOC`` among ``word POS TAG`` lines, keep their word and tag), every other such line is skipped;
each is listed in ``Dataset.repair_log``. Lines may end in LF, CRLF or a lone CR; a gzip file is read whatever its
name.

>>> from pathlib import Path; p = Path("/tmp/_conll_demo.txt")
>>> _ = p.write_text("-DOCSTART- -X- O\\n\\nEU NNP I-ORG\\nrejects VBZ O\\n\\nPeter NNP I-PER\\n")
>>> ds = read_conll(p, name="demo", language="en", split="test")
>>> [(s.words, s.tags, s.doc_id, s.line) for s in ds]
[(('EU', 'rejects'), ('B-ORG', 'O'), 0, 3), (('Peter',), ('B-PER',), 0, 6)]
>>> ds.metadata["scheme"]
'IOB1'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tokstudy.data.repairs import FUSED, RAGGED, SKIPPED, Repair, RepairLog
from tokstudy.data.schemes import detect_scheme, normalize_scheme, to_iob2
from tokstudy.data.textio import Problems, iter_lines
from tokstudy.data.types import Dataset, Sentence
from tokstudy.errors import DataFormatError, TagSchemeError

DOCSTART = "-DOCSTART-"
#: more columns than this is not a CoNLL column file (CoNLL-U has 10, CoNLL-2003 4)
MAX_COLUMNS = 16
_ONE_COLUMN = "line has 1 column; expected at least 2 (a word and its tag)"


def read_conll(
    path: str | os.PathLike,
    *,
    label_column: int = -1,
    scheme: str = "auto",
    name: str | None = None,
    language: str = "und",
    split: str = "all",
    lenient: bool = False,
    skip_malformed: bool | None = None,
    docstart: bool = True,
    encoding: str = "utf-8",
    max_columns: int = MAX_COLUMNS,
) -> Dataset:
    """Read a CoNLL column file into a :class:`Dataset` of IOB2-tagged sentences.

    Args:
        path: the file (plain or gzip).
        label_column: index of the tag column (Python indexing: ``-1`` is the last).
        scheme: ``"auto"``, ``"IOB1"``, ``"IOB2"``, ``"IOBES"`` (``"BIOES"``) or ``"BILOU"``.
        name: dataset name (default: the file name).
        language, split: recorded in the dataset.
        lenient: repair forbidden transitions (an ``I-X`` that cannot continue an
            entity starts one) and count them in ``Dataset.repaired`` instead of raising.
        skip_malformed: read the lines whose field count differs from the file's (the count most word lines
            have) instead of refusing the file. A line with one field fewer, at least two, is a word fused with
            its next column (the tag is still the line's last field): it is split where exactly one value that
            column has on the file's full lines ends the first field, leaving a word (``Itali\x81EN B-LOC`` ->
            ``Itali\x81E N B-LOC``), and kept. Every other such line is skipped: a single field (a word without
            its tag, or a tag without its word), a word holding a space, a fused field that no value or more than
            one value ends. Each is listed in ``Dataset.repair_log`` with its line (``repair_log.split`` and
            ``repair_log.skipped`` count them). ``None``: as ``lenient``.
        docstart: treat ``-DOCSTART-`` lines as document boundaries (else as words).
        encoding: text encoding of the file (``"latin-1"`` for many CoNLL-2002 copies).
        max_columns: the most columns a line may have (more is refused, not ignored).

    ``Sentence.doc_id`` counts documents from 0 (a ``-DOCSTART-`` with no sentence
    before it does not open a new id, so a file that starts with one has ids 0..n-1);
    ``Sentence.line`` is the line of the sentence's first word.
    """
    path = Path(path)
    scheme = normalize_scheme(scheme)
    skip = lenient if skip_malformed is None else skip_malformed
    try:
        raw = _read_file(path, label_column, docstart, encoding, max_columns, skip)
    except DataFormatError as exc:
        hint = _tsv_hint(path, encoding)
        if not hint or type(exc) is not DataFormatError:
            raise
        raise DataFormatError(
            exc.reason + hint, path=exc.path, line=exc.line, others=exc.others, total=exc.total
        ) from None
    if not raw.words:
        if raw.skipped:  # every word line had a single field
            raise DataFormatError(_ONE_COLUMN, path=path, line=raw.skipped[0][0])
        raise DataFormatError("no word lines found; expected one word per line with its tag in a column", path=path)
    used = scheme
    if scheme == "auto":
        try:
            used = detect_scheme(raw.tags)
        except TagSchemeError as exc:
            raise TagSchemeError(exc.reason, path=path) from None
    spath = str(path)
    repairs = raw.line_repairs(spath)
    sentences, repaired = _sentences(raw, used, lenient, spath, repairs)
    meta = {"scheme": used, "columns": raw.n_columns, "label_column": label_column, "lenient": lenient}
    return Dataset(
        sentences=sentences,
        name=name or path.name,
        language=language,
        split=split,
        source=spath,
        repaired=repaired,
        metadata=meta | raw.line_counts(),
        repair_log=RepairLog.of(repairs, source=spath),
    )


def _sentences(raw: "_Columns", scheme: str, lenient: bool, spath: str, repairs: list) -> tuple[tuple, int]:
    """The sentences with IOB2 tags, and how many tags were repaired; raises listing every bad tag."""
    sentences = []
    repaired = 0
    problems = Problems(spath)
    for k, (words, tags, first, doc) in enumerate(zip(raw.words, raw.tags, raw.firsts, raw.docs)):
        try:
            iob2, fixed = to_iob2(tags, scheme, lenient=lenient, path=spath, lines=raw.lines(k), repairs=repairs)
        except TagSchemeError as exc:
            problems.add_error(exc)
            continue
        repaired += fixed
        sentences.append(Sentence(words=tuple(words), tags=iob2, doc_id=doc, sent_id=k, line=first))
    problems.raise_if_any()
    return tuple(sentences), repaired


def _tsv_hint(path: Path, encoding: str) -> str:
    """A hint when a file refused as CoNLL looks like a tab-separated table with a header (SST-2's
    ``sentence<TAB>label``): one sentence per row, read with ``--format tsv``; empty otherwise."""
    try:
        first = next(iter_lines(path, encoding=encoding), (0, ""))[1]
    except DataFormatError:
        return ""
    fields = first.split("\t")
    if len(fields) < 2 or not all(f.strip().isidentifier() for f in fields):
        return ""
    return (
        f"; the first line looks like the header of a tab-separated table ({', '.join(f.strip() for f in fields)}), "
        "one sentence per row as in SST-2: read it with --format tsv (format='tsv')"
    )


@dataclass
class _Columns:
    """What one pass over a CoNLL file found: per sentence its words, raw tags, first line and doc id."""

    words: list[list[str]] = field(default_factory=list)
    tags: list[list[str]] = field(default_factory=list)
    firsts: list[int] = field(default_factory=list)
    docs: list[int] = field(default_factory=list)
    #: ``(line, text)`` of the lines skipped (``skip_malformed``): a single field, or another count than the file's
    skipped: list[tuple[int, str]] = field(default_factory=list)
    #: ``(line, text, fields as read)`` of the lines read with their fused first field split (``skip_malformed``)
    fused: list[tuple[int, str, list[str]]] = field(default_factory=list)
    #: sentence index -> the skipped lines inside it (after its first word)
    holes: dict[int, list[int]] = field(default_factory=dict)
    n_columns: int = 0
    #: column count -> the first lines with it (at most 20), and -> how many lines have it
    seen: dict[int, list[int]] = field(default_factory=dict)
    tally: dict[int, int] = field(default_factory=dict)

    def add(self, words: list[str], tags: list[str], first: int, doc: int, holes: list[int]) -> None:
        if holes:
            self.holes[len(self.words)] = holes
        self.words.append(words), self.tags.append(tags), self.firsts.append(first), self.docs.append(doc)

    def line_repairs(self, spath: str) -> list[Repair]:
        """A :class:`Repair` per line skipped (a single field, or another count) or read with its word split."""
        repairs = [
            Repair(SKIPPED if len(text.split()) == 1 else RAGGED, spath, line, text.strip(), "")
            for line, text in self.skipped
        ]
        return repairs + [Repair(FUSED, spath, line, text.strip(), " ".join(cols)) for line, text, cols in self.fused]

    def line_counts(self) -> dict[str, int]:
        """``skipped_lines`` and ``fused_lines`` for the dataset's metadata, those that are not 0."""
        counts = {"skipped_lines": len(self.skipped), "fused_lines": len(self.fused)}
        return {k: n for k, n in counts.items() if n}

    def lines(self, k: int) -> range | list[int]:
        """The line of each word of sentence ``k``: consecutive from its first, but for skipped lines."""
        first, n = self.firsts[k], len(self.words[k])
        holes = self.holes.get(k)
        if not holes:
            return range(first, first + n)
        return [line for line in range(first, first + n + len(holes)) if line not in holes]


def is_comment(cols: list[str]) -> bool:
    """Whether a line's columns are a MultiCoNER sentence header ``# id <uuid>\\tdomain=<split>`` (not a word:
    a word ``#`` has its tag last, never ``domain=...``).

    >>> is_comment("# id 6d55\\tdomain=dev".split()), is_comment("# _ _ O".split())
    (True, False)
    """
    return len(cols) > 2 and cols[0] == "#" and cols[1] == "id" and cols[-1].startswith("domain=")


def _read_file(path: Path, label_column: int, docstart: bool, encoding: str, max_columns: int, skip: bool):
    """The file's :class:`_Columns`, its column count checked (raises listing the ragged lines).

    With ``skip``, the first pass skips single-field lines; when it finds lines of another count than the
    file's (known only once the whole file is read), a second pass reads those too (a fused word split, the others
    skipped), provided most word lines have the file's count (a file without one is refused as in strict reading).
    Lines one field short (fused) take one more pass first, for the values the fused column has on full lines. A
    file with no ragged line (the common case) is read once.
    """
    raw = _read_columns(path, label_column, docstart, encoding, skip)
    if skip and len(raw.tally) > 1:
        keep = _expected_columns(raw, max_columns)
        if 2 * raw.tally[keep] > sum(raw.tally.values()):  # else no count is the file's: refused below
            values = _second_column(path, keep, docstart, encoding) if raw.tally.get(keep - 1) and keep > 2 else None
            raw = _read_columns(path, label_column, docstart, encoding, skip, keep=keep, values=values)
    raw.n_columns = _check_columns(path, raw, label_column, max_columns, skip)
    return raw


def _read_columns(
    path: Path,
    label_column: int,
    docstart: bool,
    encoding: str,
    skip: bool,
    keep: int = 0,
    values: frozenset[str] | None = None,
):
    """One pass over the file: a :class:`_Columns` with its column counts tallied.

    A tight loop (one ``str.split`` per line, no regex): WikiANN's 1.3M words read in seconds.
    Column counts are tallied as they come (with the first lines of each count), and the
    most common count decides which lines are ragged once the whole file is read. With ``skip``, a line
    with a single field is skipped, and with ``keep`` (the file's count, from a first pass) every line of
    another count, but for a fused line that ``values`` (the second column's, :func:`unfuse`) splits.
    """
    out = _Columns()
    words: list[str] = []
    tags: list[str] = []
    holes: list[int] = []
    first = 0
    doc, doc_used = 0, False
    n_columns = 0
    seen, tally = out.seen, out.tally
    lines: list[int] = []
    for number, text in iter_lines(path, encoding=encoding):
        cols = text.split()
        is_docstart = bool(cols) and docstart and cols[0] == DOCSTART
        if not cols or is_docstart or (cols[0] == "#" and is_comment(cols)):
            if words:
                out.add(words, tags, first, doc, holes)
                words, tags, holes = [], [], []
                doc_used = True
            if is_docstart and doc_used:
                doc, doc_used = doc + 1, False
            continue
        if skip and (len(cols) == 1 or (keep and len(cols) != keep)):
            split = unfuse(cols, keep, values) if values else None
            if split is None:
                out.skipped.append((number, text))
                if words:
                    holes.append(number)
                continue
            out.fused.append((number, text, split))
            cols = split
        if len(cols) != n_columns:
            n_columns = len(cols)
            lines = seen.setdefault(n_columns, [])
        if len(lines) < 20:
            lines.append(number)
        tally[n_columns] = tally.get(n_columns, 0) + 1
        if not words:
            first = number
        words.append(cols[0])
        tags.append(cols[label_column] if -n_columns <= label_column < n_columns else "")
    if words:
        out.add(words, tags, first, doc, holes)
    return out


def _second_column(path: Path, keep: int, docstart: bool, encoding: str) -> frozenset[str]:
    """The values the second column has on the word lines with ``keep`` fields (a part of speech, mostly)."""
    values = set()
    for _, text in iter_lines(path, encoding=encoding):
        cols = text.split()
        if len(cols) == keep and not (docstart and cols[0] == DOCSTART) and not is_comment(cols):
            values.add(cols[1])
    return frozenset(values)


def unfuse(cols: list[str], keep: int, values: frozenset[str]) -> list[str] | None:
    """A line one field short of ``keep`` read as a word fused with its second column: its first field split
    where exactly one of ``values`` (that column's values on the file's full lines) ends it, leaving a word;
    ``None`` when no value or several values do, or the line is not one field short.

    CoNLL-2002 Dutch lost the space after a word's accented last letter (letter and space became ``\x81E``),
    so word and part of speech are one field; the other lines' parts of speech tell where the word ends. The
    word keeps the file's ``\x81E``, as its other words with that letter do.

    >>> unfuse(["Itali\x81EN", "B-LOC"], 3, frozenset({"N", "Adj", "Prep"}))
    ['Itali\x81E', 'N', 'B-LOC']
    >>> unfuse(["xAN", "O"], 3, frozenset({"N", "AN"})) is None  # 'xA' + 'N' or 'x' + 'AN'
    True
    """
    if len(cols) != keep - 1 or len(cols) < 2:
        return None
    head = cols[0]
    ends = [k for k in range(1, len(head)) if head[k:] in values]
    if len(ends) != 1:
        return None
    return [head[: ends[0]], head[ends[0] :], *cols[1:]]


def _expected_columns(raw: _Columns, max_columns: int) -> int:
    """The file's column count: the most common count a CoNLL line can have (2 to ``max_columns``), else the most
    common; on a tie the first seen."""
    usable = [n for n in raw.tally if 2 <= n <= max_columns] or list(raw.tally)
    return max(usable, key=lambda n: (raw.tally[n], -raw.seen[n][0]))


def _check_columns(path: Path, raw: _Columns, label_column: int, max_columns: int, skip: bool) -> int:
    """The file's column count (the most common one); raises listing the lines that differ."""
    seen, tally = raw.seen, raw.tally
    if not tally:
        return 0
    expected = _expected_columns(raw, max_columns)
    problems = Problems(path)
    others = tally[expected] - 1
    where = f"as on line {seen[expected][0]}" + (
        f" and {others} other word line{'s' if others != 1 else ''}" if others else ""
    )
    bad = sorted((line, n) for n, lines in seen.items() if n != expected for line in lines)
    # what lenient reading does with them: skips them where most word lines have the file's count
    hint = ""
    if 2 * tally[expected] <= sum(tally.values()):
        hint = "; lenient reading skips such lines only where most word lines have one count" if skip else ""
    elif not skip:
        hint = (
            "; lenient=True (--lenient) skips the lines whose column count differs from the file's (but splits a "
            "word fused with its next column where that is clear)"
        )
    for line, n in bad[:20]:
        problems.add(
            line,
            f"line has {n} column{'s' if n != 1 else ''}, expected {expected} {where} (ragged column "
            "count; columns are separated by whitespace, so a word cannot contain a space)" + hint,
        )
    problems.count(sum(tally[n] for n in tally if n != expected) - min(len(bad), 20))
    problems.raise_if_any()
    first = seen[expected][0]
    if expected < 2:
        raise DataFormatError(_ONE_COLUMN, path=path, line=first)
    if expected > max_columns:
        raise DataFormatError(
            f"line has {expected} columns; expected at most {max_columns} (a word, its tag and a few more); "
            "is this a CoNLL column file?",
            path=path,
            line=first,
        )
    if not -expected <= label_column < expected:
        raise DataFormatError(
            f"label_column={label_column} but the line has only {expected} columns", path=path, line=first
        )
    return expected
