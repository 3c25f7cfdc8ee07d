"""A command that writes several outputs leaves none of them when one fails: the outputs written before the
failure are not left behind, a target that existed keeps its old content, and no temporary file remains.
The failure is injected into the writer of the last output (a full disk); the message names the output the
user asked for, not a temporary name. On success every output is in place, with the user's permissions.
"""

from __future__ import annotations

import errno
import random
import string
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.analysis.model_errors.piece_predictions import PieceSentence, PredictedWord, write_piece_predictions
from tokstudy.analysis.model_errors.predictions import write_predictions
from tokstudy.cli import main
from tokstudy.fileio import current_umask

PARALLEL = PROJECT_ROOT / "data" / "fixtures" / "parallel"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """A character-level vocab.txt, a 40-sentence IOB2 CoNLL file, a model's predictions for it, a gold
    morpheme file and a per-piece predictions file."""
    d = tmp_path_factory.mktemp("partial_inputs")
    chars = string.ascii_lowercase + string.ascii_uppercase
    vocab = d / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
    rng = random.Random(1)
    sentences = []
    for _ in range(40):
        words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 9))) for _ in range(6)]
        gold = ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]
        pred = [g if rng.random() > len(w) / 12 else "O" for w, g in zip(words, gold)]
        pred = ["B-PER" if p == "I-PER" and pred[i - 1] == "O" else p for i, p in enumerate(pred)]
        sentences.append((words, gold, pred))
    data = d / "data.conll"
    data.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(s[0], s[1])) for s in sentences) + "\n")
    gold = d / "eng.word.dev.tsv"
    gold.write_text("played\tplay @@ed\t100\nwalking\twalk @@ing\t100\ncats\tcat @@s\t100\n", encoding="utf-8")
    probs = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1]])
    words = (
        PredictedWord("Peter", "B-PER", 2, ("Pe", "ter"), probs),
        PredictedWord("said", "O", 1, ("said",), probs[1:]),
    )
    pieces = write_piece_predictions(d / "m.pieces.tsv", ("O", "B-PER", "I-PER"), [PieceSentence(0, words)])
    return {
        "vocab": vocab,
        "data": data,
        "preds": write_predictions(d / "preds.tsv", sentences, metadata={"model": "m"}),
        "gold": gold,
        "pieces": pieces,
    }


def _tagged(i):
    return ["-d", i["data"], "-t", i["vocab"], "--no-progress"]


#: command -> (its arguments given the inputs, its output options (the first is there before the command runs,
#: the last is the one that fails), and the writer of the last one, made to fail)
COMMANDS = {
    "stats": (
        lambda i: [*_tagged(i), "--resamples", "0"],
        {"--json": "s.json", "--shredded-csv": "w.csv", "--csv": "s.csv"},
        "tokstudy.report.tables.write_csv",
    ),
    "corpus-stats": (
        lambda i: ["-t", i["vocab"], "--corpus", PARALLEL, "--processes", "1", "--resamples", "0", "--no-progress"],
        {"--json": "k.json", "--csv": "k.csv"},
        "tokstudy.report.tables.write_csv",
    ),
    "correlate": (
        lambda i: [*_tagged(i), "-p", i["preds"], "--resamples", "0"],
        {"--json": "c.json", "--csv": "c.csv"},
        "tokstudy.report.tables.write_csv",
    ),
    "correlate-protocols": (
        lambda i: [*_tagged(i), "-p", i["preds"], "--resamples", "0"],
        {"--markdown": "p.md", "--json": "p.json", "--csv": "p.csv"},
        "tokstudy.report.tables.write_csv",
    ),
    "attribute": (
        lambda i: [*_tagged(i), "-p", i["preds"], "--no-fit-process"],
        {"--json": "a.json", "--csv": "a.csv", "--figure": "odds"},
        "tokstudy.report.figures.plot_odds_ratios",
    ),
    "examples": (
        lambda i: [*_tagged(i), "-p", i["preds"]],
        {"--csv": "e.csv", "--json": "e.json"},
        "tokstudy.report.tables.write_json",
    ),
    "parity": (
        lambda i: ["-t", i["vocab"], "--parallel-dir", PARALLEL, "--resamples", "0", "--no-progress"],
        {"--json": "y.json", "--csv": "y.csv"},
        "tokstudy.report.tables.write_csv",
    ),
    "morph": (
        lambda i: ["-t", i["vocab"], "-g", i["gold"]],
        {"--csv": "m.csv", "--json": "m.json"},
        "tokstudy.report.tables.write_json",
    ),
    "pieces": (
        lambda i: [i["pieces"], "--bootstrap", "0"],
        {"--csv": "q.csv", "--json": "q.json"},
        "tokstudy.report.tables.write_json",
    ),
}


