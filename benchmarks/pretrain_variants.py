"""The variants ``bench_pretrain.py`` compares, each a ``step(i) -> real tokens`` function built in its own process:
our trainer (:func:`ours_stepper`, in the settings of :data:`VARIANTS`) and the Hugging Face baseline
(``pretrain_hf_baseline.py``).
"""

from __future__ import annotations

from pretrain_hf_baseline import baseline_stepper


def ours_stepper(
    model_cfg,
    store,
    batch: int,
    ds_config: str,
    compile: str = "auto",
    micro: int | None = None,
    unpad: bool = True,
    attention_kernel: str = "flash",
    compile_mode: str = "default",
):
    """``step(i) -> real tokens`` of our trainer (DeepSpeed engine, masked-only decoder, unpadded encoder)."""
    from pretrain.config import TrainConfig
    from pretrain.engine import PretrainEngine
    from pretrain.model import AlbertPretrainingModule, build_model
    from pretrain.sampler import GlobalBatchOrder

    model = build_model(model_cfg, vocab_size=store.vocab_size, seed=0)
    cfg = TrainConfig(
        batch_size=batch,
        micro_batch_size=micro,
        total_steps=10**6,
        deepspeed_config=ds_config,
        lr=1e-4,
        compile=compile,
        unpad=unpad,
        attention_kernel=attention_kernel,
        compile_mode=compile_mode,
    )
    engine = PretrainEngine(AlbertPretrainingModule(model), cfg)
    order = GlobalBatchOrder(len(store), batch, seed=0)

    def step(i: int) -> int:
        micro = order.micro_batches(i, rank=0, world_size=1, micro_batch_size=engine.micro_batch_size)
        return engine.step([store.get_batch(m) for m in micro]).tokens

    step.engine = engine
    return step


#: ``TrainConfig.compile_mode`` of the variants that change it.
COMPILE_MODES = {"ours-autotune": "max-autotune-no-cudagraphs", "ours-cudagraphs": "reduce-overhead"}
#: Variants that only mean something on CUDA, and why.
CUDA_ONLY = {
    "ours-cudagraphs": "CUDA graphs need CUDA",
    "ours-gemm-autotune": "inductor's GEMM templates are Triton kernels for CUDA",
}
VARIANTS = ("baseline", "ours", "ours-eager", "ours-padded", "ours-cudnn", "ours-autotune", *CUDA_ONLY)


def build_stepper(args):
    """The ``step(i) -> real tokens`` function of the variant ``args.worker``, built in this process."""
    from pretrain.data.store import ExampleStore

    if args.worker == "ours-gemm-autotune":  # read by inductor when it compiles, so set before the first step
        import torch._inductor.config as inductor_config

        inductor_config.max_autotune_gemm = True

    store = ExampleStore(args.store)
    model_cfg = model_config(args.model[0])
    if args.worker == "baseline":
        return baseline_stepper(model_cfg, store, args.batch, "cuda" if args.gpu else "cpu")
    return ours_stepper(
        model_cfg,
        store,
        args.batch,
        "ds_gpu_bf16.json" if args.gpu else "ds_cpu.json",
        compile="off" if args.worker == "ours-eager" else args.compile,
        micro=args.micro,
        unpad=args.worker != "ours-padded",
        attention_kernel="cudnn" if args.worker == "ours-cudnn" else "flash",
        compile_mode=COMPILE_MODES.get(args.worker, "default"),
    )


def model_config(name: str):
    from pretrain.config import ModelConfig

    if name == "small":
        return ModelConfig(
            name="small", embedding_size=128, hidden_size=256, num_layers=4, num_heads=4, intermediate_size=1024
        )
    return ModelConfig.load(name)
