"""Write a submission as a result file of the authors' code, the file their evaluation.py reads.

The file is a JSON object keyed by the question list's File. Settings without retrieval
(vanilla, vanilla_plus, know) give the answer string, as the authors' main.py writes them;
the others give {"Answer": ..., "Route": [[entity keys, root first], ...], "Description":
[{entity key: generated caption}, ...]} with one Description object per route.

Entity keys spell names as the KG does: the current monster's name, a space and the entity's
name, except for monsters and names holding "Element" or "Pierce Pod"; a monster on a route
becomes the prefix of the entities after it. `mhmmkg import-official-results` reads the file
back into the same submission (for the no-retrieval settings: answers only, as the format has
no routes for them).

File: with --question-list, the File of the row each query was imported from (a File that the
list repeats keeps the prediction of its last row, as the authors' code does); otherwise the
File an imported prediction came from, else the query id.

Example:
  mhmmkg export-official-results runs/qwen-perceptive/submission.jsonl --dataset mh-mmkg-official \
      --question-list MH-MMKG/questions_mh/question_list.xlsx --out "results/qwen_self Search.json"
"""
from __future__ import annotations

import argparse
from pathlib import Path

from mhmmkg.files.atomic import atomic_write_json
from mhmmkg.errors import UserError
from mhmmkg.files.outputs import add_force_argument, claim_output_file
from mhmmkg.files.submission_file import meta_path

from ..protocol import ANSWER_ONLY_SETTINGS, OFFICIAL_MODES, official_query_id, repeated_id
from ..release.routes import route_keys
from .import_results import setting_name


def files_by_query(rows: list[dict]) -> dict[str, str]:
    """Query id -> File for the rows of a question list, numbered as ``import-official`` numbers them."""
    out: dict[str, str] = {}
    for row in rows:
        file = row.get("File")
        if file is None:
            continue
        qid = official_query_id(str(file))
        out[repeated_id(qid, out) if qid in out else qid] = str(file)
    return out


def official_entry(prediction, kg, monster_name: str | None, answer_only: bool):
    """One value of the authors' result object for a checked prediction."""
    if answer_only:
        return prediction.answer
    routes = [route_keys(kg, path, monster_name) for path in prediction.paths]
    descriptions = [{key: prediction.captions[e] for key, e in zip(keys, path) if e in prediction.captions}
                    for keys, path in zip(routes, prediction.paths)]
    return {"Answer": prediction.answer, "Route": routes, "Description": descriptions}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submission", metavar="SUB.jsonl", help="the submission to convert")
    parser.add_argument("--out", required=True, type=Path, metavar="RESULT.json", help="result file to write")
    parser.add_argument("--dataset", default="mh-mmkg", metavar="DIR",
                        help="the benchmark the submission is for (names and Files come from it; default mh-mmkg)")
    parser.add_argument("--question-list", type=Path, metavar="XLSX",
                        help="the authors' question_list.xlsx the dataset was imported from: restores each File")
    parser.add_argument("--setting", help="the run's setting (ours or an official mode name; default: from the "
                                          "run metadata); decides between answer strings and route objects")
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    from mhmmkg.eval.submission import SubmissionChecker
    from mhmmkg.dataset.loading import load_graph, load_queries

    source = Path(args.submission)
    if args.out.resolve() in (source.resolve(), meta_path(source).resolve()):
        raise UserError(f"{args.out}: --out would overwrite the submission it is made from; choose another file")
    claim_output_file(args.out, "official-results", inputs=[source, meta_path(source), args.dataset, args.question_list],
                      force=args.force)
    graph, queries = load_graph(args.dataset), load_queries(args.dataset)
    checked = SubmissionChecker(graph, queries).check_file(source)
    checked.raise_if_invalid()
    setting = setting_name(args.setting) if args.setting else checked.run_meta.get("setting")
    if setting is None:
        raise UserError(f"{source}: no run metadata names the setting; give --setting "
                        f"({', '.join(OFFICIAL_MODES.values())})")
    setting = setting_name(setting)
    files = {}
    if args.question_list:
        from ..release.workbooks import read_question_list

        files = files_by_query(read_question_list(args.question_list))
    result: dict = {}
    for query in queries:
        prediction = checked.predictions.get(query.id)
        if prediction is None:
            continue
        file = files.get(query.id) or prediction.meta.get("official_file") or query.id
        name = graph.entity(query.monster).name if query.monster in graph else None
        result[file] = official_entry(prediction, graph, name, setting in ANSWER_ONLY_SETTINGS)
    atomic_write_json(args.out, result)
    mode = next(m for m, s in OFFICIAL_MODES.items() if s == setting)
    print(f"wrote {args.out} ({len(result)} predictions in the authors' format, mode {mode!r})")
    return 0
