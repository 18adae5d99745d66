"""The tools a user would reach for instead of a verb, each run as its own process by
``bench_scale.py`` beside the verb it stands for (issue 23):

    python bench/peers.py floor DIR               read every Parquet file of the dataset: pq.ParquetFile(f).read()
    python bench/peers.py rows DIR ROWS           (not timed) the rows of each table of a built dataset, pickled
    python bench/peers.py build ROWS OUT          datasets.Dataset.from_list(rows).to_parquet, per table
    python bench/peers.py evaluate SUB DIR [OUT]  a pyarrow + numpy scorer of Acc., Pre. and Rec. (OUT: JSON of them)

The scorer accepts an answer equal to the reference, or to the reference after the monster's
name, once both are normalised, and matches paths as whole sequences (each predicted path
used once). On the bench's submission it gives the Pre./Rec. of ``mhmmkg evaluate``; its Acc.
is lower (60.2 against 66.5 at 100x), because evaluate judges by the queries' answer keys
(a name or alias of the key entity, no rival) where this scorer compares texts; the bench
prints both. None of these imports mhmmkg.
"""
from __future__ import annotations

import glob
import json
import pickle
import re
from collections import Counter

import pyarrow.parquet as pq


def parquet_files(folder: str, config: str = "**") -> list[str]:
    return sorted(glob.glob(f"{folder}/data/{config}/*.parquet", recursive=True))


def floor(folder: str) -> None:
    for file in parquet_files(folder):
        pq.ParquetFile(file).read()


def rows(folder: str, out: str) -> None:
    tables = {file.split("/data/", 1)[1]: pq.ParquetFile(file).read().to_pylist() for file in parquet_files(folder)}
    with open(out, "wb") as f:
        pickle.dump(tables, f, protocol=pickle.HIGHEST_PROTOCOL)


def build(rows_file: str, out: str) -> None:
    import os

    import datasets

    with open(rows_file, "rb") as f:
        tables = pickle.load(f)
    for name, table in tables.items():
        path = f"{out}/{name}"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        datasets.Dataset.from_list(table).to_parquet(path)


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def evaluate(submission: str, folder: str, out: str | None = None) -> dict:
    import numpy as np

    names = {}
    for file in parquet_files(folder, "attributes"):
        table = pq.ParquetFile(file).read(columns=["id", "name", "type"]).to_pydict()
        names.update((i, n) for i, n, t in zip(table["id"], table["name"], table["type"]) if t == "monster")
    truth = {}
    for file in parquet_files(folder, "queries"):
        table = pq.ParquetFile(file).read(columns=["id", "answer", "monster", "paths"]).to_pydict()
        truth.update((i, (a, m, p)) for i, a, m, p in zip(table["id"], table["answer"], table["monster"], table["paths"]))
    predicted = {}
    with open(submission, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            predicted[record["query_id"]] = record
    acc, precision, recall = np.zeros(len(truth)), np.zeros(len(truth)), np.zeros(len(truth))
    for k, (query_id, (answer, monster, paths)) in enumerate(truth.items()):
        record = predicted.get(query_id, {"answer": "", "paths": []})
        reference = _normalise(answer)
        acc[k] = _normalise(record["answer"]) in (reference, _normalise(f"{names.get(monster, '')} {answer}"))
        matched = sum((Counter(map(tuple, paths)) & Counter(map(tuple, record["paths"]))).values())
        precision[k] = matched / len(record["paths"]) if record["paths"] else 0.0
        recall[k] = matched / len(paths) if paths else 0.0
    scores = {"acc": float(acc.mean()), "precision": float(precision.mean()), "recall": float(recall.mean())}
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(scores, f)
    return scores


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("floor", help="read every Parquet file of a built dataset").add_argument("folder")
    command = commands.add_parser("rows", help="pickle the rows of each table of a built dataset (not timed)")
    command.add_argument("folder")
    command.add_argument("out")
    command = commands.add_parser("build", help="write pickled rows with datasets.Dataset.from_list(...).to_parquet")
    command.add_argument("rows_file")
    command.add_argument("out")
    command = commands.add_parser("evaluate", help="score a submission's Acc./Pre./Rec. with pyarrow + numpy")
    command.add_argument("submission")
    command.add_argument("folder")
    command.add_argument("out", nargs="?", help="JSON file for the three scores")
    args = vars(parser.parse_args())
    {"floor": floor, "rows": rows, "build": build, "evaluate": evaluate}[args.pop("command")](**args)


if __name__ == "__main__":
    main()
