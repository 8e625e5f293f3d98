"""Each command's flags, and how they become its typed settings (the only code that sees argv).

A command's module is imported only when that command runs, so `agenteval validate` or
`score` does not pay for importing google-adk or google-genai. A gate setting with a `flag`
(schema/settings.py) becomes a flag of `compare` and `report` here without further code.
"""

from __future__ import annotations

import argparse
import enum
import os
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..report.console import Style
from ..runner.progress import wants_bar
from ..schema.paths import DEFAULT_BASELINE, DEFAULT_PROJECT_FILE, DEFAULT_RESULTS, MAX_NUM_RUNS
from ..schema.settings import GateSettings, JudgeSettings

if TYPE_CHECKING:
    from ..commands._common import Done, Output, Verbosity

Flags = Callable[[argparse.ArgumentParser], None]


@dataclass(frozen=True)
class CliCommand:
    help: str
    add_flags: Flags
    run: Callable[[argparse.Namespace], Done]  # the settings from the flags, then the command


def command_in(argv: list[str]) -> str | None:
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    """Every command is listed; only the one named in `argv` gets its flags."""
    chosen = command_in(argv)
    parser = argparse.ArgumentParser(prog="agenteval", description="The CI gate for AI agents.")
    parser.add_argument("--version", action="version", version=f"agenteval-ci {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command_parser = sub.add_parser(name, help=command.help, description=command.help)
        if name == chosen:
            command.add_flags(command_parser)
            add_verbosity_flags(command_parser)
    return parser


# ---------------------------------------------------------------- what several commands share


def add_verbosity_flags(parser: argparse.ArgumentParser) -> None:
    """`-q` and `--log-level`, on every command."""
    from ..agents.logs import LEVELS, LOG_FILE

    parser.add_argument("-q", "--quiet", action="store_true",
                        help="say only what matters: the verdict and the cases that changed, problems, next steps "
                             "(no tables, progress or one line per file); the log from ERROR")
    parser.add_argument("--log-level", "--log_level", dest="log_level", type=str.upper, choices=LEVELS, metavar="LEVEL",
                        help=f"print what is logged from this level ({', '.join(LEVELS)}; default WARNING, ERROR with -q): "
                             f"agenteval's notes are INFO; for `run` and `init`, also the agent's own log (its quieter "
                             f"records go to {LOG_FILE.as_posix()})")


def _verbosity(args: argparse.Namespace) -> Verbosity:
    from ..commands._common import Verbosity

    return Verbosity(quiet=args.quiet, log_level=args.log_level)


def _style() -> Style:
    return Style.of(sys.stdout, os.environ)


def _output(args: argparse.Namespace, quiet: bool = False) -> Output:
    from ..commands._common import Output

    return Output(json=args.json, detailed=args.print_detailed_results, quiet=quiet, style=_style())


def add_detailed_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--print_detailed_results", "--print-detailed-results", "--detailed", dest="print_detailed_results", action="store_true",
        help="as adk eval: per run and turn, the prompt, expected vs actual response and tool calls, and each metric's score",
    )


def add_config_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", metavar="YAML",
        help=f"read the baseline path and gate settings from this project file (default: the nearest {DEFAULT_PROJECT_FILE} here or above)",
    )


def _gate_fields() -> dict[str, str]:
    """Gate settings that are flags, with their help."""
    found = {}
    for name, field in GateSettings.model_fields.items():
        extra = field.json_schema_extra
        if isinstance(extra, dict) and isinstance(extra.get("flag"), str):
            found[name] = str(extra["flag"])
    return found


def _flag_type(name: str) -> type:
    """The type a gate setting's value has (the one that is not None, for an optional setting)."""
    annotation = GateSettings.model_fields[name].annotation
    found = next((t for t in typing.get_args(annotation) if t is not type(None)), annotation)
    assert isinstance(found, type), f"the gate setting {name} has no simple type"
    return found


