"""Languages page widgets: parity, fertility and continued words on parallel text. Owns :data:`KEYS`."""

from __future__ import annotations

import streamlit as st

from analysis_app.components import bootstrap, charts, workspace
from analysis_app.services import cache, defaults
from analysis_app.services.paths import PathNotAllowedError, confine_path

DIR, LANGS, REF = "ts_la_dir", "ts_la_langs", "ts_la_reference"
KEYS = (DIR, LANGS, REF)


def render(sel) -> None:
    if not sel.tokenizers:
        st.info("Select one or more tokenizers in the sidebar.")
        return
    if DIR not in st.session_state:
        st.session_state[DIR] = defaults.parallel_dir()
    text = st.text_input("Parallel-text folder (<lang>.txt[.gz], paragraph i of every file is a translation)", key=DIR)
    try:
        directory = str(confine_path(text, workspace.settings().allow_dirs))
        paragraphs = cache.parallel(directory)
    except PathNotAllowedError as exc:
        st.error(str(exc))
        return
    except Exception as exc:
        from tokstudy.errors import TokstudyError

        if not isinstance(exc, TokstudyError):
            raise
        st.error(str(exc))
        return
    langs_all = sorted(paragraphs)
    langs = st.multiselect("Languages", langs_all, default=defaults.default_languages(langs_all), key=LANGS)
    ref_opts = list(langs) or langs_all
    ref = st.selectbox(
        "Reference language (parity 1.0)", ref_opts, index=ref_opts.index(defaults.reference(ref_opts)), key=REF
    )
    if not langs:
        st.info("Pick languages to compare.")
        return
    n, seed = bootstrap.settings()
    key = (directory, tuple(langs), tuple(sel.tokenizers))
    par = cache.parity(*key, ref, n, seed)
    cont = cache.continued(*key, n, seed)
    st.caption(
        f"{par.paragraphs.iloc[0]} parallel paragraphs per language; words are whitespace-separated, "
        "so fertility and continued words of zh / ja / th (no spaces) are not comparable, parity is."
    )
    c1, c2 = st.columns(2)
    charts.draw(
        c1,
        "bars_with_ci",
        par,
        x="language",
        colour="tokenizer",
        value="parity",
        low="parity_low",
        high="parity_high",
        title=f"Parity (pieces relative to {ref})",
        y_title="parity",
    )
    charts.draw(
        c2,
        "bars_with_ci",
        par,
        x="language",
        colour="tokenizer",
        value="fertility",
        low="fertility_low",
        high="fertility_high",
        title="Fertility (pieces per word)",
        y_title="pieces per word",
    )
    charts.draw(
        st,
        "bars_with_ci",
        cont,
        x="language",
        colour="tokenizer",
        value="continued",
        low="continued_low",
        high="continued_high",
        title="Continued words (% split into 2+ pieces)",
        y_title="%",
    )
    table = par.merge(cont, on=["tokenizer", "language"])
    st.dataframe(table, width="stretch", hide_index=True)
    st.download_button(
        "Download (CSV)", table.to_csv(index=False).encode("utf-8"), file_name="languages.csv", mime="text/csv"
    )
