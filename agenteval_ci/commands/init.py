"""`agenteval init [FOLDER] [--force] [--no-run]`: from an ADK project to a gated repository.

Looks at the layout (ADK agent folders, ADK apps in Java, Go or TypeScript it can serve
(files/served_projects.py), eval sets, eval configs, how dependencies are installed), finds
the credentials the agent's models and the judges need (core/credentials.py), tries the
install line in a throwaway environment (_install_try.py), writes agenteval.yaml, the gate
and accept workflows and .gitignore lines for what runs write, makes what a served agent needs
to start (_served_setup.py), runs the suites once and accepts the results as the first baseline,
then says what to commit and which secrets to add. Without a first baseline it exits non-zero,
saying why and the command that writes it. Run again, it changes nothing: an existing file is kept unless
`--force`, and an existing baseline is never re-run or replaced without it.

It writes only a config that loads: every name is quoted by a YAML emitter and escaped for
globs, the text is read back and resolved as `run` resolves it before anything is written,
and a name it cannot represent (bytes that are not UTF-8) is refused with exit 2.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml

from .._release import ACTION, REPOSITORY, VERSION, is_release
from ..agents.logs import LOG_FILE
from ..core.adaptive import FIRST_BASELINE_RUNS
from ..core.credentials import ADK_DEFAULT_MODEL, Credentials, Evidence, credentials_for, looks_like_model
from ..errors import EXIT_PASSED, EXIT_USAGE, AgentevalError, InputError, UsageError, path_problem
from ..files.baseline_outputs import outputs_path
from ..files.discovery import ADK_CONFIG_NAME, CONFIG_NAMES, STARTER_CONFIG_NAME
from ..files.project_scan import SOURCE_SUFFIXES, deployment_only, imported_sources, read_dotenv, scan_sources
from ..files.readers import check_arguments, is_utf8, parse_yaml, printable, read_bytes, read_json, regular_or_kind
from ..files.served_projects import AGENT_VENV, MANIFESTS, ServedProject, pinned_elsewhere, python_served, served_project, with_traces
from ..files.writing import write_atomic
from ..report.console import PLAIN, Style
from ..schema.project import DEFAULT_BASELINE, DEFAULT_PROJECT_FILE, DEFAULT_RESULTS
from ..schema.settings import JudgeSettings
from ._init_workflows import GCP_CREDENTIALS, served_workflow, workflow
from ._install_try import InstallPlan, choose, install_lines, install_text, tried_text
from ._served_setup import finishing_command, setup_failure

if TYPE_CHECKING:
    from ..files.project import Project
from ._common import Done, Output, Verbosity, applies_verbosity, say

GATE_WORKFLOW = ".github/workflows/agenteval.yml"
ACCEPT_WORKFLOW = ".github/workflows/agenteval-accept.yml"
# Folders never searched: virtualenvs, caches, installed packages, VCS data.
_SKIPPED = {"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist", "target", "vendor"}
# Deep enough for a Java module's sources: a sample folder, src/main/java, then a reverse-domain
# package (com/google/adk/samples/agents/NAME) holding the agent and its model constant.
_MAX_DEPTH = 14
_AGENT_DEFINITION = re.compile(r"^\s*(root_agent\s*[:=]|app\s*[:=]\s*App\(|(async\s+)?def\s+get_agent_async\b)", re.M)
_EVAL_SUFFIXES = (".evalset.json", ".test.json")
# An agents-cli project (google-agents-cli 1.11's `agents-cli create`): its manifest, and where
# it keeps its Gemini-platform datasets and eval config, relative to the manifest (Python, Go).
AGENTS_CLI_MANIFEST = "agents-cli-manifest.yaml"
AGENTS_CLI_DATASETS = ("tests/eval/datasets", "eval/datasets")
AGENTS_CLI_CONFIGS = tuple(f"{folder}/eval_config.{suffix}" for folder in ("tests/eval", "eval") for suffix in ("yaml", "yml", "json"))


@dataclass(frozen=True)
class InitSettings:
    folder: str = "."  # the project's root folder
    force: bool = False  # overwrite files agenteval wrote before, and re-run to replace the baseline
    run: bool = True  # False (--no-run): write the files only; run and accept later
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)  # for the first run's judge
    style: Style = PLAIN
    progress_bar: bool = False
    verbosity: Verbosity = Verbosity()  # -q, --log-level


# ---------------------------------------------------------------- the layout


@dataclass
class Layout:
    root: Path
    agents: list[str] = field(default_factory=list)  # ADK agent folders, relative posix paths
    served: list[ServedProject] = field(default_factory=list)  # ADK apps in other languages, served over HTTP
    eval_files: list[str] = field(default_factory=list)  # *.evalset.json and *.test.json
    legacy_files: list[str] = field(default_factory=list)  # the .test.json files in ADK's old list format
    configs: list[str] = field(default_factory=list)  # test_config.json / eval_config.json / agents-cli's eval_config.yaml
    agents_cli: list[str] = field(default_factory=list)  # folders holding agents-cli-manifest.yaml
    sources: list[str] = field(default_factory=list)  # source files (files/project_scan.py reads them)
    unreadable: list[str] = field(default_factory=list)  # folders that could not be searched, and why

    @property
    def owners(self) -> list[str]:
        """The folders of the agents, those we import and those we serve."""
        return [*self.agents, *(p.folder for p in self.served)]

    def eval_sets_of(self, owner: str) -> list[str]:
        """Eval files inside the agent's folder and no deeper agent's; with one agent, every eval file."""
        if len(self.owners) == 1:
            return self.eval_files
        return [f for f in self.eval_files if _owner(f, self.owners) == owner]


def _inside(path: str, folder: str) -> bool:
    return folder == "." or path.startswith(folder + "/")


def _owner(path: str, folders: list[str]) -> str | None:
    """The innermost of the folders holding the file."""
    holders = [f for f in folders if _inside(path, f)]
    return max(holders, key=lambda f: len(PurePosixPath(f).parts)) if holders else None


def _walk(root: Path, unreadable: list[str]) -> Iterator[tuple[Path, list[str]]]:
    """(folder relative to root, regular file names) for every folder worth searching. Symlinked
    folders are not entered (a loop), and a folder that cannot be listed is noted, not fatal."""
    def note(error: OSError) -> None:
        where = printable(Path(error.filename).relative_to(root)) if error.filename else printable(root)
        unreadable.append(f"{where} (cannot list it: {path_problem(error)})")

    for folder, dirs, files in os.walk(root, onerror=note):
        here = Path(folder)
        depth = len(here.relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if _searched(here, d, depth))
        yield here.relative_to(root), sorted(f for f in files if not f.startswith(".") and _is_regular(here / f))


def _searched(folder: Path, name: str, depth: int) -> bool:
    return (not name.startswith(".") and name not in _SKIPPED and depth < _MAX_DEPTH
            and not _is_regular(folder / name / "pyvenv.cfg"))


def _is_regular(path: Path) -> bool:
    """A regular file (after symlinks); never raises, never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _source(path: Path) -> str:
    """A Python file's text, or "" when it cannot be read."""
    try:
        return read_bytes(path).decode("utf-8", errors="replace")
    except InputError:
        return ""


