"""Convert a prediction file of the authors' code into a submission that `mhmmkg evaluate` scores.

The authors' results are JSON objects keyed by the question list's File: a plain answer string
(settings without retrieval) or {"Answer": ..., "Route": [[entity keys, root first], ...],
"Description": [{entity key: generated caption}, ...]}. Each becomes one submission line:
query_id (the id `mhmmkg import-official` gives that File), answer, paths (entity ids),
topic (root of the first route) and captions; a SUB.meta.json side file records the setting,
the model and the source file.

Entity keys such as "Zinogre Double Slam" are resolved by name and alias in --kg (the KG the
predictions will be scored against; recommended). Without --kg, or for a key the KG does not
know, the id is worked out from the key the way import-official names entities; such paths
still count in precision: `mhmmkg evaluate --official` scores them as matching nothing, as the
authors' script does (the default evaluation refuses paths outside the KG).

`mhmmkg export-official-results` writes a submission in this format.

--setting takes our setting names or the authors' mode names ("Direct Vision-needed",
"Direct", "Perfect", "self Search", "Offline", "Online Vision-needed"); without it, the mode is
read from a file named like the authors' "<model>_<mode>.json".

Example:
  mhmmkg import-official-results "results/gpt-4o_self Search.json" --kg mh-mmkg-official --out gpt4o-perceptive.jsonl
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from mhmmkg import __version__
from mhmmkg.errors import InvalidInput, Problem, UserError, json_pointer
from mhmmkg.files.jsontext import read_json_file
from mhmmkg.files.outputs import add_force_argument, claim_output_file
from mhmmkg.files.submission_file import meta_path, write_submission

from ..protocol import OFFICIAL_MODES, official_query_id, repeat_group
from ..release.kg import guess_entity_id
from ..release.routes import KeyResolver

SETTINGS: tuple[str, ...] = tuple(OFFICIAL_MODES.values())


def setting_name(value: str) -> str:
    """Our setting for one of ours or one of the authors' mode names (case and '-'/'_' ignored)."""
    def norm(text: str) -> str:
        return " ".join(text.lower().replace("_", " ").replace("-", " ").split())
    for name in SETTINGS:
        if norm(name) == norm(value):
            return name
    for mode, name in OFFICIAL_MODES.items():
        if norm(mode) == norm(value):
            return name
    raise UserError(f"unknown setting {value!r}: use one of {', '.join(SETTINGS)} "
                    f"or an official mode name ({', '.join(OFFICIAL_MODES)})")


def infer_run(path: Path) -> tuple[str | None, str | None]:
    """(setting, model) from an official result name "<model>_<mode>.json", or (None, None)."""
    for mode in sorted(OFFICIAL_MODES, key=len, reverse=True):
        if path.stem.endswith("_" + mode):
            return OFFICIAL_MODES[mode], path.stem[: -len(mode) - 1] or None
    return None, None


@dataclass
class Conversion:
    lines: list[dict]
    unresolved: dict[str, int] = field(default_factory=dict)


def read_predictions(path: Path) -> dict:
    doc = read_json_file(path, "official prediction file")
    if not isinstance(doc, dict):
        raise InvalidInput([Problem(str(path), "", "expected a JSON object keyed by the question list's File")],
                           "official prediction file")
    return doc


def query_id_for(file: str, known: set[str] | None) -> str:
    """Our query id for a prediction's File.

    When the question list repeats a File, import-official numbers the later rows (``<id>-2``,
    ...). The authors' code overwrote the prediction of the earlier row with the later one's,
    so the prediction belongs to the last of them.
    """
    qid = official_query_id(file)
    if known is None or qid not in known:
        return qid
    return repeat_group(qid, known)[-1]


