"""What this build of agenteval-ci is published as: its version and the action's name.

main holds a development build: VERSION ends in .dev0 and REPOSITORY is a placeholder that no
GitHub account can own, so nothing it names can run someone else's code. A release rewrites the
two literals below on the release commit (scripts/stamp_release.py: the tag's version, the
repository the tag was pushed to) and, with them, every doc that names the action or the
package's source. pyproject.toml reads VERSION, so the sdist, the wheel, the image and a git
install of the tag all carry the tag's version; `agenteval init` writes ACTION.
"""

from __future__ import annotations

VERSION = "0.1.0.dev0"
REPOSITORY = "<owner>/<repo>"


def is_release(version: str = VERSION) -> bool:
    return ".dev" not in version


def source_ref(version: str = VERSION) -> str:
    """The git ref of this build: the release's tag, or main for a development build."""
    return f"v{version}" if is_release(version) else "main"


def action_name(version: str = VERSION, repository: str = REPOSITORY) -> str:
    """`uses:` of the workflows: a release's major tag, which every later release of that major moves."""
    ref = f"v{version.split('.')[0]}" if is_release(version) else "main"
    return f"{repository}@{ref}"


def published_names(version: str = VERSION, repository: str = REPOSITORY) -> dict[str, str]:
    """Every string the docs name this build by, keyed by what it is; a release replaces each
    development value by its own (scripts/stamp_release.py)."""
    ref = source_ref(version)
    return {
        "pip from git": f"agenteval-ci[adk] @ git+https://github.com/{repository}@{ref}",
        "action": action_name(version, repository),
        "pre-commit repo": f"repo: https://github.com/{repository}",
        "pre-commit rev": f"rev: {ref}",
    }


ACTION = action_name()
