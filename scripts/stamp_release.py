#!/usr/bin/env python3
"""Stamp a release into a checkout of main: agenteval_ci/_release.py gets the tag's version and
the repository, and every doc that names the action or the package's source gets the release's
names instead of the development build's. Used by .github/workflows/release.yml before it builds
anything; main keeps the development values.

    scripts/stamp_release.py v1.2.3 owner/repo [ROOT]
"""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

RELEASE_MODULE = "agenteval_ci/_release.py"
# The files that name the action or the package's source (tests/test_release_names.py checks that no other does).
DOCS = ("README.md", "docs/action.md", ".pre-commit-hooks.yaml", "docs/workflows/*.yml")
TAG = re.compile(r"v(\d+\.\d+\.\d+)")
REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


def stamp(root: Path, tag: str, repository: str) -> list[Path]:
    """Stamps the checkout at `root`; returns the files it changed."""
    if not (version := TAG.fullmatch(tag)):
        raise SystemExit(f"not a release tag vX.Y.Z: {tag!r}")
    if not REPOSITORY.fullmatch(repository):
        raise SystemExit(f"not a GitHub owner/repo: {repository!r}")
    module = root / RELEASE_MODULE
    release = runpy.run_path(str(module))  # the checkout's own, not an installed agenteval
    if release["is_release"]():
        raise SystemExit(f"{RELEASE_MODULE} is already stamped ({release['VERSION']}); stamp a checkout of main")
    stamped = {module: _stamped_module(module.read_text(encoding="utf-8"), VERSION=version[1], REPOSITORY=repository)}
    old, new = release["published_names"](), release["published_names"](version[1], repository)
    for path in sorted({p for pattern in DOCS for p in root.glob(pattern)}):
        text = path.read_text(encoding="utf-8")
        for kind in sorted(old, key=lambda k: -len(old[k])):  # longest first: no name is replaced inside another
            text = text.replace(old[kind], new[kind])
        if release["REPOSITORY"] != repository and release["REPOSITORY"] in text:
            raise SystemExit(f"{path}: names {release['REPOSITORY']} in a way the stamp does not know")
        stamped[path] = text
    changed = [path for path, text in stamped.items() if text != path.read_text(encoding="utf-8")]
    for path in changed:
        path.write_text(stamped[path], encoding="utf-8")
    return changed


def _stamped_module(text: str, **values: str) -> str:
    for name, value in values.items():
        text, count = re.subn(rf'^{name} = ".*"$', f'{name} = "{value}"', text, count=1, flags=re.M)
        if count != 1:
            raise SystemExit(f'{RELEASE_MODULE}: no line {name} = "..."')
    return text


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        raise SystemExit(__doc__.strip().splitlines()[-1])
    root = Path(argv[2] if len(argv) == 3 else Path(__file__).resolve().parent.parent)
    for path in stamp(root, argv[0], argv[1]):
        print(f"stamped {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
