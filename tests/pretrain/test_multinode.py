"""Two "nodes" x one process on this machine (torchrun, c10d rendezvous on 127.0.0.1) reach the parameters of 1 process.

The test starts the two torchrun agents itself, exactly as the "Several nodes" section of
docs/pretrain.md tells users to start one agent per node (there: ``srun`` or ssh on each node,
the rendezvous endpoint on the first node). Each agent runs one ``pretrain train`` process; the
c10d rendezvous assigns the node ranks, so no ``--node_rank`` is given. Both agents share the
output directory, as the nodes of a cluster share a file system.

Same global batch as the single process, each process accumulating two micro-batches of 4 a step (the
eager data-parallel check with gradient accumulation; one agent with two processes, compiled:
tests/pretrain/test_compile.py). Each process reads its half of every global batch (see pretrain.sampler)
and the loss is normalised by the global counts (see pretrain.engine), so the two runs take the same steps
up to floating-point summation order. Tolerance: rtol 1e-4 / atol 1e-5 per weight after 10 AdamW steps
(measured: largest absolute difference 2.8e-7 with one agent; Adam's update g / sqrt(v) can amplify
rounding in near-zero gradients, hence the margin).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from pretrain.config import ModelConfig, TrainConfig
from pretrain.train import train
from tests.conftest import PROJECT_ROOT
from tests.pretrain.helpers import assert_same_weights, final_weights, free_port, subprocess_env, tiny_train_args

CFG = TrainConfig(batch_size=16, lr=1e-3, warmup_steps=2, total_steps=10, checkpoint_every=5, log_every=5)
NODE_ARGS = ["--local-addr", "127.0.0.1"]


def test_docs_show_the_command_this_test_runs():
    """docs/pretrain.md's "Several nodes" section shows the launcher options the slow test below uses."""
    doc = (PROJECT_ROOT / "docs" / "pretrain.md").read_text(encoding="utf-8")
    section = doc.split("## Several nodes", 1)[1].split("\n## ", 1)[0]
    block = section.split("**Exercised here**", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    documented = shlex.split(re.sub(r"\\\n", " ", block).split("&", 1)[0])
    ours = multinode_command(NODE_ARGS, "127.0.0.1:29500", [])

    def launcher_options(cmd):
        return cmd[cmd.index("--nnodes") : cmd.index("pretrain") - 1]

    assert launcher_options(documented) == launcher_options(ours)
    assert documented[documented.index("pretrain") - 1 : documented.index("pretrain") + 2] == [
        "-m",
        "pretrain",
        "train",
    ]


def multinode_command(node_args: list[str], endpoint: str, train_args: list[str]) -> list[str]:
    """The command line of one node:

    ``torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint HOST:PORT -m pretrain train ...``.
    """
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nnodes",
        "2",
        "--nproc_per_node",
        "1",
        "--rdzv_backend",
        "c10d",
        "--rdzv_endpoint",
        endpoint,
        "--rdzv_id",
        "tokstudy-multinode-test",
        *node_args,
        "-m",
        "pretrain",
        "train",
        *train_args,
    ]


@pytest.mark.slow
def test_two_nodes_match_one_process(tmp_path, store_dir, tokenizer_dir):
    single = tmp_path / "one"
    train(ModelConfig(), CFG, data=store_dir, tokenizer=tokenizer_dir, output=single, progress=False)

    out = tmp_path / "two_nodes"
    train_args = tiny_train_args(
        CFG.replace(micro_batch_size=4), tmp_path / "train.yaml", store_dir, tokenizer_dir, out
    )
    env = subprocess_env()
    endpoint = f"127.0.0.1:{free_port()}"
    # --local-addr: the address the other node reaches this one at (on a cluster the node's own
    # host name is used by default; here both "nodes" are this machine).
    node_args = NODE_ARGS
    logs = [tmp_path / f"node{i}.log" for i in range(2)]
    procs = []
    for log in logs:
        with open(log, "w") as fh:
            procs.append(
                subprocess.Popen(
                    multinode_command(node_args, endpoint, train_args),
                    env=env,
                    cwd=PROJECT_ROOT,
                    stdout=fh,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # each "node" its own process tree, as on separate machines
                )
            )
    try:
        codes = [p.wait(timeout=400) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert codes == [0, 0], "\n".join(f"--- node {i}\n{log.read_text()[-3000:]}" for i, log in enumerate(logs))

    assert_same_weights(final_weights(out), final_weights(single), rtol=1e-4, atol=1e-5)
    step = out / "checkpoints" / "step_00000010"
    assert '"world_size": 2' in (step / "trainer_state.json").read_text()
    assert sorted(p.name for p in (step / "rng").iterdir()) == ["rank_0.pt", "rank_1.pt"]
