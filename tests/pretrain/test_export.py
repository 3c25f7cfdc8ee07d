"""Export parity: the reloaded Hugging Face model's logits equal the trained model's.

HF classes and pipelines load it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pretrain.cli import main
from pretrain.config import ModelConfig, TrainConfig
from pretrain.train import train


@pytest.fixture(scope="module")
def trained(tmp_path_factory, store_dir, tokenizer_dir):
    out = tmp_path_factory.mktemp("export") / "run"
    cfg = TrainConfig(batch_size=16, lr=1e-3, total_steps=12, checkpoint_every=6, log_every=6)
    return train(
        ModelConfig(sharing="groups", num_layers=4, num_groups=2),
        cfg,
        data=store_dir,
        tokenizer=tokenizer_dir,
        output=out,
        progress=False,
    )


def _inputs(store, n=6):
    b = store.get_batch(np.arange(100, 100 + n))
    return {k: torch.from_numpy(b[k]) for k in ("input_ids", "attention_mask", "token_type_ids")}


def test_exported_logits_equal_the_trained_model(trained, store, tmp_path):
    from transformers import AutoModelForMaskedLM, AutoModelForPreTraining, AutoModelForTokenClassification

    out = tmp_path / "hf"
    assert main(["export", "--checkpoint", str(trained.output_dir), "--output", str(out)]) == 0
    inputs = _inputs(store)
    live = trained.model.eval()
    with torch.no_grad():
        expected = live(**inputs)
        reloaded = AutoModelForPreTraining.from_pretrained(out).eval()(**inputs)
        torch.testing.assert_close(reloaded.prediction_logits, expected.prediction_logits)
        torch.testing.assert_close(reloaded.sop_logits, expected.sop_logits)
        mlm = AutoModelForMaskedLM.from_pretrained(out).eval()(**inputs)
        torch.testing.assert_close(mlm.logits, expected.prediction_logits)
        tagger = AutoModelForTokenClassification.from_pretrained(out, num_labels=5)
        hidden = tagger.albert(**inputs).last_hidden_state
        torch.testing.assert_close(hidden, live.albert(**inputs).last_hidden_state)
    assert tagger.config.num_hidden_groups == 2 and tagger.config.num_hidden_layers == 4
    # The run's own final_model (written from the live engine) holds the same weights.
    final = AutoModelForPreTraining.from_pretrained(trained.final_model_dir).eval()
    with torch.no_grad():
        torch.testing.assert_close(final(**inputs).prediction_logits, expected.prediction_logits)


def test_fill_mask_pipeline_uses_the_export(trained):
    from transformers import pipeline

    fill = pipeline("fill-mask", model=str(trained.final_model_dir), device="cpu")
    preds = fill(f"The city is the {fill.tokenizer.mask_token} of the country.", top_k=3)
    assert len(preds) == 3 and all(0 <= p["score"] <= 1 for p in preds)
    assert all(isinstance(p["token_str"], str) for p in preds)


def test_export_refuses_a_tokenizer_with_another_vocabulary(trained, tmp_path):
    from pretrain.export import export_checkpoint
    from pretrain.tokenizer_info import VocabularyMismatchError
    from tests.pretrain.conftest import train_tokenizer

    other = train_tokenizer(tmp_path / "tok500", vocab_size=500, sample_size=1500)
    with pytest.raises(VocabularyMismatchError, match="600"):
        export_checkpoint(trained.output_dir, tmp_path / "hf", tokenizer_dir=other)
    assert (
        main(
            [
                "export",
                "--checkpoint",
                str(trained.output_dir),
                "--output",
                str(tmp_path / "hf2"),
                "--tokenizer",
                str(other),
            ]
        )
        == 1
    )


@pytest.mark.parametrize("command", ["train", "export"])
def test_cli_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "--output" in capsys.readouterr().out


def test_zero1_checkpoint_exports_and_resumes(tmp_path, store_dir, tokenizer_dir):
    """ZeRO stage 1 checkpoints (optimizer states partitioned) export through DeepSpeed's zero_to_fp32."""
    import json

    from pretrain.export import export_checkpoint

    ds = tmp_path / "ds_zero1.json"
    ds.write_text(json.dumps({"zero_optimization": {"stage": 1}, "gradient_clipping": 1.0}))
    cfg = TrainConfig(batch_size=16, total_steps=6, checkpoint_every=3, log_every=3, deepspeed_config=str(ds))
    run = train(ModelConfig(), cfg, data=store_dir, tokenizer=tokenizer_dir, output=tmp_path / "run", progress=False)
    out = export_checkpoint(run.output_dir, tmp_path / "hf")
    from transformers import AutoModelForPreTraining

    ids = torch.randint(5, 600, (2, 12), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(
            AutoModelForPreTraining.from_pretrained(out).eval()(ids).prediction_logits,
            run.model.eval()(ids).prediction_logits,
        )
    more = train(
        ModelConfig(),
        cfg.replace(total_steps=9),
        data=store_dir,
        tokenizer=tokenizer_dir,
        output=run.output_dir,
        progress=False,
        resume=True,
    )
    assert more.resumed_from == 6 and more.step == 9
