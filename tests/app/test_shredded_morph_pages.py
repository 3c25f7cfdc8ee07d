"""The Shredded words and Morpheme boundaries pages: their tables equal a direct recount with sentencepiece,
each word links its sentences in the explorer, and a bad gold file is one error naming the file and line."""

from __future__ import annotations

from collections import Counter
from urllib.parse import parse_qs

import pytest

from tests.app.conftest import no_exceptions, run_page
from tests.morph_recount import boundary_prf, surface

MORPHS = {
    "played": ["play", "ed"],
    "walking": ["walk", "ing"],
    "unhappiness": ["un", "happi", "ness"],
    "governments": ["govern", "ment", "s"],
    "cats": ["cat", "s"],
}


def _encoder(app_env, name):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(app_env / "tokenizers" / name / "spiece.model"))
    return lambda w: sp.encode(w, out_type=str)


def test_ranking_equals_a_counter_and_words_link_their_sentences(app_env, conll_test):
    at = run_page("views/shredded.py", timeout=180)
    no_exceptions(at)
    summary, ranking = at.dataframe[0].value, at.dataframe[1].value
    assert list(summary.tokenizer) == ["spm-600", "spm-1200", "spm-2400"]
    freq = Counter(w for s in conll_test for w in s.words)
    for name in ("spm-600", "spm-2400"):
        encode = _encoder(app_env, name)
        pieces = {w: encode(w) for w in freq}
        expected = sorted((w for w in freq if len(pieces[w]) >= 3), key=lambda w: (-freq[w], -len(pieces[w]), w))
        mine = ranking[ranking.tokenizer == name]
        assert list(mine.word) == expected
        assert list(mine.frequency) == [freq[w] for w in expected]
        total = sum(n * len(pieces[w]) for w, n in freq.items())
        shredded = sum(freq[w] * len(pieces[w]) for w in expected)
        row = summary[summary.tokenizer == name].iloc[0]
        assert row["token share %"] == pytest.approx(100 * shredded / total, abs=0.006)
    side = at.dataframe[2].value
    assert {"word", "frequency", "spm-600", "spm-1200", "spm-2400", "kept whole by"} <= set(side.columns)
    # a word opens its sentences: each link is the explorer's address of a sentence holding it
    word = at.selectbox(key="ts_sh_word").value
    links = at.get("page_link")
    assert links
    holding = {s.sent_id for s in conll_test if word in s.words}
    for link in links:
        q = parse_qs(link.proto.query_string)
        assert q["dataset"] == ["conll2003:test"] and int(q["sent"][0]) in holding
    at.number_input(key="ts_sh_k").set_value(6).run()
    no_exceptions(at)
    assert (at.dataframe[1].value["pieces count"] >= 6).all()


def test_morph_page_from_an_upload_equals_a_recount(app_env, tmp_path):
    gold = "\n".join(f"{w}\t{m[0]} " + " ".join("@@" + x for x in m[1:]) + "\t100" for w, m in MORPHS.items())
    at = run_page("views/morph.py")
    at.file_uploader(key="ts_mo_upload").set_value(("eng.word.dev.tsv", gold.encode(), "text/plain")).run()
    no_exceptions(at)
    figures = at.dataframe[0].value
    assert list(figures.tokenizer) == ["spm-600", "spm-1200", "spm-2400"]
    assert set(figures.language) == {"eng"}
    for name in figures.tokenizer:
        encode = _encoder(app_env, name)
        precision, recall, *_ = boundary_prf((m, surface(encode(w))) for w, m in MORPHS.items())
        row = figures[figures.tokenizer == name].iloc[0]
        assert row["precision"] == pytest.approx(precision, abs=1e-4)
        assert row["recall"] == pytest.approx(recall, abs=1e-4)


def test_morph_page_bad_gold_is_one_error_with_file_and_line(app_env):
    at = run_page("views/morph.py")
    bad = b"played\tplay @@ed\t100\nwalking\twal @@kin\t100\n"
    at.file_uploader(key="ts_mo_upload").set_value(("mine.tsv", bad, "text/plain")).run()
    no_exceptions(at)
    errors = [e.value for e in at.error]
    assert errors == ["mine.tsv:2: the morphs 'wal + kin' do not spell the word 'walking'"], errors
    at.checkbox(key="ts_mo_skip").check().run()
    no_exceptions(at)
    assert not at.error and len(at.dataframe[0].value) == 3
