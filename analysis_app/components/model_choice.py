"""Errors page widget: your own model. A model directory (inside the folders the app may read) predicts the
selected dataset in the background, with a progress bar; its predictions then join the page as a study's
model's do, paired with the model's own tokenizer (the directory's, loaded as a tokenizer). Owns :data:`KEYS`.

The prediction is :mod:`analysis_app.services.model_runs` (``pretrain evaluate`` in a child process, cached on
disk), run as a job of :mod:`analysis_app.services.background`; a run that fails shows the command's error
line and leaves nothing cached."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analysis_app.components import workspace
from analysis_app.services import model_runs
from analysis_app.services.background import work
from analysis_app.services.paths import PathNotAllowedError, confine_path
from analysis_app.services.sources import PredictionSource

PATH, CHOSEN = "ts_er_model_dir", "ts_er_model_chosen"
KEYS = (PATH, CHOSEN)
#: seconds between two looks at a running prediction (each look reruns only the progress bar)
POLL_S = 1.0


def render(sel) -> None:
    """The model directory's input and, once one is chosen, its prediction's progress, error or result."""
    if sel.dataset is None:
        return
    chosen = st.session_state.get(CHOSEN)
    with st.expander("Your own model: predict this dataset with a model directory", expanded=bool(chosen)):
        st.caption(
            "Any Hugging Face token-classification model saved with `save_pretrained` (or by `pretrain "
            "finetune`), in a folder this app may read. Its labels are mapped onto the dataset's tags as "
            "`pretrain evaluate` maps them; its tokenizer is loaded beside it, so its row below is paired."
        )
        text = st.text_input("Model directory", key=PATH, placeholder="results/models/my-ner-model")
        if text and st.button("Predict with this model", key=PATH + "_btn"):
            chosen = _confined(text)
            st.session_state[CHOSEN] = chosen
        if chosen:
            _show(sel, Path(chosen))


def _confined(text: str) -> str | None:
    """The resolved directory, or ``None`` after saying why it cannot be used."""
    try:
        folder = confine_path(text, workspace.settings().allow_dirs)
    except PathNotAllowedError as exc:
        st.error(str(exc))
        return None
    if not folder.is_dir():
        st.error(f"{folder}: not a directory (a model is the folder save_pretrained wrote)")
        return None
    return str(folder)


def _show(sel, folder: Path) -> None:
    """The run of ``folder`` on the selected dataset: started, followed, or read from the cache."""
    try:
        run = model_runs.plan(folder, sel.dataset)
    except OSError as exc:
        st.error(f"{folder}: cannot be read ({exc.strerror or exc})")
        return
    if not run.done:
        job = work().submit(model_runs.evaluate, run)
        if not job.done():
            _follow(run, job)
            return
        if job.exception() is not None:
            st.error(str(job.exception()))
            return
    if _add(sel, run):
        st.rerun()  # the sidebar's selection is drawn before this: draw the page again with the model in it
    st.caption(f"{run.name}: predictions on {sel.dataset.key} read from the cache ({run.folder}).")


def _follow(run: model_runs.ModelRun, job) -> None:
    """A progress bar of ``run`` until ``job`` ends, then the whole page again."""
    progress = model_runs.progress_of(run)

    @st.fragment(run_every=POLL_S)
    def _poll() -> None:
        if job.done():
            st.rerun(scope="app")
        st.progress(progress.fraction, text=f"Predicting {run.dataset.key} with {run.name}: {progress.text}")

    _poll()


def _add(sel, run: model_runs.ModelRun) -> bool:
    """Load the model's tokenizer and predictions into the workspace and select the tokenizer; whether
    anything was new (once loaded, the user may deselect the tokenizer: it is not selected again)."""
    before = workspace.sources()
    srcs, tok = before.add_tokenizer(str(run.model), run.name, "path")
    # named as its tokenizer (unique among the loaded ones): the paired row reads "model, own tokenizer"
    srcs = srcs.add_predictions(PredictionSource(tok.name, str(run.predictions), sel.dataset.key.replace(":", "_")))
    if srcs == before:
        return False
    workspace.set_sources(srcs)
    workspace.select_tokenizer(tok.name)
    return True
