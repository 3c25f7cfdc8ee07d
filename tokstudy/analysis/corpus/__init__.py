"""Statistics of raw-text corpora bigger than memory: partitions read by workers, sums that merge by addition.

:mod:`.partitions` cuts a corpus into pieces each worker reads itself, :mod:`.counts` turns a
partition into mergeable sums, :mod:`.figures` turns the sums into estimates, :mod:`.engines` runs the partitions on
a process pool or a dask cluster (the public :func:`~tokstudy.analysis.corpus.engines.corpus_stats`).
"""
