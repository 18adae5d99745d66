"""Upload a built dataset folder to the Hugging Face Hub as a dataset repository.

Only the files listed in the folder's manifest are sent (after checking their hashes), so
nothing outside the build is uploaded; Parquet files of earlier builds are removed from the
repository in the same commit. Log in first with `hf auth login` (or set HF_TOKEN).

Example:
  mhmmkg build && mhmmkg push --repo-id my-org/mh-mmkg
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from .errors import UserError

MANIFEST = "manifest.json"


def built_files(folder: Path) -> list[str]:
    """Files of a built dataset folder, checked against its manifest; UserError when it is not one."""
    manifest_path = folder / MANIFEST
    if not folder.is_dir() or not (folder / "README.md").is_file() or not manifest_path.is_file():
        raise UserError(f"{folder}: not a built dataset folder (needs README.md and {MANIFEST}; run 'mhmmkg build' first)")
    try:
        files = json.loads(manifest_path.read_text(encoding="utf-8"))["files"]
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{manifest_path}: unreadable manifest ({exc})") from None
    for rel, entry in files.items():
        path = folder / rel
        if not path.is_file():
            raise UserError(f"{manifest_path}: lists {rel}, which is missing: rebuild the dataset")
        if hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
            raise UserError(f"{path}: changed since the build (SHA-256 differs from {MANIFEST}): rebuild the dataset")
    return sorted([*files, MANIFEST])


def push_dataset(folder: str | Path, repo_id: str, *, private: bool = False, api=None) -> str:
    """Create (if needed) the dataset repo and upload the build in one commit; returns the repo URL."""
    from huggingface_hub import HfApi

    folder = Path(folder)
    files = built_files(folder)
    api = api if api is not None else HfApi()
    try:
        user = api.whoami()
    except Exception as exc:  # no token, or the token is rejected
        raise UserError(f"not logged in to the Hugging Face Hub ({type(exc).__name__}): run 'hf auth login' "
                        "or set HF_TOKEN, then push again") from None
    fingerprint = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["fingerprint"]
    url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.upload_folder(
        repo_id=repo_id, repo_type="dataset", folder_path=str(folder),
        allow_patterns=files, delete_patterns=["data/*.parquet"],
        commit_message=f"MH-MMKG build {fingerprint[:12]} (uploaded by {user.get('name', 'mhmmkg')})",
    )
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
