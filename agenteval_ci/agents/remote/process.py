"""The agent's server, started by us: `/bin/sh -c COMMAND` in a process group of its own, its
output appended to `.agenteval/agent.log`, and the whole group stopped on every way out of the
run (the end, a failure, Ctrl-C, SIGTERM, the interpreter exiting).

A process that puts itself in another session (setsid, a daemonizing server) leaves our group;
nothing short of a container can follow it, so docs/agents.md asks for a foreground command.
"""

from __future__ import annotations

import atexit
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Mapping, Optional

TAIL_BYTES = 2000
# Terminal control sequences (colours, cursor moves): servers colour their logs (uvicorn, Spring
# Boot), and the excerpt goes into messages, the PR comment and JSON, where they are noise.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# Our credentials are never the agent's: the GitHub token and the Actions runtime tokens.
_WITHHELD = ("GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN")


def agent_environment(ours: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """Our environment without our own credentials, then the suite's `env` and ours (OTLP) on top."""
    env = {name: value for name, value in ours.items() if name.upper() not in _WITHHELD}
    env.update(extra)
    return env


class AgentProcess:
    def __init__(self, command: str, cwd: Path, env: Mapping[str, str], log_path: Path, stop_timeout: float):
        self.command = command
        self._cwd = cwd
        self._env = dict(env)
        self.log_path = log_path
        self._stop_timeout = stop_timeout
        self._process: Optional[subprocess.Popen[bytes]] = None
        self._log_start = 0

    def start(self) -> None:
        if not self._cwd.is_dir():
            raise OSError(f"the folder to start the agent in does not exist: {self._cwd.as_posix()}")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"--- agenteval: starting `{self.command}` in {self._cwd.as_posix()} at {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode())
            log.flush()
            self._log_start = log.tell()
            self._process = subprocess.Popen(
                ["/bin/sh", "-c", self.command], cwd=self._cwd, env=self._env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group (and session): we stop the whole group
            )
        _RUNNING.add(self)

    @property
    def pgid(self) -> Optional[int]:
        return self._process.pid if self._process else None  # a session leader's group id is its pid

    def exit_reason(self) -> Optional[str]:
        """Why the command is no longer running, or None while it runs."""
        code = self._process.poll() if self._process else None
        if code is None:
            return None
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        return f"the agent's command `{self.command}` {how}{self._last_output()}"

    def _last_output(self) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(max(self._log_start, os.path.getsize(self.log_path) - TAIL_BYTES))
                text = _ANSI.sub("", log.read().decode("utf-8", "replace")).strip()
        except OSError:
            return ""
        return f"; its last output ({self.log_path.as_posix()}):\n{text}" if text else f" (no output; see {self.log_path.as_posix()})"

    def stop(self) -> None:
        """SIGTERM to the group, SIGKILL to whatever is left of it after the grace period."""
        _RUNNING.discard(self)
        if self._process is None:
            return
        pgid = self._process.pid
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + self._stop_timeout
        while time.monotonic() < deadline and _group_alive(pgid):
            self._process.poll()  # reap the leader so the group empties
            time.sleep(0.02)
        if _group_alive(pgid):
            _signal_group(pgid, signal.SIGKILL)
        try:
            self._process.wait(timeout=self._stop_timeout)
        except subprocess.TimeoutExpired:  # unkillable (uninterruptible sleep): nothing more to do
            return
        _reap_orphans(pgid)  # after the leader's status is ours, so this never takes it


def _reap_orphans(pgid: int) -> None:
    """When we are PID 1 (the action's container), the group's orphans became our children:
    reap their zombies, nobody else will."""
    while True:
        try:
            pid, _ = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    """Any member of the group still running. A zombie is not: an orphan waits for PID 1 to
    reap it, which may take seconds, or forever when PID 1 is us (a container action)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _running_member(pgid)


def _running_member(pgid: int) -> bool:
    if not os.path.isdir("/proc"):  # no procfs (macOS): killpg's answer stands
        return True
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            group, state = _group_and_state(entry.path)
            if group == pgid and state not in ("Z", "X"):  # zombie, dead
                return True
    return False


def _group_and_state(proc_dir: str) -> tuple[int, str]:
    try:
        with open(f"{proc_dir}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # the command name may hold spaces and ")"
    except (OSError, IndexError):
        return (-1, "")
    return int(fields[2]), fields[0].decode()


# ---------------------------------------------------------------- every way out


_RUNNING: set[AgentProcess] = set()
_previous_sigterm: object = None


def stop_all() -> None:
    for process in list(_RUNNING):
        process.stop()


def _on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM ends the run as Ctrl-C does: every `finally` runs, the agents' groups are stopped."""
    raise KeyboardInterrupt(f"signal {signum}")


def guard_exits() -> None:
    """Once, from the main thread: stop started agents at interpreter exit and on SIGTERM."""
    global _previous_sigterm
    if _previous_sigterm is not None or threading.current_thread() is not threading.main_thread():
        return
    atexit.register(stop_all)
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        _previous_sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
    else:
        _previous_sigterm = signal.getsignal(signal.SIGTERM)  # the caller's own handler stays
