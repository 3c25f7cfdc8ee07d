"""Issue 33 item 1: the files a command was asked for are written even when the reader of its output
leaves early (``tokstudy stats ... --json out.json | head -3``), and an output that cannot be written is
an argument error (exit status 2, the message on the first line), before any work.

Every command runs as a real process whose standard output is a pipe. The reader closes the pipe
before the command prints anything (``PYTHONUNBUFFERED=1``: each print reaches the pipe at once, so the
first one meets the closed pipe, as a long output does after ``| head`` has exited). Its files are then
compared, byte for byte, with those of the same command run with its output read to the end.
"""

from __future__ import annotations

import os
import random
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from tokstudy.analysis.model_errors.predictions import write_predictions

PARALLEL = PROJECT_ROOT / "data" / "fixtures" / "parallel"
ENTITY_TYPES = ("PER", "LOC")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """A character-level WordPiece vocab.txt, a 120-sentence IOB2 CoNLL file and a model's predictions for it
    that err more often on long words (so that every command, the regression of ``attribute`` included, has
    something to fit)."""
    d = tmp_path_factory.mktemp("pipe_inputs")
    chars = string.ascii_lowercase + string.ascii_uppercase
    vocab = d / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", *chars, *(f"##{c}" for c in chars)]) + "\n", encoding="utf-8")
    rng = random.Random(0)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 12))) for _ in range(300)]
    sentences = []
    for _ in range(120):
        sent_words, gold = [], []
        while len(sent_words) < rng.randint(6, 10):
            if rng.random() < 0.25:
                kind = rng.choice(ENTITY_TYPES)
                for k in range(rng.randint(1, 3)):
                    sent_words.append(rng.choice(words).capitalize())
                    gold.append(f"{'B' if k == 0 else 'I'}-{kind}")
            else:
                sent_words.append(rng.choice(words))
                gold.append("O")
        pred = [g if rng.random() > len(w) / 20 else ("O" if g != "O" else "B-LOC") for w, g in zip(sent_words, gold)]
        sentences.append((sent_words, gold, _iob2(pred)))
    data = d / "synthetic.conll"
    data.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(s[0], s[1])) for s in sentences) + "\n")
    preds = write_predictions(d / "preds.tsv", sentences, metadata={"model": "m"})
    return {"vocab": vocab, "data": data, "preds": preds}


def _iob2(tags: list[str]) -> list[str]:
    """An I- tag that continues nothing becomes B- (the predictions file takes IOB2 only)."""
    out = []
    for i, t in enumerate(tags):
        prev = out[i - 1] if i else "O"
        out.append("B" + t[1:] if t.startswith("I-") and prev[2:] != t[2:] else t)
    return out


#: command -> (its arguments given the inputs and an output folder, the outputs asked for)
COMMANDS = {
    "segment": (lambda i, o: ["-d", i["data"], "-t", i["vocab"], "--out", o / "seg.csv"], ["seg.csv"]),
    "stats": (
        lambda i, o: [
            "-d",
            i["data"],
            "-t",
            i["vocab"],
            "--resamples",
            "20",
            "--json",
            o / "s.json",
            "--csv",
            o / "s.csv",
        ],
        ["s.json", "s.csv"],
    ),
    "correlate": (
        lambda i, o: (
            ["-d", i["data"], "-t", i["vocab"], "-p", i["preds"], "--resamples", "20"]
            + ["--json", o / "c.json", "--csv", o / "c.csv"]
        ),
        ["c.json", "c.csv"],
    ),
    "correlate-protocols": (
        lambda i, o: (
            ["-d", i["data"], "-t", i["vocab"], "-p", i["preds"], "--resamples", "20"]
            + ["--json", o / "p.json", "--csv", o / "p.csv", "--markdown", o / "p.md"]
        ),
        ["p.json", "p.csv", "p.md"],
    ),
    "attribute": (
        lambda i, o: [
            "-d",
            i["data"],
            "-t",
            i["vocab"],
            "-p",
            i["preds"],
            "--json",
            o / "a.json",
            "--csv",
            o / "a.csv",
        ],
        ["a.json", "a.csv"],
    ),
    "examples": (
        lambda i, o: [
            "-d",
            i["data"],
            "-t",
            i["vocab"],
            "-p",
            i["preds"],
            "--json",
            o / "e.json",
            "--csv",
            o / "e.csv",
        ],
        ["e.json", "e.csv"],
    ),
    "report": (
        lambda i, o: (
            ["-d", i["data"], "-t", i["vocab"], "-p", i["preds"], "--resamples", "20", "--no-figures"]
            + ["--out", o / "report"]
        ),
        ["report"],
    ),
    "corpus-stats": (
        lambda i, o: (
            ["-t", i["vocab"], "--corpus", PARALLEL, "--processes", "1", "--resamples", "20"]
            + ["--json", o / "k.json", "--csv", o / "k.csv"]
        ),
        ["k.json", "k.csv"],
    ),
    "parity": (
        lambda i, o: (
            ["-t", i["vocab"], "--parallel-dir", PARALLEL, "--resamples", "20"]
            + ["--json", o / "y.json", "--csv", o / "y.csv"]
        ),
        ["y.json", "y.csv"],
    ),
}


def _command(name: str, inputs: dict[str, Path], out: Path) -> list[str]:
    args, _ = COMMANDS[name]
    return [sys.executable, "-m", "tokstudy", name, *map(str, args(inputs, out)), "--no-progress"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(PROJECT_ROOT)}