def _defines_agent(folder: Path, files: list[str]) -> bool:
    candidates = [folder / name for name in ("agent.py", "__init__.py") if name in files]
    return "__init__.py" in files and any(_AGENT_DEFINITION.search(_source(p)) for p in candidates)


def _is_legacy(path: Path) -> bool:
    try:
        return isinstance(read_json(path), list)
    except InputError:
        return False  # loading it for the config says what is wrong with it


def install_command(root: Path) -> str:
    """How CI installs the agent's dependencies, from what the project already has (untried)."""
    lines = install_lines(root)
    return lines[0].command if lines else ""


def detect(root: Path) -> Layout:
    layout = Layout(root)
    manifests: list[tuple[PurePosixPath, list[str]]] = []
    for folder, files in _walk(root, layout.unreadable):
        posix = PurePosixPath(*folder.parts)
        if folder.parts and _defines_agent(root / folder, files):
            layout.agents.append(str(posix))
        if any(name in files for name in MANIFESTS):
            manifests.append((posix, files))
        if AGENTS_CLI_MANIFEST in files:
            layout.agents_cli.append(str(posix))
            layout.configs += _agents_cli_config(root, posix)
        for name in files:
            rel = str(posix / name)
            if name.endswith(_EVAL_SUFFIXES) or _agents_cli_dataset(layout, posix, name):
                layout.eval_files.append(rel)
                if name.endswith(".test.json") and _is_legacy(root / rel):
                    layout.legacy_files.append(rel)
            elif name in CONFIG_NAMES:
                layout.configs.append(rel)
            elif name.endswith(SOURCE_SUFFIXES):
                layout.sources.append(rel)
    layout.served = _served(layout, manifests)
    pin = pinned_elsewhere(root) if layout.agents else None
    if pin:  # the action would refuse to install it beside its own google-adk: serve it instead
        layout.served += [python_served(agent, pin, install_command(root), port=8000 + n) for n, agent in enumerate(layout.agents)]
        layout.agents = []
    return layout


