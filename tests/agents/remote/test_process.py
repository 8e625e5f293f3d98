"""A started agent's process: stopping its group (zombies are not running processes), its log excerpt."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from agenteval_ci.agents.remote.process import AgentProcess, _group_alive


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_group_left_with_only_zombies_is_stopped():
    # An orphan of a stopped agent waits for PID 1 to reap it (forever, when PID 1 is us in the
    # action's container); it must not make the stop wait out its timeout. Here: our own child,
    # exited and not yet reaped, alone in its group.
    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    try:
        while _state(child.pid) != "Z":
            time.sleep(0.01)
        assert not _group_alive(child.pid)
    finally:
        child.wait()


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_the_log_excerpt_of_an_agent_that_exited_has_no_terminal_colour_codes(tmp_path):
    """uvicorn and Spring Boot colour their logs; the excerpt goes into the run's error, the PR
    comment and JSON, where the codes are noise."""
    coloured = r"printf '\033[31mERROR\033[0m:    bad \033[1mkey\033[0m\n\033]8;;http://x\033\\link\033]8;;\033\\\n'; exit 3"
    process = AgentProcess(coloured, tmp_path, dict(os.environ), tmp_path / "agent.log", stop_timeout=1)
    process.start()
    try:
        while process.exit_reason() is None:
            time.sleep(0.01)
        reason = process.exit_reason()
    finally:
        process.stop()
    assert reason is not None and "exited with code 3" in reason
    assert "\x1b" not in reason and reason.endswith("ERROR:    bad key\nlink")
