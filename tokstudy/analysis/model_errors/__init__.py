"""Does a word's segmentation go with the model getting its label wrong?

A fine-tuned model's per-word predictions (:mod:`.predictions`, the file ``tokstudy correlate`` reads)
are aligned word by word to the segmentation table (:mod:`.alignment`); :mod:`.correlation` relates
error rates to the number of pieces with bootstrap intervals, and :mod:`.attribution` asks whether
that holds once frequency, entity status and length are held fixed (logistic models of :mod:`.logit`,
fitted in a second process by :mod:`.fit_worker`); :mod:`.protocols` computes that r under every
plausible protocol side by side (words / NE words / entities, pieces / pieces - 1, tag wrong / entity
missed, lone ``▁`` counted / dropped), to find which one gives the mALBERT paper's r = 0.44.
"""
