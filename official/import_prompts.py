"""Import the authors' prompts from their code into a prompt-set file for `mhmmkg run --prompts`
and `mhmmkg evaluate --judge openai --judge-prompts`.

PATH is the folder of the authors' code (the one holding things/templates.py and
evaluation.py). The files are read with Python's ast module and never imported or run; the
texts stay on your machine (mhmmkg does not ship them). The set holds one template per agent
and case (scene described or not, frames attached or not, ...), the reply shapes the authors'
prompts ask for, and the SHA-256 of the files it was read from.

Example:
  mhmmkg import-official-prompts ~/MH-MMKG --out official-prompts.json
  mhmmkg run --setting perceptive --model openai --model-name gpt-4o --api-key-env OPENAI_API_KEY \\
      --search official --prompts official-prompts.json --out runs/gpt4o-paper
"""
from __future__ import annotations

import argparse
from pathlib import Path

from mhmmkg.errors import UserError
from mhmmkg.files.outputs import add_force_argument, claim_output_file
from mhmmkg.llm.prompt_sets import prompt_set_from_dict

from .prompts import EVALUATION, TEMPLATES, import_prompts


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", type=Path, metavar="PATH", help="folder of the authors' code (holds things/templates.py)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="prompt-set file to write (JSON)")
    add_force_argument(parser)


def check_output(out: Path, repo: Path, force: bool = False) -> None:
    """Never overwrite the authors' files, nor a file that is not a prompt set (unless forced)."""
    resolved = out.resolve()
    if resolved in {(repo / TEMPLATES).resolve(), (repo / EVALUATION).resolve()}:
        raise UserError(f"{out}: is one of the files read; choose another --out")
    claim_output_file(out, "prompt-set", inputs=[repo], force=force)


def run(args: argparse.Namespace) -> int:
    check_output(args.out, args.repo, args.force)
    document = import_prompts(args.repo)
    prompts = prompt_set_from_dict(document, str(args.out))
    prompts.write(args.out)
    count = sum(len(a.templates) for a in prompts.agents.values())
    print(f"mhmmkg import-official-prompts: {len(prompts.agents)} agents, {count} templates, "
          f"sha256 {prompts.sha256[:12]}", flush=True)
    print(args.out)
    return 0
