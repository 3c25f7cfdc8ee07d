"""ALBERT pre-training on DeepSpeed and fine-tuning, producing the models tokstudy studies.

Importing this package is cheap; torch, transformers and deepspeed are imported by
the modules that need them.
"""

__version__ = "0.1.0"
