"""The authors' protocol in one place: everything that reads, writes or reproduces what the authors
of MH-MMKG released, on top of core, ``builders``, ``baseline`` and ``eval`` (it may import them;
they reach it only through registry entries holding a lazy ``"mhmmkg.official.<module>:<attr>"``
and the command line's verb table, or by importing it inside the function that needs it).

- ``release``: their release (workbooks, KG rows, media, questions, routes) -> a curated
  sources folder (``mhmmkg import-official``), and the curators' route report (``compat``);
- ``prompts`` and ``import_prompts``: their prompts, read from their code into a prompt set
  (``mhmmkg import-official-prompts``);
- ``search``: their search (``run --search official``);
- ``results``: their result files and question list where ``evaluate`` meets them, and the
  converters (``import-official-results``, ``export-official-results``);
- ``protocol``: their conventions (query ids of a repeated File, mode names) and their scoring
  policy (``evaluate --protocol authors``);
- ``style``: their question text (``run --question-style official``).
"""
