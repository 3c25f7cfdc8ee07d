"""The one reader of SentencePiece's protobuf wire format, against ``protobuf``'s own parser of the same bytes."""

from __future__ import annotations

import random

import pytest

from tokstudy.errors import TokenizerLoadError
from tokstudy.tokenization import spm_proto
from tokstudy.tokenization.hf_export import _spm_fields
from tokstudy.tokenization.sentencepiece_ import model_settings

pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")


def _random_model(rng: random.Random) -> bytes:
    """A ``ModelProto`` serialised by protobuf, with random settings, pieces and a charsmap."""
    m = pb2.ModelProto()
    m.trainer_spec.model_type = rng.choice([1, 2, 3, 4])
    m.trainer_spec.vocab_size = rng.randrange(1, 2**20)
    m.trainer_spec.character_coverage = rng.random()  # a fixed32 float, skipped over
    m.trainer_spec.split_by_whitespace = rng.random() < 0.5
    m.trainer_spec.treat_whitespace_as_suffix = rng.random() < 0.5
    m.normalizer_spec.add_dummy_prefix = rng.random() < 0.5
    m.normalizer_spec.remove_extra_whitespaces = rng.random() < 0.5
    m.normalizer_spec.precompiled_charsmap = rng.randbytes(rng.randrange(0, 400))
    for i in range(rng.randrange(0, 50)):
        m.pieces.add(piece=f"▁p{i}", score=-rng.random())
    return m.SerializeToString()


@pytest.mark.parametrize("seed", range(20))
def test_the_settings_read_are_protobufs(seed):
    raw = _random_model(random.Random(seed))
    ref = pb2.ModelProto.FromString(raw)
    got = model_settings(raw)
    assert got.split_by_whitespace == ref.trainer_spec.split_by_whitespace
    assert got.treat_whitespace_as_suffix == ref.trainer_spec.treat_whitespace_as_suffix
    assert got.add_dummy_prefix == ref.normalizer_spec.add_dummy_prefix
    assert got.remove_extra_whitespaces == ref.normalizer_spec.remove_extra_whitespaces
    assert _spm_fields(raw) == {
        "model_type": ref.trainer_spec.model_type,
        "charsmap": ref.normalizer_spec.precompiled_charsmap,
    }


def test_every_top_level_field_is_one_protobuf_sees():
    raw = _random_model(random.Random(7))
    ref = pb2.ModelProto.FromString(raw)
    numbers = [n for n, _, _ in spm_proto.fields(raw)]
    assert sorted(set(numbers)) == sorted({d.number for d, _ in ref.ListFields()})
    assert numbers.count(1) == len(ref.pieces)


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**14, 2**21 + 5, 2**31 - 1])
def test_a_varint_reads_as_protobuf_writes_it(value):
    raw = pb2.TrainerSpec(vocab_size=value).SerializeToString()
    number = pb2.TrainerSpec.DESCRIPTOR.fields_by_name["vocab_size"].number
    assert list(spm_proto.fields(raw)) == [(number, spm_proto.VARINT, value)]


def test_a_cut_short_model_is_refused_by_both_readers():
    raw = _random_model(random.Random(3))
    for reader in (model_settings, _spm_fields):
        with pytest.raises(TokenizerLoadError, match="cut short"):
            reader(raw[: len(raw) // 2])
