"""The sidebar's selection: one owner, the same on every page, in the address, renamable (AppTest)."""

from __future__ import annotations

from analysis_app.components.workspace import W_DS, W_TOK, widget_key
from tests.app.conftest import new_app, no_exceptions

PAGES = ["views/statistics.py", "views/explorer.py", "views/errors.py", "views/languages.py", "views/explorer.py"]
_SHORT = {p: p.split("/")[1].removesuffix(".py") for p in PAGES}


def test_a_changed_selection_is_shown_on_every_page(app_env):
    at = new_app().run()
    at.multiselect(key=widget_key(W_TOK, "explorer")).set_value(["spm-2400", "spm-600"]).run()
    no_exceptions(at)
    for page in PAGES * 2:
        at.switch_page(page).run()
        no_exceptions(at)
        name = _SHORT[page]
        assert at.multiselect(key=widget_key(W_TOK, name)).value == ["spm-2400", "spm-600"], page
        assert at.selectbox(key=widget_key(W_DS, name)).value == "conll2003:test", page
    # the address is a link to this view
    assert at.query_params["tok"] == "spm-2400,spm-600" and at.query_params["dataset"] == "conll2003:test"


def test_a_shared_link_restores_tokenizers_and_dataset(app_env):
    at = new_app()
    at.query_params["tok"] = "spm-1200"
    at.query_params["dataset"] = "conll2002_es:test"
    at.run()
    no_exceptions(at)
    assert at.multiselect(key=widget_key(W_TOK, "explorer")).value == ["spm-1200"]
    assert at.selectbox(key=widget_key(W_DS, "explorer")).value == "conll2002_es:test"
    # a later choice of the user is not overridden by the link
    at.multiselect(key=widget_key(W_TOK, "explorer")).set_value(["spm-600"]).run()
    assert at.multiselect(key=widget_key(W_TOK, "explorer")).value == ["spm-600"]


def test_upload_is_named_by_vocabulary_size_selected_and_renamable(app_env):
    at = new_app().run()
    data = (app_env / "tokenizers" / "spm-1200" / "spiece.model").read_bytes()
    at.file_uploader(key="ts_in_tok_upload").set_value(("spiece.model", data, "application/octet-stream")).run()
    no_exceptions(at)
    assert any("tokenizer 'spiece-1200' loaded" in s.value for s in at.success), [s.value for s in at.success]
    assert at.multiselect(key=widget_key(W_TOK, "explorer")).value == ["spm-600", "spm-1200", "spm-2400", "spiece-1200"]
    # a click elsewhere after the add: no KeyError, the selection stays (issue 11, item 1)
    at.radio(key="ts_ex_mode").set_value("dataset").run()
    no_exceptions(at)
    assert at.multiselect(key=widget_key(W_TOK, "explorer")).value[-1] == "spiece-1200"
    at.selectbox(key="ts_in_rename_old").set_value("spiece-1200")
    at.text_input(key="ts_in_rename_new").set_value("my-unigram").run()
    at.button(key="ts_in_rename_new_btn").click().run()
    no_exceptions(at)
    at.run()
    assert at.multiselect(key=widget_key(W_TOK, "explorer")).value[-1] == "my-unigram"
    at.selectbox(key="ts_in_rename_old").set_value("my-unigram")
    at.text_input(key="ts_in_rename_new").set_value("spm-600").run()
    at.button(key="ts_in_rename_new_btn").click().run()
    assert any("already called 'spm-600'" in e.value for e in at.error)


def test_sized_name():
    from analysis_app.components.inputs import sized_name

    assert sized_name("spiece", 8000) == "spiece-8k"
    assert sized_name("sp-unigram-8k", 8000) == "sp-unigram-8k"
    assert sized_name("tok-32000", 32000) == "tok-32000"
    assert sized_name("bpe-16k", 8000) == "bpe-16k-8k"
