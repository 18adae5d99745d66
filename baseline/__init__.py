"""The reference baseline: the paper's training-free multi-agent retriever over MH-MMKG.

Modules, in the order data flows through them:

- ``settings``: the six experimental settings and the options of one run;
- ``prompts``: the prompt sets (ours, ``prompt_sets/default.json``, or one given with ``--prompts``);
- ``agents``: one chat call per agent step, with parsing of the replies and call records;
- ``offline``: the deterministic offline model (a chat backend, no network);
- ``search``: the search strategies: ours (breadth-first / depth-first) and the authors' (``official``);
- ``media``: query and KG images for the vision settings;
- ``pipeline``: how one query is answered in each setting;
- ``runner``: the run folder, resume, the thread pool and the submission;
- ``run_cli`` / ``caption_cli``: the ``mhmmkg run`` and ``mhmmkg caption`` verbs.

It talks to models only through ``mhmmkg.chat`` and never imports ``mhmmkg.eval``: a run
writes a submission file, and the evaluator scores it.
"""