def add_gate_flags(parser: argparse.ArgumentParser, only: tuple[str, ...] = (), help_text: str = "") -> None:
    """One flag per gate setting that has one (`--fail-on`, `--tolerance`, ...), each overriding agenteval.yaml's."""
    defaults = GateSettings()
    for name, text in _gate_fields().items():
        if only and name not in only:
            continue
        kind = _flag_type(name)
        given: dict[str, Any] = {"choices": [v.value for v in kind]} if issubclass(kind, enum.Enum) else {"type": kind}
        parser.add_argument(f"--{name.replace('_', '-')}", **given, help=help_text or f"{text} (default {getattr(defaults, name)})")


def _gate_overrides(args: argparse.Namespace) -> GateSettings:
    """The gate settings given as flags, unchecked: the command checks them over agenteval.yaml's."""
    given = {name: _flag_type(name)(getattr(args, name)) for name in _gate_fields() if getattr(args, name, None) is not None}
    return GateSettings.model_construct(**given)


def add_gate_options(parser: argparse.ArgumentParser) -> None:
    """Flags override agenteval.yaml's `gate:` and `baseline:`, which override the defaults."""
    add_config_flag(parser)
    parser.add_argument("--baseline", help=f"the baseline file (default: agenteval.yaml's `baseline`, else {DEFAULT_BASELINE})")
    add_gate_flags(parser)


def _tuple(values: list[str] | None) -> tuple[str, ...]:
    return tuple(values or ())


# ---------------------------------------------------------------- init


def init_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", default=".", help="the project's root folder (default: the current folder)")
    parser.add_argument("--force", action="store_true", help="overwrite files agenteval wrote before, and re-run to replace the baseline")
    parser.add_argument("--no-run", action="store_true", help="write the files only; run and accept later (`agenteval run --new-baseline && agenteval accept`)")


def init(args: argparse.Namespace) -> Done:
    from ..commands.init import InitSettings, init

    settings = InitSettings(folder=args.folder, force=args.force, run=not args.no_run, environ=os.environ, style=_style(),
                            progress_bar=wants_bar(sys.stderr, os.environ), verbosity=_verbosity(args))
    return init(settings)


# ---------------------------------------------------------------- run


def run_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "adk_args", nargs="*", metavar="AGENT_DIR EVAL_SET",
        help="adk eval's form: the agent folder, then eval set files (FILE[:case_id,case_id]) or eval set ids",
    )
    parser.add_argument("--config", help=f"the project file (default: the nearest {DEFAULT_PROJECT_FILE} here or above)")
    parser.add_argument("--suite", action="append", metavar="NAME", help="run only this suite (repeatable)")
    parser.add_argument("--json", metavar="OUT", help=f"write the results file here ('-' for stdout; a name ending in .gz is gzip, ~10x smaller; default: {DEFAULT_RESULTS} in the project's folder)")
    parser.add_argument("--baseline", help="compare with this baseline (default: agenteval.yaml's `baseline`)")
    add_gate_flags(parser, only=("fail_on",), help_text="override agenteval.yaml's gate.fail_on")
    parser.add_argument("--no-gate", action="store_true", help="only write the results; compare later (the action compares with the base branch's baseline)")
    parser.add_argument("--new-baseline", action="store_true",
                        help="run for a new baseline, ignoring any baseline there is: every case 5 times, the cases whose runs "
                             "disagree up to max_runs (about 8 runs per case at most), then write the results without gating; "
                             "`agenteval accept` takes them (docs/baseline.md)")
    parser.add_argument("--md", metavar="OUT", help="write the PR comment markdown here ('-' for stdout)")
    parser.add_argument("--shard", metavar="I/N", help="run only the I-th of N deterministic slices of the cases")
    parser.add_argument("--config_file_path", "--config-file-path", dest="config_file_path", help="adk eval's criteria file")
    add_detailed_flag(parser)
    parser.add_argument(
        "-k", "--case", action="append", metavar="PATTERN",
        help="run only the cases this substring or glob (*, ?, [..]) matches in eval_id, eval_set_id/eval_id or "
             "suite/eval_set_id/eval_id, ignoring case; repeatable (any matches); matching nothing is an error",
    )
    parser.add_argument("--num-runs", "--num_runs", dest="num_runs", type=int, metavar="N",
                        help=f"run every case N times, overriding each suite's num_runs (1-{MAX_NUM_RUNS})")
    add_adk_eval_flags(parser)


