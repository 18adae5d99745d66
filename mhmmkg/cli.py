"""``mhmmkg <verb>``: the one place that wires every part of the package together.

Each verb lives in the module named in VERBS, which defines ``configure(parser)`` (its
arguments) and ``run(args) -> int`` (exit code). A module is imported only when its verb runs.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .errors import UserError, is_user_os_error, os_error_message

VERBS: dict[str, tuple[str, str]] = {
    "build": ("mhmmkg.builders.build", "validate curated sources and build the dataset folder"),
    "info": ("mhmmkg.kg.stats", "print the statistics of a dataset (entities, edges, queries, knowledge depth)"),
    "validate": ("mhmmkg.eval.validate_cli", "check a submission file against the benchmark"),
    "evaluate": ("mhmmkg.eval.evaluate_cli", "score a submission: accuracy, path precision/recall, breakdowns"),
    "evaluate-retrieval": ("mhmmkg.eval.retrieval_cli",
                           "score a ranking of KG entities per query: Recall@k, nDCG@k, MRR (retrieval alone)"),
    "judge-agreement": ("mhmmkg.eval.agreement_cli", "measure how well a judge agrees with people's verdicts on labelled replies"),
    "report": ("mhmmkg.eval.report_cli", "write one self-contained HTML report: leaderboard and per-query browser"),
    "run": ("mhmmkg.baseline.run_cli", "run the multi-agent baseline and write a submission"),
    "rank": ("mhmmkg.baseline.rank_cli", "rank the KG's entities for every query: a baseline run (BM25 or a local dense model)"),
    "caption": ("mhmmkg.baseline.caption_cli", "pre-extract model captions of KG media (unaided_offline setting)"),
    "audit": ("mhmmkg.builders.audit.cli", "check curated sources against the game tables; near-copy captions; recognition shortcut"),
    "import-official": ("mhmmkg.official.release.import_release", "convert the authors' original release into curated sources"),
    "import-official-results": ("mhmmkg.official.results.import_results", "convert an official prediction file into a submission"),
    "import-official-prompts": ("mhmmkg.official.import_prompts",
                                "read the authors' prompts from their code into a prompt-set file (never run)"),
    "export-official-results": ("mhmmkg.official.results.export_results", "write a submission as a result file of the authors' code"),
    "export": ("mhmmkg.interop.exports", "export the KG as GraphML, triples, RDF, JSONL documents, Neo4j/kuzu CSV or a BEIR retrieval task"),
    "push": ("mhmmkg.dataset.hub", "upload a built dataset folder to the Hugging Face Hub"),
    "draw": ("mhmmkg.kg.draw", "draw a monster's subgraph as an SVG or PNG picture"),
    "demo": ("mhmmkg.demo", "build the default dataset, run the offline baseline, evaluate, print the table"),
}


def _module(verb: str):
    return importlib.import_module(VERBS[verb][0])


def build_parser(selected: str | None = None, *, alone: bool = False) -> argparse.ArgumentParser:
    """The parser of every verb; only the ``selected`` verb's module is imported (and configured),
    so a command does not pay for importing the whole package. With ``alone``, the other verbs are
    left out: a command line that starts with the selected verb never reaches them."""
    parser = argparse.ArgumentParser(
        prog="mhmmkg",
        description="MH-MMKG: build, load, validate and evaluate the Monster Hunter multimodal "
                    "knowledge-graph benchmark, and run its reference baseline.",
        epilog="Run 'mhmmkg VERB --help' for the options of one verb. Errors in your input end "
               "with a message naming the file and place, and exit code 2.",
    )
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, (_, summary) in VERBS.items():
        if verb != selected:
            if not alone:
                sub.add_parser(verb, help=summary, description=summary)
            continue
        module = _module(verb)
        verb_parser = sub.add_parser(verb, help=summary, description=(module.__doc__ or summary).strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
        module.configure(verb_parser)
    return parser


def _selected_verb(argv: list[str]) -> str | None:
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    """Run one verb (``argv``: the command line after the program name; default ``sys.argv[1:]``)
    and return its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    verb = _selected_verb(argv)
    try:        # importing a verb's module can take a while: Ctrl-C then is no error either
        args = build_parser(verb if verb in VERBS else None, alone=argv[:1] == [verb]).parse_args(argv)
    except KeyboardInterrupt:
        print(f"mhmmkg{' ' + verb if verb in VERBS else ''}: interrupted", file=sys.stderr)
        return 130
    try:
        return _module(args.verb).run(args) or 0
    except UserError as exc:
        print(f"mhmmkg {args.verb}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"mhmmkg {args.verb}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``mhmmkg audit | head``): stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        if not is_user_os_error(exc):
            raise
        # a place the user pointed us at that cannot be read or written (outputs are written
        # atomically, so nothing half-written is left behind)
        print(f"mhmmkg {args.verb}: error: {os_error_message(exc, action='cannot read or write')}", file=sys.stderr)
        return 2


def entry() -> None:
    """The ``mhmmkg`` command: ``main`` in a process that ends with it (a verb may leave the
    objects it is done with to the operating system: ``collector.leave_to_exit``)."""
    from .collector import ending_process

    ending_process()
    sys.exit(main())


if __name__ == "__main__":
    entry()