def _agents_cli_dataset(layout: Layout, folder: PurePosixPath, name: str) -> bool:
    """A JSON file in an agents-cli project's datasets folder (a Gemini-platform dataset)."""
    return name.endswith(".json") and any(folder == PurePosixPath(project, datasets)
                                          for project in layout.agents_cli for datasets in AGENTS_CLI_DATASETS)


def _agents_cli_config(root: Path, project: PurePosixPath) -> list[str]:
    """The eval config agents-cli reads for the project (`eval run --config`'s default), if any."""
    found = [str(project / name) for name in AGENTS_CLI_CONFIGS if _is_regular(root / project / name)]
    return found[:1]


def _served(layout: Layout, manifests: list[tuple[PurePosixPath, list[str]]]) -> list[ServedProject]:
    """The ADK apps in other languages, the innermost of nested ones (a Maven module, not its parent),
    none inside a Python agent's folder."""
    found = []
    for folder, files in manifests:
        where = str(folder)
        if any(_inside(where, agent) for agent in layout.agents):
            continue
        project = served_project(layout.root, folder, files, [s for s in layout.sources if _inside(s, where)])
        if project is not None:
            found.append(project)
    return [p for p in found if not any(q is not p and q.folder != p.folder and _inside(q.folder, p.folder) for q in found)]


# ---------------------------------------------------------------- agenteval.yaml


def _globs(files: list[str]) -> list[str]:
    """One glob per folder and kind, so eval sets added later are picked up; the folder's own
    name escaped (a folder called `v[1]` is not a character class)."""
    globs = []
    for path in files:
        pure = PurePosixPath(path)
        kind = next((f"*{suffix}" for suffix in _EVAL_SUFFIXES if pure.name.endswith(suffix)), "*.json")  # .json: agents-cli's datasets
        glob_ = f"{glob.escape(str(pure.parent))}/{kind}" if str(pure.parent) != "." else kind
        if glob_ not in globs:
            globs.append(glob_)
    return globs


def _shared_config(layout: Layout) -> str | None:
    """An agents-cli project's eval config, as agents-cli reads it for all its datasets; else the
    starter pack's one eval_config.json, named when no test_config.json sits beside an eval set."""
    agents_cli = [c for c in layout.configs if any(c == str(PurePosixPath(p) / name) for p in layout.agents_cli for name in AGENTS_CLI_CONFIGS)]
    if len(agents_cli) == 1:
        return agents_cli[0]
    starter = [c for c in layout.configs if PurePosixPath(c).name == STARTER_CONFIG_NAME]
    if len(starter) == 1 and not any(PurePosixPath(c).name == ADK_CONFIG_NAME for c in layout.configs):
        return starter[0]
    return None


def suite_names(agents: list[str]) -> dict[str, str]:
    """A unique, readable suite name per agent folder (`a.b` and `a+b` must not both be `a_b`)."""
    if len(agents) == 1:
        return {agents[0]: "default"}
    names: dict[str, str] = {}
    for agent in agents:
        base = re.sub(r"[^\w-]", "_", agent).strip("_") or "agent"
        name, n = base, 1
        while name in names.values():
            n += 1
            name = f"{base}_{n}"
        names[agent] = name
    return names


