"""Languages page widgets: the languages of the loaded datasets with Table 4 per language (and a study's F1), a
language's sentences opened in the explorer; parity, fertility and continued words on parallel text.

Owns :data:`KEYS`.
"""

from __future__ import annotations

import streamlit as st

from analysis_app.components import bootstrap, cache, charts, downloads, explorer, workspace
from analysis_app.services import defaults
from analysis_app.services import languages as languages_svc
from analysis_app.services.columns import readable
from analysis_app.services.loading import InputError
from analysis_app.services.paths import PathNotAllowedError, confine_path
from tokstudy.errors import TokstudyError
from tokstudy.report.per_language import script_colours

DIR, LANGS, REF = "ts_la_dir", "ts_la_langs", "ts_la_reference"
SETS, OPEN, OPEN_BUTTON = "ts_la_sets", "ts_la_open", "ts_la_open_button"
KEYS = (DIR, LANGS, REF, SETS, OPEN, OPEN_BUTTON)
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
#: Table 4 per language as shown; ``f1`` is named by :func:`_f1_name` (which study, or none loaded)
TABLE4_SHOWN = {
    "label": "language",
    "script": "script",
    "dataset": "dataset",
    "tokenizer": "tokenizer",
    "f1": "F1",
    "gap": "gap NE − non-NE (pp)",
    "ne": "NE %",
    "non_ne": "non-NE %",
    "fertility": "fertility",
    "unknown": "unknown pieces %",
    "ne_words": "NE words",
    "sentences": "sentences",
}
TABLE4_INTERVALS = {"gap": "gap 95 % CI", "ne": "NE 95 % CI", "non_ne": "non-NE 95 % CI"}


def render(sel) -> None:
    if not sel.tokenizers:
        st.info("Select one or more tokenizers in the sidebar.")
        return
    boot = bootstrap.settings()  # (resamples, seed): its widgets are drawn once per page
    dataset_languages(sel, boot)
    st.divider()
    st.subheader("Parallel text: parity, fertility, continued words")
    parallel_text(sel, boot)


def dataset_languages(sel, boot: tuple[int, int]) -> None:
    """Every loaded dataset's language and script; Table 4 per language of the chosen ones, sorted by the gap,
    coloured by script, with a study's F1; a button that opens a language's sentences in the explorer."""
    listing = languages_svc.dataset_languages(sel.sources)
    st.subheader("Languages of the loaded datasets")
    if listing.empty:
        st.info("No dataset loaded: add a CoNLL file in the sidebar.")
        return
    st.caption(
        f"{listing.language.nunique()} languages in {len(listing)} datasets (click a column to sort). The script "
        "comes from the language code; Table 4 below reads it from the text where the code names none."
    )
    st.dataframe(listing, width="stretch", hide_index=True, height=min(35 * len(listing) + 38, 300))
    st.subheader("Table 4 per language")
    sets = languages_svc.language_sets(sel.sources)
    chosen = st.multiselect(
        "Datasets (NAME:*:SPLIT is every language of a corpus in that split)",
        list(sets),
        default=defaults.language_sets(sel.dataset, sets),
        key=SETS,
    )
    keys = languages_svc.expand_sets(sets, chosen)
    if not keys:
        st.info("Pick datasets to compare their languages.")
        return
    got = _language_table(tuple(sel.sources.dataset(k) for k in keys), tuple(sel.tokenizers), boot)
    if got is None:
        return
    frame, notes = got
    for note in notes:  # one per tokenizer, naming the languages it does not cover
        st.warning(note)
    frame = languages_svc.with_f1(frame, sel.sources, cache.study_f1(sel.settings.results))
    _table4(frame, sel)
    _open_in_explorer(frame, sel)


