"""ALBERT's encoder on the real tokens only, so that padding costs nothing.

ALBERT draws 10 % of its examples shorter than ``max_seq_length`` (``short_seq_prob``) and a
document's last example is often short too: in the store ``pretrain prepare`` makes from English
text (``prepare_tiny.yaml``), 4.5 % of the positions of a padded batch are padding, and Hugging
Face's encoder runs every dense layer on them. Here, as in MosaicBERT's ``bert_padding``
(``unpad_input`` / ``pad_input``), the rows of the real tokens are gathered once and every
position-wise layer (embeddings, the E->H mapping, Q/K/V and output projections, the FFN, every
LayerNorm) runs on those rows only. Attention alone needs the ``[batch, heads, T, head_dim]``
layout: Q, K and V are scattered back into it, attention runs with the same key mask as Hugging
Face's, and the real rows are gathered out again. On a CUDA GPU that FlashAttention supports
(compute capability 8.0 or more, torch >= 2.10, half-precision activations as bf16 autocast gives,
no attention dropout), attention instead runs on the unpadded rows directly, through torch's
variable-length FlashAttention kernel (``torch.nn.attention.varlen.varlen_attn``), as MosaicBERT does
with FlashAttention's own: then nothing is re-padded at all.

The indices come from the host (:func:`unpad_layout`, from the batch's attention mask before the
batch is copied), so the step needs no device synchronisation. Their count changes from batch to
batch: the engine marks that size (and the batch's length) dynamic from the first step, so
``torch.compile`` builds one graph for them, and a micro-batch without padding, which takes Hugging
Face's forward, has a graph of its own: counted on CPU, a run compiles at most two graphs, whatever
its length.
The modules and weights are the Hugging Face model's own (the export is unchanged), and at every
real position the hidden states equal Hugging Face's (``tests/pretrain/test_unpad.py``).

>>> layout = unpad_layout(np.array([[1, 1, 1], [1, 1, 0]]))
>>> [layout[k].tolist() for k in UNPAD_KEYS]
[[0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 0], [0, 3, 5]]
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from pretrain.config import ATTENTION_KERNELS


def __getattr__(name: str):
    """``varlen_attn`` (torch >= 2.10, CUDA only; None on an older torch, whose attention re-pads instead) and
    ``_TORCH_CUDNN_CHOICE`` (torch's own choice between FlashAttention-2 and cuDNN inside it, see
    :func:`select_varlen_kernel`; None on a torch without the switch), imported when first asked for: importing
    ``torch.nn.attention.varlen`` loads ``torch._dynamo`` (about 1 s), which a process that never runs varlen
    attention (CPU training, export, evaluation) need not pay. Kept as module attributes once read."""
    if name not in ("varlen_attn", "_TORCH_CUDNN_CHOICE"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        import torch.nn.attention.varlen as varlen_module  # deferred: loads torch._dynamo
    except ImportError:  # pragma: no cover - older torch
        varlen_module = None
    value = getattr(varlen_module, "varlen_attn" if name == "varlen_attn" else "_should_use_cudnn", None)
    globals()[name] = value
    return value


def _varlen(name: str):
    """The module attribute ``name`` (:func:`__getattr__`'s two), read as a caller or a test's patch set it."""
    return globals()[name] if name in globals() else __getattr__(name)


#: The kernels torch's ``varlen_attn`` can run: FlashAttention-2 (``flash``, torch's choice) or cuDNN's fused
#: attention (``cudnn``, a path torch ships turned off: ``_should_use_cudnn`` returns False).
VARLEN_KERNELS = ATTENTION_KERNELS

#: The batch fields :func:`unpad_layout` adds (and :class:`pretrain.model.AlbertPretrainingModule` reads).
UNPAD_KEYS = ("unpad_rows", "unpad_slot", "unpad_cu_seqlens")


def unpad_layout(attention_mask: np.ndarray) -> dict[str, np.ndarray]:
    """Where the real tokens of a padded ``[B, T]`` batch are, computed on the host.

    Returns ``unpad_rows`` (int64 ``[N]``: the flat index ``b * T + t`` of each of the ``N`` real
    tokens, in order), ``unpad_slot`` (int64 ``[B * T]``: the row of each flat position among
    those ``N``; 0 at padding positions, which are never read) and ``unpad_cu_seqlens`` (int32
    ``[B + 1]``: where each example's rows start among the ``N``, then ``N``; variable-length
    attention's ``cu_seqlens``).
    """
    mask = np.asarray(attention_mask).astype(bool)
    flat = mask.reshape(-1)
    rows = np.flatnonzero(flat).astype(np.int64)
    slot = np.zeros(flat.size, dtype=np.int64)
    slot[rows] = np.arange(rows.size, dtype=np.int64)
    cu_seqlens = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(np.int32)
    return {"unpad_rows": rows, "unpad_slot": slot, "unpad_cu_seqlens": cu_seqlens}


def varlen_supported(device: torch.device | str) -> bool:
    """Whether torch's variable-length FlashAttention kernel runs on ``device`` (CUDA, compute capability >= 8.0)."""
    device = torch.device(device)
    if device.type != "cuda":
        return False
    return _varlen("varlen_attn") is not None and torch.cuda.get_device_capability(device) >= (8, 0)


def select_varlen_kernel(kernel: str) -> None:
    """Make torch's ``varlen_attn`` run ``kernel`` (one of :data:`VARLEN_KERNELS`) in this whole process.

    ``varlen_attn`` (a custom op, opaque to ``torch.compile``) asks ``torch.nn.attention.varlen._should_use_cudnn``
    at every call, forward and backward, whether to call cuDNN's fused attention instead of FlashAttention-2;
    torch answers False. ``cudnn`` replaces that answer with True, ``flash`` puts torch's own back. On Hopper,
    cuDNN's attention has kernels of its own for the chip, FlashAttention-2 does not (what each reaches is
    measured by ``benchmarks/bench_attention.py``). A torch without the switch accepts ``flash`` only.

    >>> select_varlen_kernel("flash")
    >>> select_varlen_kernel("tiled")
    Traceback (most recent call last):
    ValueError: attention_kernel must be one of ('flash', 'cudnn'), got 'tiled'
    """
    if kernel not in VARLEN_KERNELS:
        raise ValueError(f"attention_kernel must be one of {VARLEN_KERNELS}, got {kernel!r}")
    torch_choice = _varlen("_TORCH_CUDNN_CHOICE")  # read before it is replaced below: torch's own
    if torch_choice is None:
        if kernel == "cudnn":
            raise RuntimeError(f"attention_kernel 'cudnn': torch {torch.__version__} has no cuDNN path in varlen_attn")
        return
    # deferred: a private torch module, only for a varlen kernel
    import torch.nn.attention.varlen as varlen_module

    varlen_module._should_use_cudnn = _use_cudnn if kernel == "cudnn" else torch_choice


def _use_cudnn(device_index: int) -> bool:
    return True


def check_varlen_kernel(kernel: str, device: torch.device | str) -> None:
    """Run ``kernel`` once, forward and backward, on two tiny examples on ``device``; raise ``RuntimeError``
    naming the setting when it fails. Torch ships its cuDNN path turned off, and torch 2.11's fails in the
    backward (seen on an H200: ``attn_bias`` passed as an int): better to say so when the engine is built
    than in the middle of the first step."""
    select_varlen_kernel(kernel)
    try:
        q = torch.randn(24, 2, 64, device=device, dtype=torch.bfloat16, requires_grad=True)
        cu = torch.tensor([0, 16, 24], dtype=torch.int32, device=device)
        _varlen("varlen_attn")(q, q, q, cu, cu, 16, 16).sum().backward()
    except Exception as exc:  # noqa: BLE001 - whatever the kernel raises, the setting is what to change
        select_varlen_kernel("flash")
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise RuntimeError(
            f"TrainConfig.attention_kernel {kernel!r} does not run with torch {torch.__version__} on this device "
            f"({type(exc).__name__}: {first}); use attention_kernel: flash"
        ) from exc


def has_padding(attention_mask: np.ndarray) -> bool:
    """Whether a batch has any padding position (a batch without any takes Hugging Face's forward)."""
    return not bool(np.asarray(attention_mask).all())


def unpadded_albert(
    albert,
    input_ids: torch.Tensor,
    token_type_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    rows: torch.Tensor,
    slot: torch.Tensor,
    cu_seqlens: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``albert`` (a Hugging Face ``AlbertModel``) on the real tokens: ``(hidden [N, H], pooled [B, H])``.

    ``hidden[i]`` is Hugging Face's ``last_hidden_state`` at flat position ``rows[i]``; ``pooled`` is
    its ``pooler_output`` (the [CLS] row, position 0 of every example, through the pooler). Given
    ``cu_seqlens`` (see :func:`unpad_layout`; only where :func:`varlen_supported`), attention runs
    through the variable-length kernel whenever the projections are half precision, with ``T`` as the
    longest length (an upper bound, which the kernel needs; exact for the example store's batches,
    which are trimmed to their longest example).
    """
    batch, length = input_ids.shape
    emb = albert.embeddings
    ids = input_ids.reshape(-1).index_select(0, rows)
    types = token_type_ids.reshape(-1).index_select(0, rows)
    positions = torch.remainder(rows, length)
    x = emb.word_embeddings(ids) + emb.token_type_embeddings(types) + emb.position_embeddings(positions)
    x = emb.dropout(emb.LayerNorm(x))

    encoder = albert.encoder
    config = encoder.config
    x = encoder.embedding_hidden_mapping_in(x)
    key_mask = attention_mask.bool()[:, None, None, :]
    for i in range(config.num_hidden_layers):
        group = encoder.albert_layer_groups[int(i / (config.num_hidden_layers / config.num_hidden_groups))]
        for layer in group.albert_layers:
            attended = _attention(layer.attention, x, rows, key_mask, batch, length, cu_seqlens)
            ffn = layer.ffn_output(layer.activation(layer.ffn(attended)))
            x = layer.full_layer_layer_norm(ffn + attended)

    cls_rows = slot.index_select(0, torch.arange(batch, device=slot.device) * length)
    pooled = albert.pooler_activation(albert.pooler(x.index_select(0, cls_rows)))
    return x, pooled


def _attention(
    attn,
    x: torch.Tensor,
    rows: torch.Tensor,
    key_mask: torch.Tensor,
    batch: int,
    length: int,
    cu_seqlens: torch.Tensor | None,
):
    """Hugging Face's ``AlbertAttention`` on unpadded rows ``x`` [N, H]."""
    heads, head_dim = attn.num_attention_heads, attn.attention_head_size
    dropout = attn.attention_dropout.p if attn.training else 0.0
    q, k, v = attn.query(x), attn.key(x), attn.value(x)
    if cu_seqlens is not None and dropout == 0.0 and q.dtype in (torch.float16, torch.bfloat16):
        # FlashAttention over each example's rows; its default scale is 1/sqrt(head_dim), ALBERT's scaling.
        context = _varlen("varlen_attn")(
            q.view(-1, heads, head_dim),
            k.view(-1, heads, head_dim),
            v.view(-1, heads, head_dim),
            cu_seqlens,
            cu_seqlens,
            length,
            length,
        ).reshape(-1, heads * head_dim)
    else:  # re-pad Q, K, V for SDPA with Hugging Face's key mask, then gather the real rows back

        def padded(t: torch.Tensor) -> torch.Tensor:
            full = t.new_zeros(batch * length, t.shape[-1]).index_copy(0, rows, t)
            return full.view(batch, length, heads, head_dim).transpose(1, 2)

        context = F.scaled_dot_product_attention(
            padded(q), padded(k), padded(v), attn_mask=key_mask, dropout_p=dropout, scale=attn.scaling
        )
        context = context.transpose(1, 2).reshape(batch * length, heads * head_dim).index_select(0, rows)
    return attn.LayerNorm(x + attn.output_dropout(attn.dense(context)))