def project_data(layout: Layout) -> dict[str, Any]:
    """What agenteval.yaml holds for this layout, as data (rendered and checked separately)."""
    if not layout.owners:
        raise UsageError(f"no ADK agent under {printable(layout.root)}: no agent folder (a folder with __init__.py and an "
                         "agent.py defining root_agent), and no ADK app in Java (pom.xml or build.gradle with com.google.adk), "
                         "Go (go.mod with google.golang.org/adk) or TypeScript (package.json with @google/adk); "
                         "write agenteval.yaml by hand, see docs/config.md and docs/agents.md")
    if not layout.eval_files:
        raise UsageError(f"no eval sets (*.evalset.json or *.test.json) under {printable(layout.root)}, nor an agents-cli project's "
                         f"datasets ({AGENTS_CLI_MANIFEST} with tests/eval/datasets/*.json); "
                         "record some with `adk web` or write them by hand, then run `agenteval init` again")
    config = _shared_config(layout)
    names = suite_names(layout.owners)
    agents: dict[str, Any] = {**{a: a for a in layout.agents}, **{p.folder: p.agent() for p in layout.served}}
    suites = []
    for owner, agent in agents.items():
        eval_sets = layout.eval_sets_of(owner)
        if eval_sets:
            _refuse_unwritable([owner, *eval_sets, *([config] if config else [])])
            suites.append({"name": names[owner], "agent": agent, "eval_sets": _globs(eval_sets),
                           **({"eval_config": config} if config else {})})
    if not suites:
        raise UsageError("found agents (" + ", ".join(map(printable, layout.owners)) + ") and eval sets, but no eval set inside "
                         "an agent's folder; with several agents, say which eval sets each runs in agenteval.yaml (docs/config.md)")
    return {"baseline": DEFAULT_BASELINE, "suites": suites}


def _refuse_unwritable(paths: list[str]) -> None:
    """A name whose bytes are not UTF-8 cannot go into a YAML file, nor be matched back."""
    for path in paths:
        if not is_utf8(path):
            raise UsageError(f"{printable(path)}: the name is not valid UTF-8, so agenteval.yaml cannot name it; "
                             "rename it, then run `agenteval init` again")


