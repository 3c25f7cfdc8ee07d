"""Languages page widgets: parity, fertility and continued words on parallel text. Owns :data:`KEYS`."""

from __future__ import annotations

import streamlit as st

from analysis_app.components import bootstrap, cache, charts, downloads, workspace
from analysis_app.services import defaults
from analysis_app.services.columns import readable
from analysis_app.services.paths import PathNotAllowedError, confine_path

DIR, LANGS, REF = "ts_la_dir", "ts_la_langs", "ts_la_reference"
KEYS = (DIR, LANGS, REF)
#: the table's columns as shown (the CSV keeps the field names), and the intervals shown after their value
SHOWN = {
    "tokenizer": "tokenizer",
    "language": "language",
    "parity": "parity",
    "fertility": "fertility (pieces per word)",
    "continued": "continued words %",
    "pieces": "pieces",
    "words": "words",
    "paragraphs": "paragraphs",
}
INTERVALS = {"parity": "parity 95 % CI", "fertility": "fertility 95 % CI", "continued": "continued 95 % CI"}


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
    figures = [  # (where, frame, measure, title, y title): the measure's CI is in <measure>_low / _high
        (c1, par, "parity", f"Parity (pieces relative to {ref})", "parity"),
        (c2, par, "fertility", "Fertility (pieces per word)", "pieces per word"),
        (st, cont, "continued", "Continued words (% split into 2+ pieces)", "%"),
    ]
    for where, frame, measure, title, y_title in figures:
        charts.draw(
            where,
            "bars_with_ci",
            frame,
            x="language",
            colour="tokenizer",
            value=measure,
            low=f"{measure}_low",
            high=f"{measure}_high",
            title=title,
            y_title=y_title,
        )
    table = par.merge(cont, on=["tokenizer", "language"])
    st.dataframe(readable(table, SHOWN, intervals=INTERVALS), width="stretch", hide_index=True)
    downloads.csv_button("Download (CSV)", table, "languages.csv")