def convert_predictions(doc: dict, source: str, resolve, known_queries: set[str] | None = None) -> Conversion:
    """Official predictions -> submission lines; ``resolve(key)`` gives an id or None."""
    problems, lines = [], []
    unresolved: dict[str, int] = {}
    seen: dict[str, str] = {}

    def entity(key: str) -> str:
        found = resolve(key)
        if found is None:
            unresolved[key] = unresolved.get(key, 0) + 1
            return guess_entity_id(key)
        return found

    for file, value in doc.items():
        where = json_pointer(file)
        qid = query_id_for(file, known_queries)
        if not qid:
            problems.append(Problem(source, where, "the key has no letters or digits to make a query id from"))
            continue
        if qid in seen:
            problems.append(Problem(source, where, f"gives query id {qid!r} like {seen[qid]!r}"))
            continue
        seen[qid] = file
        line = {"query_id": qid}
        if isinstance(value, str):
            line.update(answer=value, paths=[])
        elif isinstance(value, dict):
            routes, descriptions = value.get("Route") or [], value.get("Description") or []
            answer = value.get("Answer")
            bad = []
            if not isinstance(answer, str):
                bad.append("'Answer' must be a string")
            if not (isinstance(routes, list) and all(isinstance(r, list) and r and all(isinstance(k, str) for k in r)
                                                     for r in routes)):
                bad.append("'Route' must be a list of non-empty lists of entity keys")
            if not (isinstance(descriptions, list) and all(isinstance(d, dict) for d in descriptions)):
                bad.append("'Description' must be a list of objects {entity key: caption}")
            if bad:
                problems += [Problem(source, where, reason) for reason in bad]
                continue
            paths = [[entity(k) for k in route] for route in routes]
            line.update(answer=answer, paths=paths)
            if paths:
                line["topic"] = paths[0][0]
            captions = {entity(k): c.strip() for d in descriptions for k, c in d.items()
                        if isinstance(c, str) and c.strip()}
            if captions:
                line["captions"] = dict(sorted(captions.items()))
        else:
            problems.append(Problem(source, where, f"expected an answer string or an object with 'Answer' "
                                                   f"and 'Route', not {type(value).__name__}"))
            continue
        line["meta"] = {"official_file": file}
        lines.append(line)
    if problems:
        raise InvalidInput(problems, "official prediction file")
    return Conversion(lines, unresolved)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("predictions", metavar="FILE.json", help="a result file of the authors' code")
    parser.add_argument("--out", required=True, metavar="SUB.jsonl", help="submission file to write")
    parser.add_argument("--setting", help=f"the run's setting: {', '.join(SETTINGS)} or an official mode name "
                                          "(default: read from the file name)")
    parser.add_argument("--model", help="model name for the run metadata (default: read from the file name)")
    parser.add_argument("--kg", help="KG to resolve entity keys in (a built dataset folder, a sources folder or "
                                     "a Hub id), normally the one the submission will be scored against")
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    path = Path(args.predictions)
    inferred_setting, inferred_model = infer_run(path)
    if args.setting:
        setting = setting_name(args.setting)
    elif inferred_setting:
        setting = inferred_setting
    else:
        raise UserError(f"{path}: give --setting ({', '.join(SETTINGS)}); the file name does not end in an official mode")
    for out, kind in ((args.out, "submission"), (meta_path(args.out), "run-metadata")):
        claim_output_file(out, kind, inputs=[path, args.kg], force=args.force)
    doc = read_predictions(path)
    resolve, known_queries, fingerprint = (lambda key: None), None, None
    if args.kg:
        from mhmmkg.dataset.loading import load_graph, load_queries

        from mhmmkg.dataset.manifest import build_fingerprint

        kg = load_graph(args.kg)
        resolve = KeyResolver(kg)
        try:
            known_queries = {q.id for q in load_queries(args.kg)}
        except UserError:
            known_queries = None
        fingerprint = build_fingerprint(args.kg) if Path(args.kg).is_dir() else None
    conversion = convert_predictions(doc, str(path), resolve, known_queries)
    meta = {"model": args.model or inferred_model or "unknown", "setting": setting,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "mhmmkg_version": __version__, "source": f"official prediction file {path.name}"}
    if fingerprint:
        meta["dataset_fingerprint"] = fingerprint
    write_submission(args.out, conversion.lines, meta)
    meta_file = meta_path(args.out)
    if args.kg and conversion.unresolved:
        keys = sorted(conversion.unresolved)
        shown = ", ".join(repr(k) for k in keys[:10]) + (f", ... ({len(keys) - 10} more)" if len(keys) > 10 else "")
        print(f"warning: {len(keys)} entity key(s) not in {args.kg}, kept as guessed ids: {shown}; "
              f"'mhmmkg evaluate --official' scores their paths as unmatched, as the authors' script does",
              file=sys.stderr)
    if known_queries is not None:
        unknown = [line["query_id"] for line in conversion.lines if line["query_id"] not in known_queries]
        if unknown:
            print(f"warning: {len(unknown)} prediction(s) for queries not in {args.kg}: {', '.join(unknown[:10])}",
                  file=sys.stderr)
    routed = sum(1 for line in conversion.lines if line["paths"])
    print(f"wrote {args.out} ({len(conversion.lines)} predictions, {routed} with retrieved paths; "
          f"setting {setting}) and {meta_file}")
    return 0
