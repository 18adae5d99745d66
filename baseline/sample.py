"""A seeded sample of the benchmark spread over monsters and sub-tasks (``mhmmkg run --sample N``).

``--limit N`` takes the first N ids, which are the first monster or two; a sample should show
every sub-task and as many monsters as N allows. The queries are grouped into cells (monster,
sub-task), each cell's queries shuffled with the seed. Then, one query at a time, the next query
is taken from the cell whose sub-task has been taken least so far, then whose monster has been
taken least, ties broken by a seeded random order of the cells. So the sub-tasks get equal
shares (as far as each has queries), the monsters are spread as evenly as that allows, and the
same seed and benchmark give the same sample. The chosen queries keep the benchmark's order.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from mhmmkg.kg.model import Query


def stratified_sample(queries: Sequence[Query], n: int, seed: int = 0) -> list[Query]:
    """``n`` queries (all of them when there are fewer), stratified as the module docstring says."""
    rng = random.Random(seed)
    cells: dict[tuple[str, int], list[Query]] = {}
    for query in queries:
        cells.setdefault((query.monster, query.subtask), []).append(query)
    for pool in cells.values():
        rng.shuffle(pool)
    tiebreak = {cell: rng.random() for cell in sorted(cells)}
    by_subtask: Counter = Counter()
    by_monster: Counter = Counter()
    chosen: set[str] = set()
    while len(chosen) < n:
        open_cells = [cell for cell, pool in cells.items() if pool]
        if not open_cells:
            break
        monster, subtask = min(open_cells, key=lambda c: (by_subtask[c[1]], by_monster[c[0]], tiebreak[c]))
        chosen.add(cells[monster, subtask].pop().id)
        by_subtask[subtask] += 1
        by_monster[monster] += 1
    return [q for q in queries if q.id in chosen]