class _Dumper(yaml.SafeDumper):
    """Block lists indented under their key, as people write them."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        return super().increase_indent(flow, False)


def render_yaml(data: dict[str, Any]) -> str:
    """YAML that reads back as `data`: names as they are where the emitter keeps them so, escaped
    where it does not (a line separator in a name), and exit 2 when neither reads back."""
    header = "# Written by `agenteval init`; every key is in docs/config.md.\n"
    for unicode in (True, False):
        text = header + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=unicode, width=1_000_000)
        if parse_yaml(DEFAULT_PROJECT_FILE, text) == data:
            return text
    raise UsageError(f"cannot write {DEFAULT_PROJECT_FILE} so that it reads back as written: {data!r:.300}")


def checked_project_yaml(layout: Layout) -> tuple[str, Project]:
    """agenteval.yaml's text, proven to load as `run` loads it (eval sets, configs, rules), and
    the project it loads as; served apps whose judges need their traces get them (the eval
    configs say which, once loaded)."""
    text, project = _loaded_project_yaml(layout)
    if _serve_with_traces(layout, project):
        text, project = _loaded_project_yaml(layout)
    return text, project


def _serve_with_traces(layout: Layout, project: Project) -> bool:
    """Give `traces: true` to the served apps whose suites have a judge reading the agent's
    instructions and tool declarations (ADK's API server answers without them); True when any changed."""
    names = suite_names(layout.owners)
    traced = {suite.name for suite in project.suites
              if any(metric.spec.reads_app_details for eval_set in suite.eval_sets for metric in eval_set.config.metrics)}
    before = list(layout.served)
    layout.served = [with_traces(p) if names[p.folder] in traced else p for p in layout.served]
    return layout.served != before


def _loaded_project_yaml(layout: Layout) -> tuple[str, Project]:
    from ..files.project import resolve_project, validated_config

    text = render_yaml(project_data(layout))
    name = printable(layout.root / DEFAULT_PROJECT_FILE)
    try:
        project = resolve_project(name, validated_config(name, parse_yaml(name, text), layout.root), layout.root)
    except InputError as exc:
        raise UsageError(f"not writing {DEFAULT_PROJECT_FILE}: it would name files that do not load; fix them, then run "
                         f"`agenteval init` again:\n{exc}") from None
    return text, project


# ---------------------------------------------------------------- the keys


def judge_models(project: Project | None) -> dict[str, str]:
    """The models the judged metrics (and a simulated user) ask: model -> the eval config naming it."""
    found: dict[str, str] = {}
    for suite in project.suites if project else []:
        for eval_set in suite.eval_sets:
            config = eval_set.config
            where = config.path or "ADK's default criteria"
            for metric in (m for m in config.metrics if m.spec.judged):
                options = getattr(metric.criterion, "judge_model_options", None)
                found.setdefault(options.judge_model if options else ADK_DEFAULT_MODEL, f"{metric.name}, {where}")
            if any(case.conversation_scenario for case in eval_set.cases()):
                simulator = config.config.user_simulator_config
                found.setdefault(simulator.model if simulator else ADK_DEFAULT_MODEL, f"the simulated user, {where}")
    return found


def evaluated_sources(layout: Layout) -> list[str]:
    """The source files the eval runs: what a Python agent's package imports (not the web server
    or deployment scripts beside it), and the sources of an app in another language."""
    python = [*layout.agents, *(p.folder for p in layout.served if p.toolchain == "python")]
    others = [p.folder for p in layout.served if p.toolchain != "python"]
    imported = imported_sources(layout.root, python, [s for s in layout.sources if s.endswith(".py")])
    return [*imported, *(s for s in layout.sources if any(_inside(s, f) for f in others))]


def evidence_of(layout: Layout, project: Project | None, environ: Mapping[str, str]) -> Evidence:
    """What the evaluated sources and the .env files, and the project's eval configs, say about models and keys."""
    folders = [".", *layout.owners]
    facts = scan_sources(layout.root, evaluated_sources(layout))
    values, files = read_dotenv(layout.root, folders)
    models = {**facts.models, **{v: files[k] for k, v in values.items() if looks_like_model(v) and v not in facts.models}}
    return Evidence(agent_models=models, judge_models=judge_models(project), read=facts.read, assigned=facts.assigned,
                    dotenv=values, dotenv_files=files, deployment=frozenset(deployment_only(layout.root, folders)), environ=environ)


def keys_text(credentials: Credentials, environ: Mapping[str, str]) -> list[str]:
    """The next steps' lines: every secret and variable, why, and which are not set here."""
    if not credentials.needs and not credentials.google_cloud:
        return ["nothing: no model key found"]
    width = max((len(n.variable.name) for n in credentials.needs), default=0)
    lines = []
    for need in credentials.needs:
        variable = need.variable
        if variable.value is not None:  # nothing to add: the workflow says it
            lines.append(f'set by  {variable.name:<{width}}  the workflow, to "{variable.value}": {need.why}')
        elif need.optional:
            lines.append(f"optional {variable.name:<{width}}  {need.why}, but no code the eval runs reads it: if the agent "
                         f"needs it after all, add it as a {'secret' if variable.secret else 'variable'} and to `env:` in {GATE_WORKFLOW}")
        else:
            lines.append(f"{'secret  ' if variable.secret else 'variable'} {variable.name:<{width}}  {need.why}")
    if credentials.google_cloud:
        lines.append(f"secret   {GCP_CREDENTIALS:<{width}}  a Google Cloud service account key for Vertex AI "
                     "(google-github-actions/auth signs in with it; see docs/judge.md)")
    missing = credentials.unset(environ)
    if missing:
        lines.append(f"not set on this machine: {', '.join(missing)} (`agenteval run` here needs them too)")
    return lines


# ---------------------------------------------------------------- the install line


def plan_install(layout: Layout, environ: Mapping[str, str], try_it: bool) -> InstallPlan:
    """The line for the workflows; tried, and replaced by one that works when it fails."""
    if not layout.agents:
        return InstallPlan("")  # served agents install with their own toolchain
    lines = install_lines(layout.root)
    if not lines or not try_it:
        return InstallPlan(lines[0].command if lines else "")
    say(f"install: trying `{lines[0].command}` ({lines[0].source}) in a throwaway environment (pip --dry-run) ...")
    chosen, tried = choose(layout.root, environ)
    for result in tried:
        say(f"install: {tried_text(result)}")
    assert chosen is not None
    return InstallPlan(chosen.command, tuple(tried))



# ---------------------------------------------------------------- writing


@dataclass
class Writer:
    root: Path
    force: bool
    written: list[str] = field(default_factory=list)

    def check(self, rel: str) -> None:
        """Before anything is written: nothing but a file may stand where `rel` goes, and
        nothing but folders above it (a FIFO would be replaced, a file in the way fails late)."""
        path = self.root / rel
        for parent in reversed(PurePosixPath(rel).parents):
            folder = self.root / parent
            if str(parent) != "." and os.path.lexists(folder) and not folder.is_dir():
                what = regular_or_kind(folder) or ("a broken symlink" if not folder.exists() else "is a file")
                raise UsageError(f"{printable(folder)}: {what}, where init needs a folder for {rel}")
        kind = regular_or_kind(path)
        if kind:
            raise UsageError(f"{printable(path)}: {kind}; init writes a file there (move it away)")

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        data = text.encode("utf-8")
        old = read_bytes(path) if os.path.lexists(path) else None
        if old == data:
            say(f"unchanged {rel}")
            return
        if old is not None and not self.force:
            say(f"kept      {rel} (it exists; --force replaces it)")
            return
        write_atomic(path, data)
        self.written.append(rel)
        say(f"wrote     {rel}")

    def ignore(self, line: str, what: str) -> None:
        """Add a line to .gitignore unless it is there; the file's bytes are kept as they are
        (any encoding, its own line endings) and only appended to."""
        path = self.root / ".gitignore"
        old = read_bytes(path) if os.path.lexists(path) else None
        entry = line.encode("utf-8")
        if old and entry in (existing.strip() for existing in old.splitlines()):
            say(f"unchanged .gitignore (already ignores {line})")
            return
        newline = b"\r\n" if old and b"\r\n" in old else b"\n"
        if old is None:
            write_atomic(path, entry + newline)
        else:
            _append(path, (b"" if not old or old.endswith(b"\n") else newline) + entry + newline)
        self.written.append(".gitignore")
        say(f"wrote     .gitignore (ignores {line}: {what})")


def action_note() -> str:
    """Which action the workflows name; a development build has no published name to give."""
    if is_release():
        return f"the workflows use the action {ACTION}: the major version of this agenteval-ci ({VERSION}), moved by each of its releases"
    return (f"the workflows use the action {ACTION}, a placeholder: this agenteval-ci ({VERSION}) is a development build, "
            f"not a release. Replace {REPOSITORY} in {GATE_WORKFLOW} and {ACCEPT_WORKFLOW} with the GitHub repository "
            "that hosts the action before you commit them, or the workflows cannot start")


def _append(path: Path, data: bytes) -> None:
    """Append in place (a symlinked or hard-linked .gitignore stays one), in one write."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as exc:
        raise UsageError(f"{printable(path)}: cannot append to it: {path_problem(exc)}") from None


def _first_baseline(root: Path, settings: InitSettings, served: list[ServedProject]) -> int:
    """Make what the served agents need, run the suites and accept the results, as a user would
    type it; the exit code: 0 when the baseline was written, the error's when not (with the command
    that finishes the job)."""
    from .accept import AcceptSettings, accept
    from .run import RunSettings, run

    failed = setup_failure(root, served)
    if failed:  # the agent cannot start: a first run would fail every case
        print(f"\nnot run, no baseline written: {failed}\nfix that, then: {finishing_command(served)}")
        return EXIT_USAGE
    config = str(root / DEFAULT_PROJECT_FILE)
    print(f"\nrunning the suites for a first baseline (every case {FIRST_BASELINE_RUNS} times, to tell flaky cases from "
          f"deterministic ones; docs/baseline.md): agenteval run --config {config} --new-baseline", flush=True)
    check_arguments([config])  # as `agenteval run --config CONFIG --new-baseline` would
    first = RunSettings(config=config, new_baseline=True, output=Output(style=settings.style, quiet=settings.verbosity.quiet),
                        progress_bar=settings.progress_bar, environ=settings.environ, verbosity=settings.verbosity)
    try:
        code = run(first).exit_code
        accept(AcceptSettings(config=config, verbosity=settings.verbosity))
    except AgentevalError as exc:  # the agent would not load, a run or a judge lacked a key: say so, then the next steps
        print(f"\nno baseline written: {exc}\nfix that, then: {finishing_command(served)}")
        return exc.exit_code
    if code != EXIT_PASSED:
        print("some cases are below their thresholds today; the baseline keeps them as they are, and the gate "
              "fails a PR when a case gets worse or newly falls below its threshold")
    return EXIT_PASSED


def _cd(root: Path) -> str:
    return "" if root.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(root.as_posix())} && "


@dataclass(frozen=True)
class Findings:
    """What init found and chose, for its next steps."""

    credentials: Credentials
    install: InstallPlan
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)


def next_steps(layout: Layout, files: list[str], findings: Findings) -> str:
    files = [f for f in files if (layout.root / f).exists()]
    legacy = ""
    if layout.legacy_files:
        legacy = (f"\n{len(layout.legacy_files)} eval file(s) use ADK's legacy .test.json format ({', '.join(layout.legacy_files[:3])}"
                  f"{', ...' if len(layout.legacy_files) > 3 else ''}): `agenteval convert` turns them into EvalSets, "
                  "with the initial session they need, and updates agenteval.yaml and the baseline to match.\n")
    steps = [f"commit:  {_cd(layout.root)}git add {' '.join(files)} && git commit -m \"Gate the agent with agenteval\"",
             "secrets: under Settings > Secrets and variables > Actions, add\n" + _indented(keys_text(findings.credentials, findings.environ))]
    install = install_text(findings.install, GATE_WORKFLOW)
    if install:
        steps.append(f"install: {install}")
    for project in layout.served:
        cwd = project.folder if project.cwd is None else project.cwd
        where = f" (in {cwd})" if cwd != "." else ""
        app = (f"its app name: {project.app_name} (`app_name:` in agenteval.yaml)" if project.app_name else
               "its app name: the cases' session_input.app_name, else set `app_name:` in agenteval.yaml "
               f"(GET {project.url}/list-apps names them)")
        checks = [f"the start command `{project.start}`{where} serves ADK's API at {project.url}", app, *project.checks]
        steps.append(f"check:   {project.sdk} ({project.manifest}):\n" + _indented(checks))
    deployment = deployment_config(layout.root)
    if deployment:
        steps.append(f"deploy:  {deployment}: to gate the agent as deployed, a preview per PR:\n" + _indented(DEPLOY_PREVIEW))
    steps.append('require: Settings > Branches > add a branch protection rule (or a ruleset) for main >\n'
                 '              "Require status checks to pass" > add the check "agenteval"')
    numbered = "\n".join(f"  {n}. {step}" for n, step in enumerate(steps, 1))
    return f"""{legacy}
