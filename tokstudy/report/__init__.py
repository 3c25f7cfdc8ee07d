"""Reports over analysis results: rows/Markdown/CSV/JSON (``tables``), Table 3 (``examples``),
figures (``figures``, matplotlib imported lazily) and :func:`~tokstudy.report.writer.write_report`."""