def _argv(name: str, inputs, out: Path) -> list[str]:
    args, options, _ = COMMANDS[name]
    return [name, *map(str, args(inputs)), *(str(x) for o, f in options.items() for x in (o, out / f))]


def _full_disk(monkeypatch, dotted: str) -> None:
    """Make the writer ``dotted`` fail as a full disk does, on the file it was to write (a figure: its PNG)."""
    module, _, name = dotted.rpartition(".")

    def refuse(*args, **kwargs):
        path = Path(args[-1] if name.startswith("write") else str(args[-1]) + ".png")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(f"{module}.{name}", refuse)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_failing_last_output_leaves_none(name, inputs, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    options = COMMANDS[name][1]
    first = out / next(iter(options.values()))
    first.write_text("old content\n")  # written by an earlier run: must stay as it was
    _full_disk(monkeypatch, COMMANDS[name][2])
    code = main(_argv(name, inputs, out))
    err = capsys.readouterr().err
    last = out / list(options.values())[-1]
    failed = last.with_name(last.name + ".png") if last.suffix == "" else last
    assert code == 1 and err.strip() == f"tokstudy {name}: error: {failed}: No space left on device", err
    assert sorted(p.name for p in out.iterdir()) == [first.name]  # nothing new, no temporary file
    assert first.read_text() == "old content\n"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_output_is_in_place_after_success(name, inputs, tmp_path, capsys):
    out = tmp_path / "new" / "out"  # folders made as needed
    assert main(_argv(name, inputs, out)) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    expected = []
    for f in COMMANDS[name][1].values():
        expected += [f + ".png", f + ".svg"] if "." not in f else [f]
    assert sorted(p.name for p in out.iterdir()) == sorted(expected)
    for f in expected:
        path = out / f
        assert path.stat().st_size > 0 and f"{path}" in printed
        assert path.stat().st_mode & 0o777 == 0o666 & ~current_umask()


def test_a_report_that_fails_while_writing_leaves_its_folder_as_it_was(inputs, tmp_path, capsys, monkeypatch):
    out = tmp_path / "report"
    out.mkdir()
    (out / "notes.md").write_text("mine\n")
    (out / "table4.csv").write_text("old\n")

    def refuse(directory, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(directory) / "index.md"))

    monkeypatch.setattr("tokstudy.report.writer.write_document", refuse)
    argv = ["report", *map(str, _tagged(inputs)), "-p", str(inputs["preds"]), "--resamples", "0", "--no-figures"]
    assert main([*argv, "--out", str(out)]) == 1
    assert capsys.readouterr().err.strip() == f"tokstudy report: error: {out / 'index.md'}: No space left on device"
    assert sorted(p.name for p in out.iterdir()) == ["notes.md", "table4.csv"]
    assert (out / "table4.csv").read_text() == "old\n"
    fresh = tmp_path / "fresh" / "report"
    assert main([*argv, "--out", str(fresh)]) == 1
    assert not (tmp_path / "fresh").exists()  # the folders made for it are gone too


def test_a_report_is_put_in_place_beside_what_the_folder_holds(inputs, tmp_path, capsys):
    out = tmp_path / "report"
    out.mkdir()
    (out / "notes.md").write_text("mine\n")
    argv = ["report", *map(str, _tagged(inputs)), "-p", str(inputs["preds"]), "--resamples", "0", "--no-figures"]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"start with {out / 'index.md'}" in printed
    names = {p.name for p in out.iterdir()}
    assert {"notes.md", "index.md", "index.html"} <= names and not [n for n in names if n.startswith(".")]
    assert ".staging-" not in (out / "index.md").read_text(encoding="utf-8")


def test_a_rename_that_fails_puts_the_old_files_back(tmp_path):
    """The group is put in place file by file; when one rename fails (its target became a folder meanwhile), the
    files already renamed are taken back and the old ones restored."""
    from tokstudy.cli.arguments import staged_outputs

    (tmp_path / "a.csv").write_text("old a\n")
    with pytest.raises(IsADirectoryError), staged_outputs() as out:
        out.file(tmp_path / "a.csv").write_text("new a\n")
        out.file(tmp_path / "b.json").write_text("new b\n")
        (tmp_path / "b.json").mkdir()  # in the way, after the command was checked
    assert (tmp_path / "a.csv").read_text() == "old a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.json"] and (tmp_path / "b.json").is_dir()