next steps:
{numbered}
  then every PR gets a comment and the check; a maintainer comments `/agenteval accept` to take intended changes."""


# What a project's deployment configuration is (agents-cli's `deployment/` folder, a Dockerfile
# for Cloud Run), and the workflow that gates a preview of it (docs/workflows/deploy-preview.yml).
DEPLOYMENT_CONFIGS = ("deployment", "Dockerfile")
DEPLOY_PREVIEW = [
    "copy docs/workflows/deploy-preview.yml of agenteval-ci to .github/workflows/: it deploys the PR's agent to a Cloud Run "
    "tag, gates it (agenteval.preview.yaml: url: ${PREVIEW_URL}/turn) and removes the tag; docs/agents.md, \"Deployed agents\"",
    "it needs a workload identity provider trusting this repository, and a service account with roles/run.developer, "
    "roles/iam.serviceAccountUser, roles/cloudbuild.builds.editor, roles/artifactregistry.writer, roles/storage.admin "
    "and roles/run.invoker (variables GCP_WORKLOAD_IDENTITY_PROVIDER, GCP_DEPLOY_SERVICE_ACCOUNT)",
    "pull requests from forks get no deployment credentials: the workflow runs only for this repository's branches",
]


def deployment_config(root: Path) -> str | None:
    """The project's deployment configuration, as a next step names it; None when it has none."""
    found = [name for name in DEPLOYMENT_CONFIGS if os.path.lexists(root / name)]
    return f"found {' and '.join(found)}" if found else None


