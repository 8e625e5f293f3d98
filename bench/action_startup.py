"""Time from starting the action to the example agent's first case: natively (entrypoint.py)
and in the image (`podman run`, as GitHub's runner starts a container action).

    python bench/action_startup.py [--image localhost/agenteval-action:test] [--repeat 3]

Each run is a pull_request event against the loopback fake GitHub on a copy of
examples/home_automation whose agent notes the wall-clock time of its first call. Prints,
per way of running, the time to that first call and to the end of the step, and the ratio of
the container to the native run measured in the same invocation.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.action.harness import TOKEN, baseline_text_of, make_repo, pull_request_event, run_action  # noqa: E402
from tests.action.test_run_mode import open_pull  # noqa: E402
from tests.fakes.github import FakeGitHub, write_token  # noqa: E402

FIRST_CALL = "first-call.txt"
NOTE_FIRST_CALL = f'''

import pathlib as _pathlib
import time as _time

_handle = handle


def handle(text, session):  # the bench's wrapper: when did the first case start?
    marker = _pathlib.Path(__file__).with_name("{FIRST_CALL}")
    if not marker.exists():
        marker.write_text(repr(_time.time()))
    return _handle(text, session)
'''


def one_run(work: Path, baseline: str, image: str | None) -> tuple[float, float]:
    repo = make_repo(work / "repo")
    with (repo / "agent.py").open("a") as agent:
        agent.write(NOTE_FIRST_CALL)
    with FakeGitHub("octo/agent") as github:
        github.add_token(TOKEN, write_token())
        open_pull(github, baseline)
        started = time.time()
        run = run_action(work, repo, github.base_url, "pull_request", pull_request_event(), container=image)
        ended = time.time()
    if run.code != 0:
        raise SystemExit(f"the action failed ({run.code}):\n{run.stdout}\n{run.stderr}")
    return float((repo / FIRST_CALL).read_text()) - started, ended - started


def measure(label: str, baseline: str, image: str | None, repeat: int) -> float:
    firsts, totals = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            first, total = one_run(Path(tmp), baseline, image)
        firsts.append(first)
        totals.append(total)
    print(f"{label:<10} first case after {min(firsts):5.2f}-{max(firsts):5.2f} s (median {statistics.median(firsts):.2f}), "
          f"step done after {min(totals):5.2f}-{max(totals):5.2f} s (median {statistics.median(totals):.2f})")
    return statistics.median(firsts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", default="", help="the image to run with podman (skipped when empty)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = baseline_text_of(make_repo(Path(tmp) / "good"))
    native = measure("native", baseline, None, args.repeat)
    if args.image and not shutil.which("podman"):
        sys.exit("--image needs podman on PATH")
    if args.image:
        container = measure("container", baseline, args.image, args.repeat)
        print(f"container / native, time to the first case: {container / native:.2f}x")


if __name__ == "__main__":
    main()
