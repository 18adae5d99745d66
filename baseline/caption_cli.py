"""Pre-extract a model's captions of the KG media, blind to any query (the unaided_offline setting).

Writes a JSON file {"model": ..., "captions": {entity id: caption}} that
`mhmmkg run --setting unaided_offline --captions FILE` uses. Replies are cached, so running it
again, or a run that makes the same captions itself, calls the model only once per entity.

Example:
  mhmmkg caption --model openai --base-url http://127.0.0.1:8000/v1 --model-name Qwen2.5-VL-7B \\
      --out captions.json
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mhmmkg import load_graph
from mhmmkg.errors import UserError
from mhmmkg.files.outputs import add_force_argument, claim_output_file

from .agents import Agents
from .media import MediaStore
from .options import COMMON, MODEL, values_from
from .run_cli import add_common_arguments, add_model_arguments
from .runner import RunOptions, caption_kg, make_backends, write_json


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, metavar="FILE", help="captions file to write (JSON)")
    add_common_arguments(parser)
    add_model_arguments(parser)
    add_force_argument(parser)


def run(args: argparse.Namespace) -> int:
    options = RunOptions(setting="unaided_offline", out=args.out, **values_from(args, (COMMON, MODEL)))
    claim_output_file(args.out, "captions", inputs=[args.dataset], force=args.force)
    graph = load_graph(args.dataset)
    media = MediaStore(args.dataset, [])
    if not media.entities_with_media():
        raise UserError(f"dataset {args.dataset}: its knowledge graph has no media (images or keyframes) to caption")
    backends, caches = make_backends(options)
    try:
        def agents_for(query_id):
            return Agents(backends, query_id=query_id, temperature=args.temperature, max_tokens=args.max_tokens,
                          seed=args.seed)

        captions = caption_kg(graph, media, agents_for, options)
    finally:
        for cache in caches:
            cache.close()
    write_json(args.out, {"model": backends("captioner").fingerprint, "captions": captions})
    if not args.quiet:
        print(f"mhmmkg caption: {len(captions)} captions written", file=sys.stderr)
    print(args.out)
    return 0
