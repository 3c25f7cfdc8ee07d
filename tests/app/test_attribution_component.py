"""The attribution component (Errors page): the odds ratios it shows are the API's for the selection."""

from __future__ import annotations

import pytest


def _component_script(dataset, tokenizers, predictions):
    """Runs as the AppTest script: render the component for a hand-made selection."""
    from types import SimpleNamespace

    from analysis_app.components import attribution

    attribution.render(SimpleNamespace(dataset=dataset, tokenizers=tokenizers, predictions=predictions))


@pytest.fixture(scope="module")
def selection(tmp_path_factory):
    import sentencepiece as spm

    from analysis_app.services.sources import DatasetSource, PredictionSource, TokenizerSource
    from tests.analysis.model_errors.test_attribution import confounded_corpus
    from tokstudy.analysis.model_errors.predictions import write_predictions

    d = tmp_path_factory.mktemp("attr_app")
    ds, preds, _, _ = confounded_corpus(seed=7, n_sentences=600)
    conll = d / "synth.conll"
    conll.write_text(
        "\n\n".join("\n".join(f"{w} {t}" for w, t in zip(s.words, s.tags)) for s in ds) + "\n\n", encoding="utf-8"
    )
    (d / "text.txt").write_text("\n".join(" ".join(s.words) for s in ds) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(d / "text.txt"),
        model_prefix=str(d / "sp"),
        vocab_size=300,
        model_type="unigram",
        minloglevel=2,
        num_threads=1,
        hard_vocab_limit=False,
    )
    write_predictions(d / "p.tsv", [(p.words, p.gold, p.pred) for p in preds], sent_ids=[p.sent_id for p in preds])
    return (
        DatasetSource.conll(str(conll), "synth", "test", "en"),
        (TokenizerSource("sp", str(d / "sp.model")),),
        (PredictionSource("synthetic", str(d / "p.tsv"), "synth_test"),),
    )


def test_component_shows_the_api_odds_ratios(selection):
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import settle
    from tokstudy.analysis.model_errors.attribution import attribute_errors
    from tokstudy.analysis.model_errors.predictions import read_predictions
    from tokstudy.analysis.table import segmentation_table
    from tokstudy.data.conll import read_conll
    from tokstudy.tokenization.loading import load_tokenizer

    dataset, toks, preds = selection
    at = settle(AppTest.from_function(_component_script, args=selection, default_timeout=120).run())
    frame = at.dataframe[0].value
    table = segmentation_table(
        [read_conll(dataset.path, name="synth", language="en", split="test")],
        [load_tokenizer(toks[0].path, name="sp")],
        progress=False,
    )
    direct = attribute_errors(table, read_predictions(preds[0].path), "sp")
    row = frame.iloc[0]
    assert row["tokenizer"] == "sp" and row["model"] == preds[0].key
    assert row["OR per extra piece (adjusted)"] == pytest.approx(direct.adjusted.value, abs=1e-4)
    assert row["CI low"] == pytest.approx(direct.adjusted.low, abs=1e-4)
    text = " ".join(m.value for m in at.markdown)
    assert "Segmentation predicts errors beyond frequency, entity status and length" in text
    assert "frequency is not controlled" in " ".join(c.value for c in at.caption)  # a file has no training split


def test_training_split_of_a_registry_dataset():
    from analysis_app.services.sources import DatasetSource, train_source

    assert train_source(DatasetSource.registry("conll2003", "test")).key == "conll2003:train"
    assert train_source(DatasetSource.registry("conll2003", "train")) is None
    assert train_source(DatasetSource.conll("/x.conll", "x", "test")) is None