def _indented(lines: list[str]) -> str:
    return "\n".join(f"       - {line}" for line in lines)


def _shadows_a_module(agent: str, root: Path) -> bool:
    """A top-level agent folder named like a standard or installed module (`google`, `calendar`)."""
    from importlib.machinery import PathFinder

    if "/" in agent or not agent.isidentifier():
        return False
    here = root.resolve()
    elsewhere = [p for p in sys.path if p and Path(p).resolve() != here]
    return agent in sys.stdlib_module_names or PathFinder.find_spec(agent, elsewhere) is not None


def _project_root(folder: str) -> Path:
    root = Path(folder)
    try:
        is_folder = stat.S_ISDIR(os.stat(root).st_mode)
    except FileNotFoundError:
        is_folder = False
    except OSError as exc:
        raise UsageError(f"{folder}: {path_problem(exc)}") from None
    if not is_folder:
        raise UsageError(f"{folder}: no such folder")
    return root


def _kept_config_loads(root: Path) -> Project:
    """An agenteval.yaml init keeps must load, or the gate it sets up cannot run."""
    from ..files.project import load_project

    try:
        return load_project(root / DEFAULT_PROJECT_FILE)
    except InputError as exc:
        raise UsageError(f"{DEFAULT_PROJECT_FILE} exists and does not load; fix it, or replace it with "
                         f"`agenteval init --force`:\n{exc}") from None


