"""Data for ALBERT pre-training: raw documents -> pieces -> examples (SOP/NSP + n-gram masking) -> a store.

``prepare.py`` is the pipeline (``pretrain prepare``); ``store.py`` is the on-disk format the
trainer reads. Nothing here imports torch.
"""
