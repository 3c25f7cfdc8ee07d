"""The no-pre-training control: the study's architecture with random weights, one per vocabulary.

Fine-tuned with the same tasks, settings and seeds as the pre-trained models, it shows what the
pre-training stage contributed: the report compares each pre-trained model with its control and
states "pre-training helps" only where the 95 % confidence interval of the difference lies above 0.

The weights are drawn exactly as the pre-trainer draws its initial weights (same preset, same
vocabulary and special ids, same ``pretrain.seed``), so the control *is* the pre-trained model at
step 0. Like :mod:`tokstudy.study.backends`, this module is imported only inside its stage, so
``tokstudy`` never imports torch.
"""

from __future__ import annotations

from pathlib import Path

from tokstudy.study.config import PretrainSection

#: Suffix of a control's name in tables and figures (``sp-unigram-8k`` -> ``sp-unigram-8k (no PT)``).
CONTROL_SUFFIX = " (no PT)"


def random_init_model(work: Path, tokenizer_dir: Path, sec: PretrainSection) -> Path:
    """Write the randomly initialised model of ``sec`` with ``tokenizer_dir``'s vocabulary; returns its directory.

    The directory is an ordinary Hugging Face ``AlbertForPreTraining`` with the tokenizer's files, as
    the pre-trainer exports, so fine-tuning loads both the same way.
    """
    from pretrain.config import ModelConfig
    from pretrain.export import save_hf_model
    from pretrain.model import build_model
    from pretrain.tokenizer_info import tokenizer_info

    tok = tokenizer_info(tokenizer_dir)
    model = build_model(ModelConfig.load(sec.model_spec()), vocab_size=tok["vocab_size"],
                        special_ids=tok["special_ids"], seed=sec.seed)
    return save_hf_model(model.config, model.state_dict(), work / "random_init", tokenizer_dir=tokenizer_dir)