def _contents(out: Path, outputs: list[str]) -> dict[str, bytes]:
    """Every file asked for (a folder's files, by relative path), with its bytes."""
    found = {}
    for name in outputs:
        path = out / name
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for f in files:
            found[str(f.relative_to(out))] = f.read_bytes()
    return found


@pytest.mark.parametrize("name", list(COMMANDS))
def test_files_are_written_when_the_reader_leaves_first(name, inputs, tmp_path):
    full, piped = tmp_path / "full", tmp_path / "piped"
    done = subprocess.run(_command(name, inputs, full), capture_output=True, text=True, env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout, "the command prints nothing: the test would not close the pipe on anything"

    proc = subprocess.Popen(_command(name, inputs, piped), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    proc.stdout.close()  # the reader leaves before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err

    outputs = COMMANDS[name][1]
    expected = _contents(full, outputs)
    assert expected and all(expected.values())
    assert _contents(piped, outputs) == expected


def test_head_reads_one_line_and_stats_still_writes_its_files(inputs, tmp_path):
    """The issue's own command line, through a shell pipe into ``head``."""
    if shutil.which("head") is None:
        pytest.skip("no head(1) on this machine")
    out = tmp_path / "out.json"
    cmd = " ".join(
        f"'{a}'" for a in _command("stats", inputs, tmp_path)[:-1] if a not in ("--csv", str(tmp_path / "s.csv"))
    )
    cmd = cmd.replace(str(tmp_path / "s.json"), str(out))
    done = subprocess.run(
        f"set -o pipefail; {cmd} --no-progress | head -1",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1
    import json

    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["datasets"] == ["synthetic:all"] and figures["table4"]


# ---- an output that cannot be written -------------------------------------------------------------


#: command -> (arguments before the output option, the output option); the inputs do not exist: had any
#: work started, the error would be about them
UNWRITABLE = {
    "segment": (["-d", "no/such.conll", "-t", "no-tok"], "--out", "seg.csv"),
    "stats": (["-d", "no/such.conll", "-t", "no-tok"], "--json", "s.json"),
    "stats ": (["-d", "no/such.conll", "-t", "no-tok"], "--languages-csv", "l.csv"),
    "correlate": (["-d", "no/such.conll", "-t", "no-tok", "-p", "no.tsv"], "--csv", "c.csv"),
    "correlate-protocols": (["-d", "no/such.conll", "-t", "no-tok", "-p", "no.tsv"], "--markdown", "p.md"),
    "attribute": (["-d", "no/such.conll", "-t", "no-tok", "-p", "no.tsv"], "--figure", "fig"),
    "examples": (["-d", "no/such.conll", "-t", "no-tok"], "--json", "e.json"),
    "report": (["-d", "no/such.conll", "-t", "no-tok"], "--out", "report"),
    "corpus-stats": (["-t", "no-tok", "--corpus", "no-corpus"], "--csv", "k.csv"),
    "parity": (["-t", "no-tok", "--parallel-dir", "no-dir"], "--json", "y.json"),
    "train-tokenizer": (["--input", "no-input.txt", "--vocab-size", "100"], "--output", "tok"),
}


@pytest.mark.parametrize("name", list(UNWRITABLE))
def test_output_under_a_file_is_one_line_before_any_work(name, tmp_path, capsys):
    from tokstudy.cli import main

    blocker = tmp_path / "results"
    blocker.write_text("a file where a folder is expected\n")
    before, option, file_name = UNWRITABLE[name]
    target = blocker / "sub" / file_name
    with pytest.raises(SystemExit) as exit_:
        main([name.strip(), *before, option, str(target)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err  # an argument the command cannot use, refused as it is parsed
    first = err.splitlines()[0]  # argparse names an option with its short spelling too: --out/-o
    assert first.startswith(f"tokstudy {name.strip()}: error: argument {option}"), first
    assert first.endswith(f": cannot write {target}: {blocker} is a file, not a folder"), first
    assert not (blocker.parent / "sub").exists()


def test_output_that_is_a_folder_is_refused(tmp_path, capsys):
    from tokstudy.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["stats", "-d", "no/such.conll", "-t", "no-tok", "--csv", str(tmp_path)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        f"tokstudy stats: error: argument --csv: {tmp_path} is a folder; expected a file name"
    )
    (tmp_path / "report").write_text("")
    with pytest.raises(SystemExit) as exit_:
        main(["report", "-d", "no/such.conll", "-t", "no-tok", "--out", str(tmp_path / "report")])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        f"tokstudy report: error: argument --out/-o: {tmp_path / 'report'} is a file; expected a folder"
    )


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere: needs a plain user")
def test_output_in_a_read_only_folder_is_refused(tmp_path, capsys):
    from tokstudy.cli import main

    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    with pytest.raises(SystemExit) as exit_:
        main(["stats", "-d", "no/such.conll", "-t", "no-tok", "--json", str(locked / "s.json")])
    assert exit_.value.code == 2
    assert f"{locked} is not writable (permission denied)" in capsys.readouterr().err


def test_a_write_that_fails_late_is_an_error_not_a_success(inputs, tmp_path, capsys, monkeypatch):
    """A write refused after the work (the disk filled, the folder vanished): exit 1, one line naming the file."""
    from tokstudy.cli import main
    from tokstudy.report import tables

    def refuse(rows, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(tables, "write_csv", refuse)
    out = tmp_path / "s.csv"
    code = main(
        [
            "stats",
            "-d",
            str(inputs["data"]),
            "-t",
            str(inputs["vocab"]),
            "--resamples",
            "0",
            "--no-progress",
            "--csv",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip() == f"tokstudy stats: error: {out}: No space left on device"
