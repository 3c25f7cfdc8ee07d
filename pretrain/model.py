"""ALBERT pre-training with the MLM decoder applied only where tokens are masked.

The weights are a plain ``transformers.AlbertForPreTraining`` (so the export is a standard
checkpoint); only the loss is computed differently. Hugging Face's forward projects *every*
position through the E x V decoder, although the MLM loss only reads the ~15 % masked ones:
at 32k-128k vocabularies that projection (and its backward) is most of the step. Here the
encoder's hidden states are gathered at ``mlm_positions`` first, and ``model.predictions``
(dense H->E, activation, LayerNorm, tied E->V decoder) runs on those rows only. The loss is
mathematically the same as Hugging Face's (tested against it).

Losses are sums divided by *given* denominators, so that data-parallel processes and
gradient-accumulation micro-batches each contribute their share of one global mean
(see :mod:`pretrain.engine`); by default the denominators are the batch's own counts, which
gives Hugging Face's per-batch means.

>>> from pretrain.config import ModelConfig
>>> module = AlbertPretrainingModule(build_model(ModelConfig(), vocab_size=100, seed=0))   # doctest: +SKIP
>>> out = module(**batch)                                                                # doctest: +SKIP
>>> out["loss"].backward()                                                               # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

import torch
import torch.nn.functional as F
from torch import nn

from pretrain.config import ModelConfig
from pretrain.unpad import unpadded_albert

#: The batch fields the module reads (as :meth:`pretrain.data.store.ExampleStore.get_batch` returns them).
BATCH_KEYS = ("input_ids", "attention_mask", "token_type_ids", "sentence_order_label", "mlm_positions", "mlm_labels")


def build_model(
    config: ModelConfig,
    *,
    vocab_size: int,
    special_ids: Mapping[str, int] | None = None,
    seed: int | None = None,
    fused_gelu: bool = True,
):
    """A freshly initialised ``AlbertForPreTraining`` (SDPA attention); ``seed`` makes the weights reproducible.

    ``fused_gelu`` swaps Hugging Face's ``gelu_new`` modules for :class:`TanhGELU` (the same function, one kernel).
    """
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    from transformers import AlbertForPreTraining

    if seed is not None:
        torch.manual_seed(seed)
    hf_config = config.to_albert_config(vocab_size=vocab_size, special_ids=special_ids)
    model = AlbertForPreTraining(hf_config)
    if fused_gelu:
        use_fused_gelu(model)
    return model


class TanhGELU(nn.Module):
    """``gelu_new`` (ALBERT's tanh-approximated GELU) as torch's single fused kernel.

    Hugging Face writes it as ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``: six element-wise kernels
    forward and more backward, the largest share of the GPU step in eager mode. ``F.gelu(approximate="tanh")``
    is the same function (tested to float rounding), one kernel each way; the checkpoint's ``hidden_act``
    stays ``gelu_new``.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


def use_fused_gelu(model: nn.Module) -> int:
    """Swap every ``NewGELUActivation`` in ``model`` for :class:`TanhGELU`; returns how many were swapped."""
    # deferred: transformers (~1-2 s), only when a model or tokenizer is loaded
    from transformers.activations import NewGELUActivation

    swapped = 0
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, NewGELUActivation):
                setattr(module, name, TanhGELU())
                swapped += 1
    return swapped


