"""resolve_pretrained: a local directory as it is, a hub name to its snapshot in a hand-made hub cache, and
one line naming the model and the command that fetches it when the cache lacks it offline. No test reaches
the network: every socket connection is refused."""

from __future__ import annotations

import pytest

from tests.inputs.hub_cache import COMMIT, no_network, no_waiting, offline_cache, put_in_cache
from tokstudy.errors import PretrainedNotFoundError, TokenizerLoadError
from tokstudy.inputs.hub_models import HubName, parse_hub_name, resolve_pretrained

FILES = {"config.json": '{"model_type": "bert"}', "vocab.txt": "[UNK]\nParis\n"}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    return offline_cache(tmp_path, monkeypatch)


def test_a_local_directory_is_returned_as_it_is(tmp_path, cache):
    model = tmp_path / "my-model"
    model.mkdir()
    assert resolve_pretrained(model) == model
    assert resolve_pretrained(str(model)) == model


def test_a_local_folder_shaped_like_a_hub_name_is_the_folder(tmp_path, cache, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "albert").mkdir(parents=True)
    put_in_cache(cache, "runs/albert", FILES)
    assert resolve_pretrained("runs/albert") == tmp_path.joinpath("runs", "albert").relative_to(tmp_path)


def test_a_hub_name_is_its_cached_snapshot(cache):
    snapshot = put_in_cache(cache, "google-bert/bert-base-cased", FILES)
    got = resolve_pretrained("google-bert/bert-base-cased")
    assert got == snapshot and (got / "vocab.txt").read_text() == FILES["vocab.txt"]


def test_a_revision_is_a_branch_tag_or_commit(cache):
    main = put_in_cache(cache, "owner/model", FILES)
    other = "f" * 40
    tagged = put_in_cache(cache, "owner/model-b", FILES, commit=other, refs=("v1.0",))
    assert resolve_pretrained(f"owner/model@{COMMIT}") == main
    assert resolve_pretrained("owner/model-b@v1.0") == tagged
    with pytest.raises(PretrainedNotFoundError, match=r"owner/model@v9 is not in the cache"):
        resolve_pretrained("owner/model@v9")


def test_hf_home_locates_the_cache(tmp_path, monkeypatch):
    offline_cache(tmp_path, monkeypatch)
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    snapshot = put_in_cache(tmp_path / "home" / "hub", "owner/model", FILES)
    assert resolve_pretrained("owner/model") == snapshot


def test_a_cached_model_is_used_online_without_the_network(tmp_path, monkeypatch):
    cache = offline_cache(tmp_path, monkeypatch)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    snapshot = put_in_cache(cache, "owner/model", FILES)
    assert resolve_pretrained("owner/model") == snapshot  # sockets refuse: the cache alone answered


def test_offline_and_not_cached_is_one_line_naming_the_model_and_the_fetch_command(cache):
    with no_waiting(), pytest.raises(PretrainedNotFoundError) as info:
        resolve_pretrained("owner/absent-model")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("owner/absent-model: ")
    assert f"not in the cache {cache}" in message and "HF_HUB_OFFLINE=1" in message
    assert "`hf download owner/absent-model`" in message
    assert isinstance(info.value, TokenizerLoadError)  # -t reports it as any tokenizer it cannot load
    with pytest.raises(PretrainedNotFoundError, match=r"`hf download owner/m --revision v2`"):
        resolve_pretrained("owner/m@v2")


def test_online_and_unreachable_is_one_line_too(tmp_path, monkeypatch):
    offline_cache(tmp_path, monkeypatch)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # refused by no_network before any packet
    no_network(monkeypatch)
    with (
        no_waiting(),
        pytest.raises(PretrainedNotFoundError, match=r"^owner/absent: .*downloading the Hugging Face model") as info,
    ):
        resolve_pretrained("owner/absent")
    assert "\n" not in str(info.value) and "`hf download owner/absent`" in str(info.value)


def test_neither_a_path_nor_a_hub_name(tmp_path, cache):
    missing = tmp_path / "nope" / "model"
    with pytest.raises(PretrainedNotFoundError, match=f"^{missing}: no such file or directory .*owner/name"):
        resolve_pretrained(missing)


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("owner/name", HubName("owner/name")),
        ("FacebookAI/xlm-roberta-base@main", HubName("FacebookAI/xlm-roberta-base", "main")),
        ("o/n@refs/pr/1", HubName("o/n", "refs/pr/1")),
        ("bert-base-cased", None),  # one part: a local name, never looked up
        ("runs/tok/sp-8000", None),
        ("./owner/name", None),
        ("~/owner", None),
        ("/abs/path", None),
        ("owner/na--me", None),
        ("owner/name@", None),
    ],
)
def test_parse_hub_name(spec, want):
    assert parse_hub_name(spec) == want


def test_display_names():
    assert HubName("google-bert/bert-base-cased").display == "bert-base-cased"
    assert HubName("owner/name", "v2").display == "name@v2"
    assert str(HubName("owner/name", "v2")) == "owner/name@v2"


def test_without_huggingface_hub_a_hub_name_says_what_to_install(cache, monkeypatch):
    import sys

    from tokstudy.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=r"^owner/name: .*pip install huggingface_hub"):
        resolve_pretrained("owner/name")


def test_docstring_examples():
    from tests.fixtures_doctest import assert_examples_pass

    assert_examples_pass("tokstudy.inputs.hub_models")
