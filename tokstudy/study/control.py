"""The no-pre-training control: the study's architecture with random weights, one per vocabulary.

Fine-tuned with the same tasks, settings and seeds as the pre-trained models, it shows what the
pre-training stage contributed: the report compares each pre-trained model with its control and
states "pre-training helps" only where the 95 % confidence interval of the difference lies above 0
(:func:`tokstudy.study.control_and_cost.control_comparison`).

The weights come from the trainer (:meth:`tokstudy.study.backends.TrainerBackend.untrained_model`):
the pre-trainer draws them exactly as it draws its initial weights (same preset, same vocabulary and
special ids, same ``pretrain.seed``), so the control *is* the pre-trained model at step 0.
"""

from __future__ import annotations

#: Suffix of a control's name in tables and figures (``sp-unigram-8k`` -> ``sp-unigram-8k (no PT)``).
CONTROL_SUFFIX = " (no PT)"