class AlbertPretrainingModule(nn.Module):
    """Wraps an ``AlbertForPreTraining`` (``self.model``) with the masked-positions-only MLM + SOP loss.

    ``forward`` returns a dict: ``loss`` (the scalar to back-propagate) and detached statistics
    ``mlm_loss_sum``, ``mlm_correct``, ``mlm_count``, ``sop_loss_sum``, ``sop_correct``, ``sop_count``.
    ``attention_mask`` may be ``None`` for a batch without padding (the engine drops it there, so SDPA
    can take its FlashAttention kernel). Given ``unpad_rows`` and ``unpad_slot``
    (:func:`pretrain.unpad.unpad_layout` of the attention mask),
    the encoder runs on the real tokens only (:func:`pretrain.unpad.unpadded_albert`); the loss is the same.
    With ``varlen_attention`` set (the engine sets it where :func:`pretrain.unpad.varlen_supported`), its
    attention uses ``unpad_cu_seqlens`` and the variable-length FlashAttention kernel.

    Args:
        model: the Hugging Face model whose weights are trained.
        autocast_dtype: run the encoder under ``torch.autocast(device, dtype)`` (bf16 on CUDA); the
            loss is always computed in float32.
    """

    def __init__(self, model, *, autocast_dtype: torch.dtype | None = None):
        super().__init__()
        self.model = model
        self.autocast_dtype = autocast_dtype
        self.varlen_attention = False

    def _autocast(self, device_type: str):
        """``torch.autocast`` to ``autocast_dtype``; without one, autocast off, as a caller's autocast would be turned
        off too. With autocast already off, no context at all: even a disabled ``torch.autocast`` is a call in a
        compiled graph, and AOTAutograd's cache refuses graphs that hold one (so each new process would trace the
        forward and backward again instead of reading them from the cache torch.compile keeps on disk)."""
        if self.autocast_dtype is not None:
            return torch.autocast(device_type=device_type, dtype=self.autocast_dtype)
        if torch.is_autocast_enabled(device_type):
            return torch.autocast(device_type=device_type, enabled=False)
        return contextlib.nullcontext()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None,
        token_type_ids: torch.Tensor,
        sentence_order_label: torch.Tensor,
        mlm_positions: torch.Tensor,
        mlm_labels: torch.Tensor,
        mlm_denominator: float | torch.Tensor | None = None,
        sop_denominator: float | torch.Tensor | None = None,
        unpad_rows: torch.Tensor | None = None,
        unpad_slot: torch.Tensor | None = None,
        unpad_cu_seqlens: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        device_type = input_ids.device.type
        batch, length = input_ids.shape
        with self._autocast(device_type):
            # Gather a fixed number of rows, b * T + position for every slot (unused slots, position -1, read
            # row b * T and are ignored by the loss): fixed shapes and no boolean indexing, so the step needs
            # no device-to-host synchronisation.
            valid = mlm_positions >= 0
            rows = (
                torch.arange(batch, device=input_ids.device)[:, None] * length + mlm_positions.clamp(min=0)
            ).reshape(-1)
            if unpad_rows is None:
                out = self.model.albert(
                    input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_dict=True
                )
                hidden, pooled = out.last_hidden_state.flatten(0, 1), out.pooler_output
            else:  # the encoder on the real tokens only (pretrain.unpad): rows are renumbered among them
                hidden, pooled = unpadded_albert(
                    self.model.albert,
                    input_ids,
                    token_type_ids,
                    attention_mask,
                    unpad_rows,
                    unpad_slot,
                    unpad_cu_seqlens if self.varlen_attention else None,
                )
                rows = unpad_slot.index_select(0, rows)
            masked_hidden = hidden.index_select(0, rows)
            mlm_logits = self.model.predictions(masked_hidden)
            sop_logits = self.model.sop_classifier(pooled)
        labels = torch.where(valid, mlm_labels, torch.full_like(mlm_labels, -100)).reshape(-1)
        mlm_loss_sum = F.cross_entropy(mlm_logits.float(), labels, reduction="sum", ignore_index=-100)
        sop_loss_sum = F.cross_entropy(sop_logits.float(), sentence_order_label, reduction="sum")
        mlm_count = valid.sum().float()
        sop_count = torch.full((), float(sentence_order_label.numel()), device=mlm_count.device)
        mlm_den = mlm_count.clamp(min=1.0) if mlm_denominator is None else mlm_denominator
        sop_den = sop_count.clamp(min=1.0) if sop_denominator is None else sop_denominator
        loss = mlm_loss_sum / mlm_den + sop_loss_sum / sop_den
        with torch.no_grad():
            stats = {
                "mlm_loss_sum": mlm_loss_sum.detach(),
                "mlm_correct": ((mlm_logits.argmax(-1) == labels) & valid.reshape(-1)).sum().float(),
                "mlm_count": mlm_count,
                "sop_loss_sum": sop_loss_sum.detach(),
                "sop_correct": (sop_logits.argmax(-1) == sentence_order_label).sum().float(),
                "sop_count": sop_count,
            }
        return {"loss": loss, **stats}


def hf_labels(mlm_positions: torch.Tensor, mlm_labels: torch.Tensor, seq_len: int) -> torch.Tensor:
    """Hugging Face's dense ``labels`` [B, T] (-100 except at masked positions) from positions/labels.

    Used by the reference loss in tests and by the benchmark's plain Hugging Face baseline.
    """
    labels = torch.full((mlm_positions.shape[0], seq_len), -100, dtype=torch.long, device=mlm_labels.device)
    valid = mlm_positions >= 0
    b = torch.arange(mlm_positions.shape[0], device=mlm_positions.device)[:, None].expand_as(mlm_positions)
    labels[b[valid], mlm_positions[valid]] = mlm_labels[valid]
    return labels
