"""torch.compile (TrainConfig.compile) changes speed, not results.

Compiled and eager runs of the tiny model on the same data give the same losses and weights within
float32 reordering (inductor fuses and reorders reductions): rtol 1e-4 on every logged loss, and
rtol 1e-3 / atol 1e-5 on every weight after the run (measured differences are far smaller; Adam's
g / sqrt(v) amplifies rounding in near-zero gradients, hence the margin). Resume, export and the
2-process run stay exact with compile on. Compiling on 2 busy CPU cores is slow, so the runs are short
and share one cache of compiled code: every run takes micro-batches of 4 (one process accumulates four a step),
so that the two-process run, whose processes accumulate two each, finds every graph already compiled. The model
is the tiny preset with one layer instead of two: dynamo unrolls the layers into the graph, and the second
application of the shared layer runs the same code again, only adding kernels to the cold compile.

The two-process run is also the suite's data-parallel check under one torchrun agent (gloo): each process reads
its half of every global batch (pretrain.sampler) and the loss is normalised by the global counts
(pretrain.engine), so it reaches the one-process weights up to summation order: rtol 1e-4 / atol 1e-5 per
weight. Two agents, as on two nodes, eager: tests/pretrain/test_multinode.py.
"""

from __future__ import annotations

import shutil

import pytest
import torch

from pretrain.config import ModelConfig, TrainConfig
from pretrain.logging_ import read_metrics
from pretrain.train import train
from tests.pretrain.helpers import assert_same_weights, final_weights, torchrun_train

CFG = TrainConfig(
    batch_size=16, micro_batch_size=4, lr=1e-3, warmup_steps=2, total_steps=8, checkpoint_every=4, log_every=1
)
#: the tiny preset with one layer (see the module's docstring)
MODEL = ModelConfig(name="tiny-1-layer", num_layers=1)


#: graphs dynamo compiled during the compiled run of the fixture below
GRAPHS: dict[str, int] = {}


@pytest.fixture(scope="module")
def eager_and_compiled(tmp_path_factory, store_dir, tokenizer_dir):
    from torch._dynamo.utils import counters

    runs = {}
    for mode in ("off", "on"):
        out = tmp_path_factory.mktemp(f"compile-{mode}") / "run"
        before = counters["stats"]["unique_graphs"]  # process-wide: other tests may have compiled too
        with _no_fallback():
            runs[mode] = train(
                MODEL,
                CFG.replace(compile=mode),
                data=store_dir,
                tokenizer=tokenizer_dir,
                output=out,
                progress=False,
            )
        GRAPHS[mode] = counters["stats"]["unique_graphs"] - before
    return runs


