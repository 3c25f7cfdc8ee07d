"""The Statistics page: Table 4 on CoNLL-2003 test equals tokstudy's own figures; bad uploads are reported."""

from __future__ import annotations

import pytest

from tests.app.conftest import no_exceptions, run_page


def test_table4_matches_a_direct_recount(app_env, conll_test):
    from tokstudy.tokenization.loading import load_tokenizer

    at = run_page("views/statistics.py")
    no_exceptions(at)
    table = at.dataframe[0].value
    assert list(table.index) == ["spm-600", "spm-1200", "spm-2400"]
    # independent reference: recount pieces per NE / non-NE word with sentencepiece directly
    for name in table.index:
        seg = load_tokenizer(app_env / "tokenizers" / name)
        ne_words = [w for s in conll_test for w, t in zip(s.words, s.tags) if t != "O"]
        other = [w for s in conll_test for w, t in zip(s.words, s.tags) if t == "O"]
        ne = 100 * (seg.segment(ne_words).counts.mean() - 1)
        non = 100 * (seg.segment(other).counts.mean() - 1)
        assert float(table.loc[name, "NE words"].split()[0]) == pytest.approx(ne, abs=0.006)
        assert float(table.loc[name, "non-NE words"].split()[0]) == pytest.approx(non, abs=0.006)
    # NE words are more segmented than the others under every vocabulary (the study's finding)
    assert all(float(a.split()[0]) > float(b.split()[0]) for a, b in zip(table["NE words"], table["non-NE words"]))
    assert len(at.get("download_button")) >= 2
    # by entity type, then by language over two datasets
    groups = at.dataframe[1].value
    assert set(groups["entity type"]) == {"PER", "LOC", "ORG", "MISC"}
    at.multiselect(key="ts_st_datasets").set_value(["conll2003:test", "conll2002_es:test"]).run()
    at.radio(key="ts_st_by").set_value("language").run()
    no_exceptions(at)
    assert set(at.dataframe[1].value["language"]) == {"en", "es"}


def test_tables_name_their_columns_for_readers_and_csvs_keep_the_fields(app_env, monkeypatch):
    """The grouped and summary tables say "95 % CI", "continued words %", ... (issue 24 item 10); the CSV
    downloads of the same numbers keep the field names (``ci_low``, ``ci_high``) that scripts read."""
    from analysis_app.components import downloads

    csvs = {}
    monkeypatch.setattr(downloads, "csv_button", lambda label, frame, name, **kw: csvs.__setitem__(name, frame))
    at = run_page("views/statistics.py")
    no_exceptions(at)
    raw = {"value", "ci_low", "ci_high", "group", "by", "subset", "measure", "continued", "pieces_per_continued"}
    groups = at.dataframe[1].value
    assert list(groups.columns) == [
        "tokenizer",
        "entity type",
        "additional segmentation %",
        "95 % CI",
        "words",
        "sentences",
    ]
    csv = csvs["additional_segmentation_by_entity_type_ne.csv"]
    assert {"value", "ci_low", "ci_high", "by", "subset"} <= set(csv.columns)
    for shown, row in zip(groups.itertuples(index=False), csv.itertuples(index=False)):
        assert (shown[1], shown[2]) == (row.group, row.value)
        assert shown[3] == f"[{row.ci_low:.2f}, {row.ci_high:.2f}]"
    summary = at.dataframe[2].value
    assert list(summary.columns[:5]) == [
        "tokenizer",
        "word set",
        "additional segmentation %",
        "fertility (pieces per word)",
        "continued words %",
    ]
    assert {"unknown pieces %", "pieces per continued word"} <= set(summary.columns)
    assert not raw & set(groups.columns) and not raw & set(summary.columns)
    long = csvs["segmentation_summary.csv"]
    assert {"measure", "value", "ci_low", "ci_high"} <= set(long.columns)
    cell = long[(long.tokenizer == "spm-600") & (long.group == "NE words") & (long.measure == "continued")]
    row = summary[(summary.tokenizer == "spm-600") & (summary["word set"] == "NE words")].iloc[0]
    assert row["continued words %"] == cell.value.iloc[0]


def test_bad_conll_upload_shows_a_clear_error(app_env):
    at = run_page("views/statistics.py")
    at.file_uploader(key="ts_in_ds_upload").set_value(
        ("broken.conll", b"EU B-ORG\nrejects\tO extra\n", "text/plain")
    ).run()
    no_exceptions(at)
    msgs = [e.value for e in at.error]
    assert any("not a CoNLL file" in m and "line" in m for m in msgs), msgs