def add_adk_eval_flags(parser: argparse.ArgumentParser) -> None:
    """The rest of `adk eval`'s own flags (google-adk 2.13), so its command line runs as it is."""
    for switch, what in (("enable", "turn on"), ("disable", "turn off")):
        parser.add_argument(
            f"--{switch}_features", f"--{switch}-features", dest=f"{switch}_features", action="append", metavar="NAMES",
            help=f"as adk eval: google-adk features to {what} (comma-separated, repeatable) for the agents run in this process",
        )
    parser.add_argument("--eval_storage_uri", "--eval-storage-uri", metavar="gs://BUCKET",
                        help="adk eval's eval sets and results in Cloud Storage: refused with what to do instead (agenteval reads local files)")


def adk_features(enable: list[str] | None, disable: list[str] | None) -> dict[str, bool]:
    """adk eval's reading of its feature flags: comma-separated names, a disable over an enable."""
    features = {}
    for given, enabled in ((enable, True), (disable, False)):
        for names in given or ():
            features.update({name.strip(): enabled for name in names.split(",") if name.strip()})
    return features


def run(args: argparse.Namespace) -> Done:
    from ..commands.run import RunSettings, run
    from ..core.shards import parse_shard

    settings = RunSettings(
        shard=parse_shard(args.shard) if args.shard else None,
        config=args.config, suites=_tuple(args.suite), adk_args=_tuple(args.adk_args), config_file_path=args.config_file_path,
        cases=_tuple(args.case), num_runs=args.num_runs, baseline=args.baseline, gate=_gate_overrides(args),
        compare=not args.no_gate, new_baseline=args.new_baseline, md=args.md, output=_output(args, quiet=args.quiet), verbosity=_verbosity(args),
        progress_bar=wants_bar(sys.stderr, os.environ), environ=os.environ,
        adk_features=adk_features(args.enable_features, args.disable_features), eval_storage_uri=args.eval_storage_uri,
    )
    return run(settings)


# ---------------------------------------------------------------- score


def score_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("evalset", help="the eval set file (EvalSet JSON or legacy .test.json)")
    parser.add_argument(
        "--actual", action="append", required=True, metavar="ACTUAL",
        help="recorded outputs: an EvalSet-shaped file, an ADK *.evalset_result.json, a results file or an OTLP/JSON "
             "trace export (each case's session: its session_input.session_id, else its eval_id); repeat for more runs",
    )
    parser.add_argument("--eval-config", help="criteria file (default: test_config.json beside the eval set, else ADK's defaults)")
    parser.add_argument("--json", metavar="OUT", help="write the results file here ('-' for stdout; a name ending in .gz is gzip, ~10x smaller)")
    parser.add_argument("--suite", default="default", help="suite name recorded in the results")
    parser.add_argument("--judge-cache-dir", help="where judge replies are cached (default: .agenteval/cache)")
    parser.add_argument("--no-judge-cache", action="store_true", help="neither read nor write the judge cache")
    add_detailed_flag(parser)


def score(args: argparse.Namespace) -> Done:
    from ..commands.score import ScoreSettings, score

    judge = JudgeSettings(cache=not args.no_judge_cache)
    judge = judge.model_copy(update={"cache_dir": args.judge_cache_dir}) if args.judge_cache_dir else judge
    settings = ScoreSettings(eval_set=args.evalset, actual=_tuple(args.actual), eval_config=args.eval_config, suite=args.suite,
                             judge=judge, output=_output(args, quiet=args.quiet), environ=os.environ, verbosity=_verbosity(args))
    return score(settings)


# ---------------------------------------------------------------- compare, accept, report, merge


