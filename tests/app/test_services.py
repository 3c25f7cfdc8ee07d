"""The app's plain services: path confinement, upload validation, results discovery, text, explorer view."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from analysis_app.services.explorer import build_view, render_html
from analysis_app.services.loading import InputError
from analysis_app.services.paths import PathNotAllowedError, confine_path, is_allowed
from analysis_app.services.results import discover
from analysis_app.services.settings import parse_settings
from analysis_app.services.text import split_words
from analysis_app.services.uploads import accept_text_upload, accept_tokenizer_upload, display_name


# ---- path confinement --------------------------------------------------------------
@pytest.fixture
def tree(tmp_path):
    allowed = tmp_path / "allowed"
    (allowed / "sub").mkdir(parents=True)
    (allowed / "sub" / "f.txt").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    return allowed, outside


def test_paths_inside_are_resolved(tree):
    allowed, _ = tree
    assert confine_path(allowed / "sub" / "f.txt", [allowed]) == (allowed / "sub" / "f.txt").resolve()
    assert confine_path("sub/f.txt", [allowed]) == (allowed / "sub" / "f.txt").resolve()
    assert confine_path("sub/../sub/f.txt", [allowed]) == (allowed / "sub" / "f.txt").resolve()
    assert confine_path(str(allowed), [allowed]) == allowed.resolve()


@pytest.mark.parametrize("path", ["../outside/secret.txt", "sub/../../outside/secret.txt", "/etc/passwd", "/"])
def test_dotdot_and_absolute_escapes_are_refused(tree, path):
    allowed, _ = tree
    with pytest.raises(PathNotAllowedError, match="outside the directories"):
        confine_path(path, [allowed])


def test_symlink_out_of_an_allowed_dir_is_refused(tree):
    allowed, outside = tree
    os.symlink(outside / "secret.txt", allowed / "link.txt")
    os.symlink(outside, allowed / "linkdir")
    assert not is_allowed("link.txt", [allowed])
    assert not is_allowed(allowed / "linkdir" / "secret.txt", [allowed])
    # a symlink that stays inside is fine
    os.symlink(allowed / "sub" / "f.txt", allowed / "inner.txt")
    assert is_allowed("inner.txt", [allowed])


def test_relative_paths_mean_the_working_directory_first(tree, monkeypatch):
    allowed, outside = tree
    monkeypatch.chdir(outside)
    # ../allowed/sub/f.txt from the working directory (as typed on a command line) is inside
    assert confine_path("../allowed/sub/f.txt", [allowed]) == (allowed / "sub" / "f.txt").resolve()
    # relative to an allowed directory still works; a file of the working directory outside the roots does not
    assert confine_path("sub/f.txt", [allowed]) == (allowed / "sub" / "f.txt").resolve()
    with pytest.raises(PathNotAllowedError, match="outside the directories"):
        confine_path("secret.txt", [allowed])


def test_missing_empty_and_no_allowed_dirs(tree):
    allowed, _ = tree
    with pytest.raises(PathNotAllowedError, match="no such file"):
        confine_path("sub/nope.txt", [allowed])
    with pytest.raises(PathNotAllowedError, match="empty"):
        confine_path("  ", [allowed])
    with pytest.raises(PathNotAllowedError, match="may read no paths"):
        confine_path("sub/f.txt", [])
    with pytest.raises(PathNotAllowedError):
        confine_path("sub/f.txt\x00", [allowed])


def test_settings_from_argv_and_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKSTUDY_DATA", str(tmp_path))
    s = parse_settings(
        ["--results", "res", "--allow-dir", "/a", "--allow-dir", "/b", "-x"], environ={"TOKSTUDY_APP_ALLOW_DIRS": "/c"}
    )
    # a relative path means what it means in the directory the app was started from
    assert [str(p) for p in s.allow_dirs] == ["/a", "/b", "/c", str(Path.cwd() / "res"), str(tmp_path)]
    assert s.results == Path.cwd() / "res"
    s = parse_settings([], environ={"TOKSTUDY_APP_RESULTS": "/r", "TOKSTUDY_APP_MAX_UPLOAD_MB": "1"})
    assert str(s.results) == "/r" and s.max_upload_bytes == 1024 * 1024


# ---- uploads -------------------------------------------------------------------------
@pytest.fixture
def spm_bytes(results_dir):
    return (results_dir / "tokenizers" / "spm-600" / "spiece.model").read_bytes()


def test_valid_sentencepiece_upload_is_stored_under_a_fixed_name(spm_bytes, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path / "up"))
    path, name = accept_tokenizer_upload("../../evil name.model", spm_bytes, max_bytes=10**8)
    assert path.name == "spiece.model" and path.parent.parent == tmp_path / "up"
    assert path.read_bytes() == spm_bytes and name == "evil_name"


def test_uploads_are_stored_once_durably_by_content(tmp_path, monkeypatch):
    """Tokenizer, CoNLL and gold uploads go through tokstudy.fileio (file and folder forced to disk, no
    temporary file left); the same bytes land in the same place, other bytes elsewhere."""
    from analysis_app.services import morph
    from tokstudy import fileio

    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path))
    synced = []
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: synced.append(fd))
    first, _ = accept_text_upload("a.conll", b"EU B-ORG\n", kind="conll", max_bytes=100)
    assert len(synced) == 2  # the file, then its folder
    again, _ = accept_text_upload("b.conll", b"EU B-ORG\n", kind="conll", max_bytes=100)
    other, _ = accept_text_upload("a.conll", b"EU O\n", kind="conll", max_bytes=100)
    assert first == again != other and len(synced) == 4  # stored bytes are not written again
    gold = morph.accept_gold_upload("words.tsv", b"walked\twalk ed\n", max_bytes=100)
    assert gold.read_bytes() == b"walked\twalk ed\n" and gold.parent.name.startswith("gold-")
    names = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    assert names == sorted([first.name, other.name, gold.name])  # no temporary file left


@pytest.mark.parametrize(
    "filename,data,message",
    [
        ("x.model", b"", "empty"),
        ("x.model", b"\x08\x01garbage", "not a SentencePiece model"),
        ("x.json", b"not json at all", "not JSON"),
        ("tokenizer.json", b'{"model": 1', "not valid JSON"),
        ("tokenizer.json", b'{"vocab": {}}', "not a Hugging Face tokenizer.json"),
        ("tokenizer.json", json.dumps({"model": {"type": "Nonsense"}}).encode(), "rejects this tokenizer.json"),
    ],
)
def test_bad_tokenizer_uploads_are_rejected_with_a_reason(filename, data, message, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path))
    with pytest.raises(InputError, match=message):
        accept_tokenizer_upload(filename, data, max_bytes=10**6)
    assert not list(tmp_path.rglob("*.model")) and not list(tmp_path.rglob("tokenizer.json"))


def test_size_limit_and_text_sniffing(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKSTUDY_APP_UPLOAD_DIR", str(tmp_path))
    with pytest.raises(InputError, match="over the upload limit"):
        accept_tokenizer_upload("big.model", b"x" * 101, max_bytes=100)
    with pytest.raises(InputError, match="binary data"):
        accept_text_upload("a.conll", b"\x00\x01\x02", kind="conll", max_bytes=100)
    with pytest.raises(InputError, match="not UTF-8"):
        accept_text_upload("a.conll", "é".encode("latin-1"), kind="conll", max_bytes=100)
    with pytest.raises(InputError, match="broken gzip"):
        accept_text_upload("a.conll.gz", b"\x1f\x8b\x08junk", kind="conll", max_bytes=100)
    path, _ = accept_text_upload("a.conll.gz", gzip.compress(b"EU B-ORG\n"), kind="conll", max_bytes=100)
    assert path.read_bytes() == b"EU B-ORG\n"
    assert display_name("C:\\Users\\me\\data.conll") == "data"


# ---- results discovery ------------------------------------------------------------------
def test_discovery_is_tolerant_of_the_layout(results_dir, tmp_path):
    index = discover(results_dir)
    assert [t.name for t in index.tokenizers] == ["spm-600", "spm-1200", "spm-2400"]
    assert [(p.model, p.dataset) for p in index.predictions] == [("albert-spm-600", "conll2003_test")]
    assert discover(tmp_path / "missing").empty
    # model checkpoints carrying tokenizer copies are skipped when a tokenizers/ folder exists
    (tmp_path / "tokenizers" / "a").mkdir(parents=True)
    (tmp_path / "tokenizers" / "a" / "tokenizer.json").write_text("{}")
    (tmp_path / "models" / "a").mkdir(parents=True)
    (tmp_path / "models" / "a" / "tokenizer.json").write_text("{}")
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "table4.csv").write_text("x")
    index = discover(tmp_path)
    assert [str(t.path.relative_to(tmp_path)) for t in index.tokenizers] == ["tokenizers/a"]
    assert [t.name for t in index.tables] == ["table4.csv"]


# ---- text and explorer view ----------------------------------------------------------------
def test_split_words_keeps_inner_punctuation_and_separates_the_rest():
    assert split_words("Washington, D.C. isn't far (2 km).") == [
        "Washington",
        ",",
        "D.C",
        ".",
        "isn't",
        "far",
        "(",
        "2",
        "km",
        ")",
        ".",
    ]
    assert split_words("  ") == []


def test_explorer_view_against_the_tokenizers_and_escaping(results_dir):
    from tokstudy.tokenization.loading import load_tokenizer

    segs = [load_tokenizer(results_dir / "tokenizers" / n) for n in ("spm-600", "spm-2400")]
    words = ["<script>", "Blackburn", "the"]
    view = build_view(words, ["O", "B-PER", "O"], segs, {"m": ["O", "O", "O"]})
    for k, seg in enumerate(segs):
        assert [list(r.pieces[k]) for r in view.rows] == seg.segment(words).as_lists()
        assert view.n_pieces(seg.name) == int(seg.segment(words).counts.sum())
    assert view.rows[1].wrong == (True,) and view.rows[0].wrong == (False,)
    assert view.rows[1].differs == (
        segs[0].segment(["Blackburn"]).as_lists() != segs[1].segment(["Blackburn"]).as_lists()
    )
    html = render_html(view)
    assert "<script>" not in html and "&lt;script&gt;" in html
    with pytest.raises(ValueError):
        build_view(["a"], ["O", "O"], segs)


def test_a_broken_tokenizer_json_by_path_is_an_input_error(tmp_path):
    from analysis_app.services.loading import load_segmenter

    (tmp_path / "tok").mkdir()
    (tmp_path / "tok" / "tokenizer.json").write_text('{"model": {"type": "Nonsense"}}')
    with pytest.raises(InputError, match="tok"):
        load_segmenter(tmp_path / "tok")


def test_byte_pieces_are_shown_as_text_or_hex_never_replacement_characters(tmp_path):
    from tokenizers import ByteLevelBPETokenizer

    from analysis_app.services.explorer import is_byte_level, readable_piece
    from tokstudy.tokenization.loading import load_tokenizer

    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(
        ["Zürich und Köln", "naïve café", "東京 大阪"] * 20, vocab_size=300, min_frequency=1, show_progress=False
    )
    tok.save(str(tmp_path / "tokenizer.json"))
    seg = load_tokenizer(tmp_path / "tokenizer.json")
    assert is_byte_level(seg)
    words = ["Zürich", "東京", "naïve"]
    view = build_view(words, None, [seg])
    html = render_html(view, byte_level=[True])
    assert "\ufffd" not in html
    for row in view.rows:
        shown = [readable_piece(p, byte_level=True) for p in row.pieces[0]]
        # the bytes of the pieces, read back from what is shown, are the word's UTF-8 bytes
        raw = b"".join(
            bytes.fromhex(t.strip("⟨⟩")) if is_bytes else t.removeprefix("Ġ").encode("utf-8") for t, is_bytes in shown
        )
        assert raw == row.word.encode("utf-8"), (row.word, shown)
    assert not is_byte_level(object())  # a segmenter without a Hugging Face tokenizer (e.g. SentencePiece)
    assert readable_piece("<0xE2>") == ("<0xE2>", True)


def test_the_registry_offers_only_the_datasets_whose_files_are_present(shared_data):
    """MultiCoNER has train files for 6 of its 11 languages: the other 5 offer dev only."""
    from analysis_app.services.sources import registry_datasets
    from tokstudy.data.registry import available_datasets, available_languages, has_files

    offered = registry_datasets()
    assert all(has_files(d.name, d.split, d.language) for d in offered)
    keys = {d.key for d in offered}
    present = set(available_languages("multiconer2022", "train"))
    assert {k for k in keys if k.startswith("multiconer2022-") and k.endswith(":train")} == {
        f"multiconer2022-{lang}:train" for lang in present
    }
    if "bn" not in present:
        assert "multiconer2022-bn:train" not in keys and "multiconer2022-bn:dev" in keys
    labelled = {(n, lang, s) for n, lang, s in available_datasets() if s in ("train", "dev", "test")}
    assert len(offered) == len([x for x in labelled if x[0] != "sst2"])  # every labelled NER / slot set present
