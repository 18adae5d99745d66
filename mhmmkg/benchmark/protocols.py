"""Three named protocols for running and scoring the benchmark (``--protocol`` of ``run`` and ``evaluate``).

- ``ours`` (the default): the project's choices, where we think they are better;
- ``paper``: the paper's text where it is specific (search of section 4.1, one-to-one path
  matching of supplement 2.2); where the paper is silent, the authors' question text and ours
  otherwise;
- ``authors``: the authors' released code (their ``main.py`` search and ``evaluation.py``
  scoring, quirks included: only an exact "Yes" from the judge counts, routes are compared as
  name strings, predictions that are missing are skipped).

A protocol only fills the options the user did not give: every choice keeps its own flag, and
an explicit flag wins. ``evaluate --protocol FILE.py:NAME`` scores by a ``ScoringPolicy`` of
one's own (``mhmmkg.benchmark.scoring``); ``run --protocol`` takes the three names.
``docs/reproducing.md`` has the full table, with the deviations left.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping

from ..errors import UserError
from ..registry import Lazy, Registry
from .render import STYLES
from .scoring import ScoringPolicy

PROTOCOLS = ("ours", "paper", "authors")
DEFAULT_PROTOCOL = "ours"

#: ``mhmmkg run``: argparse destination -> value, per protocol (None for a limit means no limit)
RUN_CHOICES: Mapping[str, Mapping[str, object]] = {
    "ours": {"search": "bfs", "alpha": 5, "max_depth": 4, "path_budget": 10, "question_style": "open",
             "replies": "lenient"},
    "paper": {"search": "paper", "alpha": 5, "max_depth": None, "path_budget": None, "question_style": "official",
              "replies": "lenient"},
    "authors": {"search": "official", "alpha": 5, "max_depth": None, "path_budget": None,
                "question_style": "official", "replies": "exact"},
}

#: ``mhmmkg evaluate``: the scoring policy of each protocol (``mhmmkg.scoring``), chosen by --protocol
SCORING = Registry("protocol", "--protocol", {
    "ours": ScoringPolicy("ours"),
    "paper": ScoringPolicy("paper", question_style="official"),     # supplement 2.2 matches one to one
    "authors": Lazy("mhmmkg.official.protocol:AUTHORS_SCORING"),
}, plugins=ScoringPolicy)


class _PolicyOptions(Mapping[str, Mapping[str, object]]):
    """The evaluate options of each scoring policy, a plug-in's (``FILE.py:NAME``) included."""

    def __getitem__(self, name: str) -> Mapping[str, object]:
        policy = SCORING.resolve(name)
        try:
            STYLES.resolve(policy.question_style)       # the judge's question style must be there too
        except UserError as exc:
            raise UserError(f"--protocol {name}: its question style: {exc}") from None
        return policy.options()

    def __iter__(self) -> Iterator[str]:
        return iter(SCORING)

    def __len__(self) -> int:
        return len(SCORING)


#: ``mhmmkg evaluate``: argparse destination -> value, per protocol
EVALUATE_CHOICES: Mapping[str, Mapping[str, object]] = _PolicyOptions()

PROTOCOL_HELP = ("ours (default): the project's choices; paper: the paper's text where it is specific "
                 "(section 4.1 search, one-to-one path matching); authors: the authors' released code "
                 "(their search, exact-'Yes' judge, route names as strings, missing predictions skipped). "
                 "It sets only the options you do not give")


def add_protocol_argument(parser: argparse.ArgumentParser) -> None:
    """``evaluate --protocol``: a registered scoring policy or one of one's own."""
    parser.add_argument("--protocol", type=SCORING.check, metavar=SCORING.metavar(), default=None,
                        help=PROTOCOL_HELP + "; or a ScoringPolicy of your own (FILE.py:NAME or MODULE:NAME, "
                        "see mhmmkg.benchmark.scoring)")


def resolve(args: argparse.Namespace, choices: Mapping[str, Mapping[str, object]]) -> dict[str, object]:
    """Fill every option of ``choices`` left at None (not given) from the protocol in ``args``;
    set ``args.protocol`` to its name; return the options the protocol set (for the record)."""
    if args.protocol is None:
        args.protocol = DEFAULT_PROTOCOL
    filled = {}
    for dest, value in choices[args.protocol].items():
        if getattr(args, dest, None) is None:
            setattr(args, dest, value)
            filled[dest] = value
    return filled