def compare_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="?", help=f"a results file (default: {DEFAULT_RESULTS} in the project's folder)")
    add_gate_options(parser)
    parser.add_argument("--json", metavar="OUT", help="write the comparison as JSON ('-' for stdout)")
    parser.add_argument("--md", metavar="OUT", help="write the PR comment markdown ('-' for stdout)")


def compare(args: argparse.Namespace) -> Done:
    from ..commands.compare import CompareSettings, compare_results

    return compare_results(CompareSettings(results=args.results, config=args.config, baseline=args.baseline,
                                           gate=_gate_overrides(args), json=args.json, md=args.md, style=_style(),
                                           verbosity=_verbosity(args)))


def accept_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="?", help=f"a results file written by `agenteval run` or `agenteval score --json` (default: {DEFAULT_RESULTS} in the project's folder)")
    add_config_flag(parser)
    parser.add_argument("--baseline", help=f"the baseline file (default: agenteval.yaml's `baseline`, else {DEFAULT_BASELINE})")
    parser.add_argument("--case", action="append", metavar="ID", help="accept only this case (eval_id, eval_set_id/eval_id or suite/eval_set_id/eval_id); repeatable")
    parser.add_argument("--metric", action="append", metavar="NAME", help="accept only this metric; repeatable")
    parser.add_argument("--allow-failed", action="store_true",
                        help="accept results in which agent runs failed or gated metrics were not evaluated (refused by default)")
    parser.add_argument("--commit", help="the commit the results were produced from (default: the one recorded in the results)")


def accept(args: argparse.Namespace) -> Done:
    from ..commands.accept import AcceptSettings, accept

    return accept(AcceptSettings(results=args.results, config=args.config, baseline=args.baseline, cases=_tuple(args.case),
                                 metrics=_tuple(args.metric), allow_failed=args.allow_failed, commit=args.commit,
                                 verbosity=_verbosity(args)))


def report_flags(parser: argparse.ArgumentParser) -> None:
    from ..commands.report import FORMATS

    parser.add_argument("results", help="a results file")
    parser.add_argument("--format", required=True, choices=list(FORMATS))
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    add_gate_options(parser)


def report(args: argparse.Namespace) -> Done:
    from ..commands.report import ReportSettings, report

    return report(ReportSettings(results=args.results, format=args.format, output=args.output, config=args.config,
                                 baseline=args.baseline, gate=_gate_overrides(args), verbosity=_verbosity(args)))


def merge_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="+", metavar="RESULTS", help="results files, one per shard")
    parser.add_argument("--json", metavar="OUT", required=True, help="write the merged results file here ('-' for stdout; a name ending in .gz is gzip, ~10x smaller)")


def merge(args: argparse.Namespace) -> Done:
    from ..commands.merge import MergeSettings, merge_shards

    return merge_shards(MergeSettings(results=_tuple(args.results), json=args.json, verbosity=_verbosity(args)))


# ---------------------------------------------------------------- validate, convert


def validate_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")


def validate(args: argparse.Namespace) -> Done:
    from ..commands.validate import ValidateSettings, validate

    return validate(ValidateSettings(paths=_tuple(args.paths), environ=os.environ, verbosity=_verbosity(args)))


def convert_flags(parser: argparse.ArgumentParser) -> None:
    from ..commands.convert import SESSION_FILE_NAME, TARGETS

    parser.add_argument("paths", nargs="+", metavar="PATH", help="legacy .test.json files, or folders to search for them")
    parser.add_argument("--initial-session", metavar="FILE",
                        help=f"the session every case starts from, as AgentEvaluator's initial_session_file (default: {SESSION_FILE_NAME} beside each file, when present)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing .evalset.json that differs")
    parser.add_argument("--to", choices=TARGETS, default="evalset",
                        help="evalset (default): legacy .test.json files, or Gemini-platform datasets named as files, to EvalSets; "
                             "gemini: EvalSets (*.evalset.json) to Gemini-platform datasets (NAME.dataset.json), saying what does not map")
    add_config_flag(parser)