class _no_fallback:
    """Fail if the engine fell back to eager (the comparison would then prove nothing)."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self._seen = self._catch.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)
        fallbacks = [str(w.message) for w in self._seen if "TrainConfig.compile" in str(w.message)]
        assert not fallbacks, fallbacks
        return False


def test_compiled_losses_and_weights_equal_eager(eager_and_compiled):
    eager, compiled = (read_metrics(eager_and_compiled[m].output_dir) for m in ("off", "on"))
    assert [r["step"] for r in eager] == [r["step"] for r in compiled]
    for a, b in zip(eager, compiled):
        for key in ("loss", "mlm_loss", "sop_loss"):
            assert b[key] == pytest.approx(a[key], rel=1e-4), (a["step"], key)
    assert_same_weights(
        final_weights(eager_and_compiled["on"].output_dir),
        final_weights(eager_and_compiled["off"].output_dir),
        rtol=1e-3,
        atol=1e-5,
    )


def test_compiled_export_is_the_live_model(eager_and_compiled):
    from transformers import AutoModelForPreTraining

    run = eager_and_compiled["on"]
    ids = torch.randint(5, 600, (2, 12), generator=torch.Generator().manual_seed(0))
    exported = AutoModelForPreTraining.from_pretrained(run.final_model_dir).eval()
    with torch.no_grad():
        torch.testing.assert_close(exported(ids).prediction_logits, run.model.eval()(ids).prediction_logits)


def test_compiled_resume_equals_uninterrupted(eager_and_compiled, tmp_path, store_dir, tokenizer_dir):
    """A compiled run resumed from the compiled run's checkpoint at step 4 (the fixture's, so that only the
    resumed half compiles; a run stopped early checkpoints the same way, test_resume.py) ends with its weights."""
    from torch._dynamo.utils import counters

    from pretrain.checkpoint import step_dir_name

    cfg = CFG.replace(compile="on")
    out = tmp_path / "run"
    saved = eager_and_compiled["on"].output_dir / "checkpoints" / step_dir_name(4)
    shutil.copytree(saved, out / "checkpoints" / saved.name)
    hits = counters["aot_autograd"]["autograd_cache_hit"]
    second = train(MODEL, cfg, data=store_dir, tokenizer=tokenizer_dir, output=out, progress=False, resume=True)
    assert second.resumed_from == 4 and second.step == 8
    # the new engine (torch.compiler.reset()) read the fixture's forward and backward back from torch.compile's cache
    # on disk, as each process of the two-process run below does, instead of tracing them again
    assert counters["aot_autograd"]["autograd_cache_hit"] > hits
    assert_same_weights(final_weights(out), final_weights(eager_and_compiled["on"].output_dir), rtol=1e-6, atol=1e-7)


@pytest.mark.slow
def test_compiled_two_processes_accumulating_gradients_match_one(
    eager_and_compiled, tmp_path, store_dir, tokenizer_dir
):
    """Two processes under one torchrun agent, each accumulating two micro-batches a step, end with the weights of
    the one process that accumulates four; both ranks' RNG states are in the checkpoint."""
    two = tmp_path / "two"
    proc = torchrun_train(2, CFG.replace(compile="on"), tmp_path, store_dir, tokenizer_dir, two, model=MODEL)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "TrainConfig.compile" not in proc.stderr, proc.stderr[-2000:]
    assert_same_weights(final_weights(two), final_weights(eager_and_compiled["on"].output_dir), rtol=1e-4, atol=1e-5)
    last = two / "checkpoints" / "step_00000008"
    assert '"world_size": 2' in (last / "trainer_state.json").read_text()
    assert sorted(p.name for p in (last / "rng").iterdir()) == ["rank_0.pt", "rank_1.pt"]


def test_unpadded_batches_compile_a_bounded_number_of_graphs(eager_and_compiled, store):
    """Unpadding makes the row count vary per batch: dynamo must compile one dynamic graph, not a graph per
    batch (past its cache limit it would silently run eager)."""
    import numpy as np

    from pretrain.sampler import GlobalBatchOrder
    from pretrain.unpad import has_padding

    order = GlobalBatchOrder(len(store), CFG.batch_size, CFG.seed)
    masks = [
        store.get_batch(micro)["attention_mask"]
        for i in range(CFG.total_steps)
        for micro in order.micro_batches(i, rank=0, world_size=1, micro_batch_size=CFG.micro_batch_size)
    ]
    row_counts = {int(np.sum(m)) for m in masks if has_padding(m)}
    assert len(row_counts) >= 4, "the run needs batches with different numbers of real tokens"
    # The sizes that vary are marked dynamic from the first step: one graph for batches with padding (and
    # one for batches without, which take Hugging Face's forward), never one specialised to the first batch.
    expected = 1 + any(not has_padding(m) for m in masks)
    assert GRAPHS == {"off": 0, "on": expected}, GRAPHS


def test_the_compile_mode_reaches_torch_compile():
    """``TrainConfig.compile_mode`` is the mode ``nn.Module.compile`` gets (only ``default`` is measured on a GPU)."""
    from pretrain.compiling import compile_module as _compile

    class Recording(torch.nn.Module):
        def compile(self, **kwargs):
            self.kwargs = kwargs

    module = Recording()
    assert _compile(module, "max-autotune-no-cudagraphs") and module.kwargs == {"mode": "max-autotune-no-cudagraphs"}
    assert TrainConfig(compile_mode="reduce-overhead").compile_mode == "reduce-overhead"
