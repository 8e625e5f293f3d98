"""The action's entry: the runner's environment read once into typed settings, one mode run,
whatever ended it mapped to an exit code by the same handler as the CLI's (errors.exit_code_of)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

from ..errors import exit_code_of
from .inputs import ActionSettings, settings_from_env
from .workflow import Runner

Mode = Callable[[ActionSettings, Runner], int]


def modes() -> dict[str, Mode]:
    from .accept import accept_mode
    from .modes import merge_mode, publish_mode, run_mode

    return {"run": run_mode, "publish": publish_mode, "merge": merge_mode, "accept": accept_mode}


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    runner = Runner(env)

    def say(message: str) -> None:
        runner.error(f"agenteval: {message}")
        print(f"agenteval: error: {message}", file=sys.stderr)

    try:
        settings = settings_from_env(env)
        runner.mask(settings.token)
        os.chdir(settings.workspace)
        return modes()[settings.mode](settings, runner)
    except (Exception, KeyboardInterrupt) as exc:
        return exit_code_of(exc, say)