def _language_table(ds: tuple, toks: tuple, boot: tuple[int, int]):
    """``(frame, warnings)`` of :func:`cache.language_table`, or ``None`` after saying why it cannot be computed."""
    try:
        return cache.language_table(ds, toks, *boot)
    except (InputError, ValueError, TokstudyError) as exc:  # a tokstudy error (bad tags, empty data): the input
        st.error(str(exc))
    return None


def _table4(frame, sel) -> None:
    """The gaps as bars (first tokenizer's order, largest on top), then the table, sortable, and its CSV."""
    first = frame[frame.tokenizer == frame.tokenizer.iloc[0]]
    charts.draw(
        st,
        "ranked_bars",
        frame,
        label="label",
        value="gap",
        colour="script",
        panel="tokenizer",
        order=list(first.label),
        low="gap_low",
        high="gap_high",
        tooltip=("label", "script", "tokenizer", "gap", "ne", "non_ne", "unknown", "f1"),
        palette=script_colours(first.script),  # the colours of tokstudy stats --languages-figure
        title="Extra pieces of words in named entities over other words, per language (largest gap on top)",
        x_title="NE − non-NE (percentage points)",
    )
    shown = {**TABLE4_SHOWN, "f1": _f1_name(sel, frame)}
    st.dataframe(
        readable(frame, shown, intervals=TABLE4_INTERVALS, digits=2).style.format(precision=2, na_rep="–"),
        width="stretch",
        hide_index=True,
    )
    st.caption(
        "Additional segmentation = pieces / words − 1, in %; the gap in percentage points; fertility = pieces per "
        "word and unknown pieces % over all words; intervals from one sentence bootstrap over every language. "
        "F1: the study's mean over seeds of the model fine-tuned on that dataset and language (tables/scores.json "
        "of the results folder); empty where it fine-tuned none."
    )
    downloads.csv_button("Download Table 4 per language (CSV)", frame, "languages_table4.csv", key="dl_languages_t4")


def _f1_name(sel, frame) -> str:
    """The F1 column's name: which study it comes from, or that none is loaded, or that it has no such task."""
    if not sel.settings.results or not (sel.settings.results / "tables" / "scores.json").is_file():
        return "F1 (no study results loaded)"
    if frame.f1.isna().all():
        return "F1 (the study fine-tuned on none of these)"
    return f"F1 (study {sel.settings.results.name})"


def _open_in_explorer(frame, sel) -> None:
    """A language picked here opens at its dataset's first sentence in the explorer (its link, ``?dataset&sent``)."""
    labels = dict(zip(frame.dataset, frame.label))
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    key = c1.selectbox(
        "Open a language's sentences in the segmentation explorer",
        list(labels),
        format_func=lambda k: f"{labels[k]} ({k})",
        key=OPEN,
    )
    if c2.button("Open in the explorer", key=OPEN_BUTTON):
        try:
            first = cache.dataset(sel.sources.dataset(key))[0].sent_id
        except InputError as exc:
            st.error(str(exc))
            return
        names = ",".join(t.name for t in sel.tokenizers)
        st.switch_page("views/explorer.py", query_params={workspace.Q_TOK: names, **explorer.link_params(key, first)})


def parallel_text(sel, boot: tuple[int, int]) -> None:
    """Parity, fertility and continued words of the selected tokenizers on a folder of parallel text."""
    if DIR not in st.session_state:
        st.session_state[DIR] = defaults.parallel_dir()
    text = st.text_input("Parallel-text folder (<lang>.txt[.gz], paragraph i of every file is a translation)", key=DIR)
    try:
        directory = str(confine_path(text, workspace.settings().allow_dirs))
        paragraphs = cache.parallel(directory)
    except (PathNotAllowedError, TokstudyError) as exc:
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
    _parallel_figures(directory, tuple(langs), ref, sel, boot)


def _parallel_figures(directory: str, langs: tuple, ref: str, sel, boot: tuple[int, int]) -> None:
    n, seed = boot
    key = (directory, langs, tuple(sel.tokenizers))
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
