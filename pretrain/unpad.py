"""ALBERT's encoder on the real tokens only, so that padding costs nothing.

ALBERT draws 10 % of its examples shorter than ``max_seq_length`` (``short_seq_prob``) and a
document's last example is often short too: in the store ``pretrain prepare`` makes from English
text (``prepare_tiny.yaml``), 4.5 % of the positions of a padded batch are padding, and Hugging
Face's encoder runs every dense layer on them. Here, as in MosaicBERT's ``bert_padding``
(``unpad_input`` / ``pad_input``), the rows of the real tokens are gathered once and every
position-wise layer (embeddings, the E->H mapping, Q/K/V and output projections, the FFN, every
LayerNorm) runs on those rows only. Attention alone needs the ``[batch, heads, T, head_dim]``
layout: Q, K and V are scattered back into it, attention runs with the same key mask as Hugging
Face's, and the real rows are gathered out again. (MosaicBERT calls FlashAttention's variable-length
kernel there instead; that kernel is not a dependency of ours.)

The indices come from the host (:func:`unpad_layout`, from the batch's attention mask before the
batch is copied), so the step needs no device synchronisation. Their count changes from batch to
batch: under ``torch.compile`` that costs one recompile (dynamo then makes the sizes dynamic), and a
micro-batch without padding, which takes Hugging Face's forward, has a graph of its own; on CPU a
run compiles three graphs in all, whatever its length.
The modules and weights are the Hugging Face model's own (the export is unchanged), and at every
real position the hidden states equal Hugging Face's (``tests/pretrain/test_unpad.py``).

>>> layout = unpad_layout(np.array([[1, 1, 1], [1, 1, 0]]))
>>> layout["unpad_rows"].tolist(), layout["unpad_slot"].tolist()
([0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 0])
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

#: The batch fields :func:`unpad_layout` adds (and :class:`pretrain.model.AlbertPretrainingModule` reads).
UNPAD_KEYS = ("unpad_rows", "unpad_slot")


def unpad_layout(attention_mask: np.ndarray) -> dict[str, np.ndarray]:
    """Where the real tokens of a padded ``[B, T]`` batch are, computed on the host.

    Returns ``unpad_rows`` (int64 ``[N]``: the flat index ``b * T + t`` of each of the ``N`` real
    tokens, in order) and ``unpad_slot`` (int64 ``[B * T]``: the row of each flat position among
    those ``N``; 0 at padding positions, which are never read).
    """
    flat = np.asarray(attention_mask).reshape(-1).astype(bool)
    rows = np.flatnonzero(flat).astype(np.int64)
    slot = np.zeros(flat.size, dtype=np.int64)
    slot[rows] = np.arange(rows.size, dtype=np.int64)
    return {"unpad_rows": rows, "unpad_slot": slot}


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
) -> tuple[torch.Tensor, torch.Tensor]:
    """``albert`` (a Hugging Face ``AlbertModel``) on the real tokens: ``(hidden [N, H], pooled [B, H])``.

    ``hidden[i]`` is Hugging Face's ``last_hidden_state`` at flat position ``rows[i]``; ``pooled`` is
    its ``pooler_output`` (the [CLS] row, position 0 of every example, through the pooler).
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
            attended = _attention(layer.attention, x, rows, key_mask, batch, length)
            ffn = layer.ffn_output(layer.activation(layer.ffn(attended)))
            x = layer.full_layer_layer_norm(ffn + attended)

    cls_rows = slot.index_select(0, torch.arange(batch, device=slot.device) * length)
    pooled = albert.pooler_activation(albert.pooler(x.index_select(0, cls_rows)))
    return x, pooled


def _attention(attn, x: torch.Tensor, rows: torch.Tensor, key_mask: torch.Tensor, batch: int, length: int):
    """Hugging Face's ``AlbertAttention`` (SDPA) on unpadded rows ``x`` [N, H]: Q, K, V re-padded for attention only."""
    heads, head_dim = attn.num_attention_heads, attn.attention_head_size

    def padded(t: torch.Tensor) -> torch.Tensor:
        full = t.new_zeros(batch * length, t.shape[-1]).index_copy(0, rows, t)
        return full.view(batch, length, heads, head_dim).transpose(1, 2)

    context = F.scaled_dot_product_attention(
        padded(attn.query(x)),
        padded(attn.key(x)),
        padded(attn.value(x)),
        attn_mask=key_mask,
        dropout_p=attn.attention_dropout.p if attn.training else 0.0,
        scale=attn.scaling,
    )
    context = context.transpose(1, 2).reshape(batch * length, heads * head_dim).index_select(0, rows)
    return attn.LayerNorm(x + attn.output_dropout(attn.dense(context)))
