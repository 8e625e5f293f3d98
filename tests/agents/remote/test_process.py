"""Stopping a started agent's process group: zombies are not running processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from agenteval_ci.agents.remote.process import _group_alive


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
