"""Reports over analysis results, the layer between the analysis library and the study.

The typed result of a report and its files (``result``: a ``Table`` per table, written and read back in one
place), each table made from the analysis results (``build``; rows and Markdown in ``tables``), the report
assembler (``assemble``: a result as sections, sections as Markdown + standalone HTML rendered by ``html``),
Table 3 (``table3``), the attribution section (``attribution``), figures (``figures``, matplotlib imported
lazily) and :func:`~tokstudy.report.writer.write_report` (``tokstudy report``). The study reads its tables
back as the same result and adds its own sections (:mod:`tokstudy.study.report_sections`)."""