JUDGE_CACHE = str(PurePosixPath(JudgeSettings().cache_dir))
WHAT_RUNS_WRITE = {
    DEFAULT_RESULTS: "what `agenteval run` writes",
    LOG_FILE.as_posix(): "the agent's log",
    JUDGE_CACHE: "the judge cache, kept between CI runs by actions/cache; commit it instead for offline PR runs (docs/judge.md)",
}


def _found_line(layout: Layout) -> str:
    served = "".join(f", {p.sdk} in {printable(p.folder)}" for p in layout.served)
    return (f"found: {len(layout.agents)} ADK agent(s) ({', '.join(map(printable, layout.agents)) or 'none'}){served}, "
            f"{len(layout.eval_files)} eval file(s), {len(layout.configs)} eval config(s)")


def _gate_workflow(layout: Layout, findings: Findings) -> str:
    if layout.served:
        return served_workflow(DEFAULT_PROJECT_FILE, findings.install.command, findings.credentials, layout.served)
    return workflow("gate.yml", DEFAULT_PROJECT_FILE, findings.install.command, findings.credentials)


@applies_verbosity
def init(settings: InitSettings) -> Done:
    root = _project_root(settings.folder)
    layout = detect(root)
    say(_found_line(layout))
    for folder in layout.unreadable:
        say(f"skipped   {folder}")
    for agent in layout.agents:
        if _shadows_a_module(agent, root):
            say(f"note:     the agent folder {printable(agent)} has the name of an installed module; its absolute imports "
                "of itself may not work, and `python -m` from this folder imports the folder instead of the module")
    writer = Writer(root, settings.force)
    for rel in (DEFAULT_PROJECT_FILE, GATE_WORKFLOW, ACCEPT_WORKFLOW, ".gitignore", DEFAULT_RESULTS, DEFAULT_BASELINE):
        writer.check(rel)
    keep_config = os.path.lexists(root / DEFAULT_PROJECT_FILE) and not settings.force
    if keep_config:
        project = _kept_config_loads(root)
        say(f"kept      {DEFAULT_PROJECT_FILE} (it exists; --force replaces it)")
    else:
        text, project = checked_project_yaml(layout)
    credentials = credentials_for(evidence_of(layout, project, settings.environ))
    findings = Findings(credentials, plan_install(layout, settings.environ, settings.run), settings.environ)
    if not keep_config:
        writer.write(DEFAULT_PROJECT_FILE, text)
    writer.write(GATE_WORKFLOW, _gate_workflow(layout, findings))
    writer.write(ACCEPT_WORKFLOW, workflow("accept.yml", DEFAULT_PROJECT_FILE, ""))
    for generated, what in WHAT_RUNS_WRITE.items():
        writer.ignore(f"/{generated}" + ("/" if generated == JUDGE_CACHE else ""), what)
    if any(p.toolchain == "python" for p in layout.served):
        writer.ignore(f"/{AGENT_VENV}/", "the agent's own virtualenv")
    missing = credentials.unset(settings.environ)
    code = EXIT_PASSED
    if not settings.run:
        print(f"\nnot run (--no-run): `{finishing_command(layout.served)}` writes the first baseline")
    elif (root / DEFAULT_BASELINE).is_file() and not settings.force:
        say(f"\nkept      {DEFAULT_BASELINE} (it exists; `agenteval run` checks against it, --force replaces it)")
    else:
        if missing:
            print(f"\nnot set here: {', '.join(missing)}; the first run may fail without them (next steps say why each is needed)")
        code = _first_baseline(root, settings, layout.served)
    if {GATE_WORKFLOW, ACCEPT_WORKFLOW} & set(writer.written):
        print(f"\n{action_note()}")
    recorded = outputs_path(DEFAULT_BASELINE).as_posix()  # the baseline's recorded outputs: what a changed judge re-judges
    print(next_steps(layout, [DEFAULT_PROJECT_FILE, ".gitignore", GATE_WORKFLOW, ACCEPT_WORKFLOW, DEFAULT_BASELINE, recorded], findings))
    return Done(code)  # never a pass with the first baseline not written