def convert(args: argparse.Namespace) -> Done:
    from ..commands.convert import ConvertSettings, convert

    return convert(ConvertSettings(paths=_tuple(args.paths), initial_session=args.initial_session, force=args.force, config=args.config,
                                   to=args.to, verbosity=_verbosity(args)))


# ---------------------------------------------------------------- rejudge, judge-agreement


def rejudge_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stored", metavar="STORED", help="stored outputs: a results file, or the baseline (its recorded outputs beside it)")
    parser.add_argument("--judge-model", metavar="MODEL", help="every judged metric asks this model (e.g. openai/gpt-4o-mini) instead of its judge_model")
    add_gate_options(parser)
    parser.add_argument("--no-gate", action="store_true", help="only write the results; do not compare with the baseline")
    parser.add_argument("--json", metavar="OUT", help="write the results file here ('-' for stdout; default .agenteval/rejudged.json)")
    parser.add_argument("--md", metavar="OUT", help="write the PR comment markdown ('-' for stdout)")
    add_detailed_flag(parser)


def rejudge(args: argparse.Namespace) -> Done:
    from ..commands.rejudge import RejudgeSettings, rejudge

    return rejudge(RejudgeSettings(stored=args.stored, config=args.config, judge_model=args.judge_model, baseline=args.baseline,
                                   gate=_gate_overrides(args), compare=not args.no_gate, md=args.md, output=_output(args, quiet=args.quiet),
                                   environ=os.environ, verbosity=_verbosity(args)))


def agreement_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stored", metavar="STORED", help="stored outputs: a results file, or the baseline (its recorded outputs beside it)")
    parser.add_argument("--judge", action="append", metavar="MODEL", required=True,
                        help="a judge model to compare; give it twice to compare two, once to compare it with the configured judges")
    add_config_flag(parser)
    parser.add_argument("--metric", action="append", metavar="NAME", help="only this judged metric; repeatable")
    parser.add_argument("--html", metavar="OUT", help="also write the report as a self-contained HTML page")
    parser.add_argument("--json", metavar="OUT", help="also write the report as JSON ('-' for stdout)")


def agreement(args: argparse.Namespace) -> Done:
    from ..commands.judge_agreement import AgreementSettings, judge_agreement

    return judge_agreement(AgreementSettings(stored=args.stored, judges=_tuple(args.judge), config=args.config,
                                             metrics=_tuple(args.metric), html=args.html, json=args.json, style=_style(),
                                             environ=os.environ, verbosity=_verbosity(args)))


# name -> the command, in the order `agenteval --help` lists them
COMMANDS = {
    "init": CliCommand("set up a project: agenteval.yaml, the GitHub workflows, a first run and its baseline", init_flags, init),
    "run": CliCommand("run the agent on its eval sets, score it and write the results file", run_flags, run),
    "score": CliCommand("score recorded agent outputs against an eval set (no agent is run)", score_flags, score),
    "compare": CliCommand("compare a results file with the baseline; exit 0 passed, 1 failed, 2 bad input", compare_flags, compare),
    "accept": CliCommand("write the baseline from a results file, whole or only the named cases/metrics", accept_flags, accept),
    "report": CliCommand("render a results file (compared with the baseline) as markdown, job summary, HTML, JUnit XML or JSON", report_flags, report),
    "rejudge": CliCommand("score stored outputs (a results file or the baseline) again with the current criteria and judge; no agent is run", rejudge_flags, rejudge),
    "judge-agreement": CliCommand("compare two judges on the same stored outputs: agreement and Cohen's kappa per metric and rubric", agreement_flags, agreement),
    "merge": CliCommand("join the results files of sharded runs (--shard I/N) into one", merge_flags, merge),
    "validate": CliCommand("check eval sets and eval configs, printing every problem with file and JSON path", validate_flags, validate),
    "convert": CliCommand("turn legacy .test.json files (and their initial session) into EvalSet files", convert_flags, convert),
}
