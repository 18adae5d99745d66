"""``mhmmkg <verb>``: the one place that wires every part of the package together.

Each verb lives in the module named in VERBS, which defines ``configure(parser)`` (its
arguments) and ``run(args) -> int`` (exit code). Modules are imported only when their verb runs.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .errors import UserError

VERBS: dict[str, tuple[str, str]] = {
    "build": ("mhmmkg.builders.build", "validate curated sources and build the dataset folder"),
    "info": ("mhmmkg.stats", "print the statistics of a dataset (entities, edges, queries, knowledge depth)"),
    "validate": ("mhmmkg.eval.validate_cli", "check a submission file against the benchmark"),
    "evaluate": ("mhmmkg.eval.evaluate_cli", "score a submission: accuracy, path precision/recall, breakdowns"),
    "run": ("mhmmkg.baseline.run_cli", "run the multi-agent baseline and write a submission"),
    "caption": ("mhmmkg.baseline.caption_cli", "pre-extract model captions of KG media (unaided_offline setting)"),
    "import-official": ("mhmmkg.builders.import_official", "convert the authors' original release into curated sources"),
    "import-official-results": ("mhmmkg.builders.import_results", "convert an official prediction file into a submission"),
    "export": ("mhmmkg.exports", "export the KG as GraphML, triples, JSONL documents or Neo4j CSV"),
    "push": ("mhmmkg.hub", "upload a built dataset folder to the Hugging Face Hub"),
    "draw": ("mhmmkg.draw", "draw a monster's subgraph as an SVG or PNG picture"),
    "demo": ("mhmmkg.demo", "build the default dataset, run the offline baseline, evaluate, print the table"),
}


def _available() -> dict[str, object]:
    modules = {}
    for verb, (name, _) in VERBS.items():
        try:
            modules[verb] = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return modules


def build_parser(modules: dict[str, object]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mhmmkg",
        description="MH-MMKG: build, load, validate and evaluate the Monster Hunter multimodal "
                    "knowledge-graph benchmark, and run its reference baseline.",
        epilog="Run 'mhmmkg VERB --help' for the options of one verb. Errors in your input end "
               "with a message naming the file and place, and exit code 2.",
    )
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, module in modules.items():
        summary = VERBS[verb][1]
        doc = (module.__doc__ or summary).strip()
        verb_parser = sub.add_parser(verb, help=summary, description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
        module.configure(verb_parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    modules = _available()
    args = build_parser(modules).parse_args(argv)
    try:
        return modules[args.verb].run(args) or 0
    except UserError as exc:
        print(f"mhmmkg {args.verb}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"mhmmkg {args.verb}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
