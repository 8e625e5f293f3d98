"""One job of the project's own .github/workflows/ci.yml, run by act as the workflow tests run
workflows (act.py: the runner image, the stubs, offline actions), on a pull_request of a copy
of this checkout's tracked files. Not a pytest test: the `test` job runs the whole suite (12+
minutes here). Run through scripts/workflow_test.sh, which makes the images:

    CI_JOB=adk-versions scripts/workflow_test.sh

Prints each job's outcome and keeps act's log beside the copy; exits 0 when every job run
succeeded, 1 when one failed or none ran.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from tests.action.harness import TOKEN
from tests.fakes.github import FakeGitHub, write_token

from .act import Act, action_folder, git_repo, missing, podman_service, pull_request, tracked_copy
from .results_service import ResultsService

CI_TIMEOUT = 3600  # the test job runs the whole suite
# act's last line of each job it ran: `[workflow/job] 🏁 Job succeeded`; a matrix entry's label
# ends in -N, a called workflow's is `job/workflow/its job`.
FINISHED = re.compile(r"^\[([^\]]+?) *\] +🏁 +Job (succeeded|failed)")


def main(job: str) -> int:
    if missing():
        print(f"cannot run: {missing()}")
        return 1
    folder = Path(tempfile.mkdtemp(prefix="ci-under-act-"))
    with podman_service(folder) as docker_host, FakeGitHub("octo/agent") as github, ResultsService(github) as service:
        github.add_token(TOKEN, write_token())
        act = Act(docker_host, action_folder(folder / "action"), github.base_url, service)
        repo = tracked_copy(folder / "repo")  # as a PR's checkout has it: the tests read action.yml unchanged
        head = git_repo(repo)
        run = act.run(repo, repo / ".github" / "workflows" / "ci.yml", "pull_request", pull_request(head), head, job=job,
                      timeout=CI_TIMEOUT)
    outcomes = dict(match.groups() for match in map(FINISHED.match, run.log.splitlines()) if match)
    for label, outcome in outcomes.items():
        print(f"{label}: {outcome}")
    print(f"ci.yml {job} on pull_request under act: act exit {run.code}; log: {folder / 'repo-pull_request.log'}")
    return 0 if outcomes and set(outcomes.values()) == {"succeeded"} else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
