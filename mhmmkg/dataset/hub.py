"""Upload a built dataset folder to the Hugging Face Hub as a dataset repository.

Before anything is sent, the folder is checked against its manifest: every file is hashed
again and must be exactly the set the manifest lists, with the fingerprint of that set. Each
file is then uploaded under its own literal path (no glob patterns), and Parquet files of
earlier builds under data/ are removed from the repository in the same commit. The card's
loading examples are pointed at the repository (`load_dataset("ORG/NAME", ...)`) in the copy that
is uploaded. Log in first with `hf auth login` (or set HF_TOKEN).

Example:
  mhmmkg build && mhmmkg push --repo-id my-org/mh-mmkg
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UserError
from .manifest import build_fingerprint, verified_files


LOCAL_NAME = "mh-mmkg"


def card_for_repo(card: bytes, repo_id: str) -> bytes:
    """The card with its loading examples pointed at ``repo_id`` instead of the local folder name,
    so that the code on the Hub page runs as shown there."""
    text = card.decode("utf-8")
    for call in ("load_dataset(", "load_graph(", "load_queries(", "Evaluator("):
        text = text.replace(f'{call}"{LOCAL_NAME}"', f'{call}"{repo_id}"')
    return text.encode("utf-8")


def commit_plan(files: list[str], remote_files: list[str]) -> tuple[list[str], list[str]]:
    """(paths to upload, remote paths to delete): stale data/**.parquet files of earlier builds."""
    upload = set(files)
    stale = sorted(f for f in remote_files if f.startswith("data/") and f.endswith(".parquet") and f not in upload)
    return sorted(files), stale


def push_dataset(folder: str | Path, repo_id: str, *, private: bool = False, api=None) -> str:
    """Create (if needed) the dataset repo and upload the build in one commit; returns the repo URL."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi

    folder = Path(folder)
    files = verified_files(folder)
    fingerprint = build_fingerprint(folder)
    api = api if api is not None else HfApi()
    try:
        user = api.whoami()
    except Exception as exc:  # no token, or the token is rejected
        raise UserError(f"not logged in to the Hugging Face Hub ({type(exc).__name__}): run 'hf auth login' "
                        "or set HF_TOKEN, then push again") from None
    url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    upload, stale = commit_plan(files, api.list_repo_files(repo_id, repo_type="dataset"))
    operations = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=card_for_repo((folder / rel).read_bytes(), repo_id)
                                     if rel == "README.md" else str(folder / rel)) for rel in upload]
    operations += [CommitOperationDelete(path_in_repo=rel) for rel in stale]
    api.create_commit(repo_id=repo_id, repo_type="dataset", operations=operations,
                      commit_message=f"MH-MMKG build {fingerprint[:12]} (uploaded by {user.get('name', 'mhmmkg')})")
    return str(url)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo-id", required=True, help="dataset repository, ORG/NAME")
    parser.add_argument("--dataset", default="mh-mmkg", help="built dataset folder to upload (default: mh-mmkg)")
    parser.add_argument("--private", action="store_true", help="create the repository as private")


def run(args: argparse.Namespace) -> int:
    if args.repo_id.count("/") != 1 or not all(args.repo_id.split("/")):
        raise UserError(f"--repo-id {args.repo_id!r}: expected ORG/NAME")
    url = push_dataset(args.dataset, args.repo_id, private=args.private)
    print(f"pushed {args.dataset} to {url}")
    return 0
