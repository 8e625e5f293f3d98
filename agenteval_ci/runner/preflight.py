"""What `run` refuses before any agent starts, found without starting one: `run` raises these as
it plans the cases (runner/suites.py) and `validate` reports them, so a pre-commit hook that
passes is a CI run that starts. A new refusal is one more function in CONFIG_CHECKS (of an eval
config, whoever uses it) or CASE_CHECKS (of one case under the config its eval set uses); what
`run` reads for the suites before the cases (their agents' .env, num_runs: auto's baseline) is
read here by the functions `run` reads it with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from ..core.simulation import missing_placeholders
from ..errors import InputError, Problem, UsageError
from ..files.baseline_file import load_baseline
from ..files.dotenv import load_agent_dotenv
from ..files.eval_configs import DEFAULT_CONFIG_NAME, LoadedEvalConfig, no_gated_metric
from ..files.eval_sets import no_case
from ..files.project import BaselineTarget, EvalSetToRun, Suite
from ..files.user_metrics import static_problems
from ..schema import EvalCase
from ..schema.baseline import Baseline
from ..schema.eval_config import UserSimulatorConfig

ConfigCheck = Callable[[LoadedEvalConfig], list[Problem]]
CaseCheck = Callable[[EvalSetToRun, EvalCase], list[Problem]]

def persona_without_placeholder(eval_set: EvalSetToRun, case: EvalCase) -> list[Problem]:
    """A scenario with a persona needs `{{ persona }}` in custom instructions (as in ADK)."""
    scenario = case.conversation_scenario
    custom = (eval_set.config.config.user_simulator_config or UserSimulatorConfig()).custom_instructions
    if not (scenario and scenario.user_persona and custom is not None and missing_placeholders(custom, with_persona=True)):
        return []
    return [
        Problem(
            eval_set.config.path or DEFAULT_CONFIG_NAME,
            "$.user_simulator_config.custom_instructions",
            f"case {case.eval_id!r} of {eval_set.loaded.path} has a user_persona, so custom_instructions "
            "must use {{ persona }} as well as {{ stop_signal }}, {{ conversation_plan }} and {{ conversation_history }}",
        )
    ]


def user_metric_problems(config: LoadedEvalConfig) -> list[Problem]:
    """Each custom metric the criteria name: its module, file or program found and its function
    defined, read without importing the user's code (files/user_metrics.py)."""
    declared = config.config.custom_metrics or {}
    file = config.path or DEFAULT_CONFIG_NAME
    base_dir = Path(config.path).parent if config.path else Path.cwd()
    return [
        Problem(file, f"$.custom_metrics.{name}.{at}", message)
        for name in config.config.criteria
        if name in declared
        for at, message in static_problems(declared[name], base_dir)
    ]


CONFIG_CHECKS: tuple[ConfigCheck, ...] = (no_gated_metric, user_metric_problems)
CASE_CHECKS: tuple[CaseCheck, ...] = (persona_without_placeholder,)


def config_problems(config: LoadedEvalConfig) -> list[Problem]:
    return [problem for check in CONFIG_CHECKS for problem in check(config)]


def checked_cases(eval_sets: Iterable[EvalSetToRun], problems: list[Problem]) -> Iterator[tuple[EvalSetToRun, int, EvalCase]]:
    """Each selected case with its place in its file, every check made on the way into
    `problems` (each once: eval sets share configs): one pass, as a big eval set is read."""
    seen = set(problems)

    def add(found: list[Problem]) -> None:
        for problem in found:
            if problem not in seen:
                seen.add(problem)
                problems.append(problem)

    for eval_set in eval_sets:
        add(config_problems(eval_set.config))
        held = 0
        for index, case in eval_set.numbered_cases():
            held += 1
            add([problem for check in CASE_CHECKS for problem in check(eval_set, case)])
            yield eval_set, index, case
        if not held:
            add([no_case(eval_set.loaded.path)])


def refusals(eval_sets: Iterable[EvalSetToRun]) -> tuple[list[Problem], int]:
    """What `run` would refuse these eval sets (under their configs) for, and how many cases they hold."""
    problems: list[Problem] = []
    cases = sum(1 for _ in checked_cases(eval_sets, problems))
    return problems, cases


def rounds_baseline(suites: Sequence[Suite], target: BaselineTarget) -> Baseline | None:
    """The baseline `num_runs: auto`'s rounds weigh the runs against, read before any agent starts:
    None when no suite has num_runs: auto or there is none yet; one named but missing, or one that
    does not read, is refused."""
    if not any(suite.adaptive for suite in suites):
        return None
    return load_baseline(target.path, required=target.required)


def suites_problems(suites: Sequence[Suite], target: BaselineTarget, environ: Mapping[str, str], named_in: str) -> list[Problem]:
    """What `run` refuses the suites for as it reads what they need before their cases: an
    agent's .env that does not read (read into a copy of `environ`), num_runs: auto's baseline.
    `named_in`: the project file, where a missing baseline is named."""
    problems = []
    try:
        load_agent_dotenv((suite.agent.folder for suite in suites), dict(environ))
    except InputError as exc:
        problems += exc.problems
    try:
        rounds_baseline(suites, target)
    except InputError as exc:
        problems += exc.problems
    except UsageError as exc:
        problems.append(Problem(named_in, "$.baseline", str(exc)))
    return problems
