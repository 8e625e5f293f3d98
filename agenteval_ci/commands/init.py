"""`agenteval init [FOLDER] [--force] [--no-run]`: from an ADK project to a gated repository.

Looks at the layout (ADK agent folders, eval sets, eval configs, how dependencies are
installed), writes agenteval.yaml, the gate and accept workflows and a .gitignore line for
the results file, runs the suites once and accepts the results as the first baseline,
then says what to commit. Run again, it changes nothing: an existing file is kept unless
`--force`, and an existing baseline is never re-run or replaced without it.

It writes only a config that loads: every name is quoted by a YAML emitter and escaped for
globs, the text is read back and resolved as `run` resolves it before anything is written,
and a name it cannot represent (bytes that are not UTF-8) is refused with exit 2.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from string import Template
from typing import Any

import yaml

from .._release import ACTION, REPOSITORY, VERSION, is_release
from ..agents.logs import LOG_FILE
from ..core.adaptive import FIRST_BASELINE_RUNS
from ..errors import EXIT_PASSED, AgentevalError, InputError, UsageError, path_problem
from ..files.discovery import ADK_CONFIG_NAME, CONFIG_NAMES, STARTER_CONFIG_NAME
from ..files.readers import check_arguments, is_utf8, parse_yaml, printable, read_bytes, read_json, regular_or_kind
from ..files.writing import write_atomic
from ..report.console import PLAIN, Style
from ..schema.project import DEFAULT_BASELINE, DEFAULT_PROJECT_FILE, DEFAULT_RESULTS
from ..schema.settings import JudgeSettings
from ._common import Done, Output

GATE_WORKFLOW = ".github/workflows/agenteval.yml"
ACCEPT_WORKFLOW = ".github/workflows/agenteval-accept.yml"
# Folders never searched: virtualenvs, caches, installed packages, VCS data.
_SKIPPED = {"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist"}
_MAX_DEPTH = 6
_AGENT_DEFINITION = re.compile(r"^\s*(root_agent\s*[:=]|app\s*[:=]\s*App\(|(async\s+)?def\s+get_agent_async\b)", re.M)
_EVAL_SUFFIXES = (".evalset.json", ".test.json")


@dataclass(frozen=True)
class InitSettings:
    folder: str = "."  # the project's root folder
    force: bool = False  # overwrite files agenteval wrote before, and re-run to replace the baseline
    run: bool = True  # False (--no-run): write the files only; run and accept later
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)  # for the first run's judge
    style: Style = PLAIN
    progress_bar: bool = False


# ---------------------------------------------------------------- the layout


@dataclass
class Layout:
    root: Path
    agents: list[str] = field(default_factory=list)  # ADK agent folders, relative posix paths
    eval_files: list[str] = field(default_factory=list)  # *.evalset.json and *.test.json
    legacy_files: list[str] = field(default_factory=list)  # the .test.json files in ADK's old list format
    configs: list[str] = field(default_factory=list)  # test_config.json / eval_config.json
    install: str = ""
    unreadable: list[str] = field(default_factory=list)  # folders that could not be searched, and why

    def eval_sets_of(self, agent: str) -> list[str]:
        """Eval files inside the agent's folder and no deeper agent's; with one agent, every eval file."""
        if len(self.agents) == 1:
            return self.eval_files
        return [f for f in self.eval_files if _owner(f, self.agents) == agent]


def _owner(path: str, agents: list[str]) -> str | None:
    """The innermost agent folder holding the file."""
    holders = [a for a in agents if path.startswith(a + "/")]
    return max(holders, key=len) if holders else None


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
    """How CI installs the agent's dependencies, from what the project already has."""
    if (root / "uv.lock").is_file():
        return ("pip install uv && uv export --frozen --no-hashes -o /tmp/agenteval-requirements.txt"
                " && pip install -r /tmp/agenteval-requirements.txt")
    if (root / "requirements.txt").is_file():
        return "pip install -r requirements.txt"
    if (root / "pyproject.toml").is_file():
        return "pip install -e ."
    return ""


def detect(root: Path) -> Layout:
    layout = Layout(root, install=install_command(root))
    for folder, files in _walk(root, layout.unreadable):
        posix = PurePosixPath(*folder.parts)
        if folder.parts and _defines_agent(root / folder, files):
            layout.agents.append(str(posix))
        for name in files:
            rel = str(posix / name)
            if name.endswith(_EVAL_SUFFIXES):
                layout.eval_files.append(rel)
                if name.endswith(".test.json") and _is_legacy(root / rel):
                    layout.legacy_files.append(rel)
            elif name in CONFIG_NAMES:
                layout.configs.append(rel)
    return layout


# ---------------------------------------------------------------- agenteval.yaml


def _globs(files: list[str]) -> list[str]:
    """One glob per folder and kind, so eval sets added later are picked up; the folder's own
    name escaped (a folder called `v[1]` is not a character class)."""
    globs = []
    for path in files:
        pure = PurePosixPath(path)
        kind = "*.evalset.json" if pure.name.endswith(".evalset.json") else "*.test.json"
        glob_ = f"{glob.escape(str(pure.parent))}/{kind}" if str(pure.parent) != "." else kind
        if glob_ not in globs:
            globs.append(glob_)
    return globs


def _shared_config(layout: Layout) -> str | None:
    """The starter pack's one eval_config.json, named when no test_config.json sits beside an eval set."""
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
    if not layout.agents:
        raise UsageError(f"no ADK agent folder under {printable(layout.root)} (a folder with __init__.py and an agent.py "
                         "defining root_agent); write agenteval.yaml by hand, see docs/config.md")
    if not layout.eval_files:
        raise UsageError(f"no eval sets (*.evalset.json or *.test.json) under {printable(layout.root)}; "
                         "record some with `adk web` or write them by hand, then run `agenteval init` again")
    config = _shared_config(layout)
    names = suite_names(layout.agents)
    suites = []
    for agent in layout.agents:
        eval_sets = layout.eval_sets_of(agent)
        if eval_sets:
            _refuse_unwritable([agent, *eval_sets, *([config] if config else [])])
            suites.append({"name": names[agent], "agent": agent, "eval_sets": _globs(eval_sets),
                           **({"eval_config": config} if config else {})})
    if not suites:
        raise UsageError("found agents (" + ", ".join(map(printable, layout.agents)) + ") and eval sets, but no eval set inside "
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


def checked_project_yaml(layout: Layout) -> str:
    """agenteval.yaml's text, proven to load as `run` loads it (eval sets, configs, rules)."""
    from ..files.project import resolve_project, validated_config

    text = render_yaml(project_data(layout))
    name = printable(layout.root / DEFAULT_PROJECT_FILE)
    try:
        resolve_project(name, validated_config(name, parse_yaml(name, text), layout.root), layout.root)
    except InputError as exc:
        raise UsageError(f"not writing {DEFAULT_PROJECT_FILE}: it would name files that do not load; fix them, then run "
                         f"`agenteval init` again:\n{exc}") from None
    return text


def _yaml_scalar(value: str) -> str:
    plain = value and not re.search(r"(: | #|^[\s\"'&*!|>%@`{\[-])", value)
    return value if plain else json.dumps(value)


def workflow(name: str, config: str, install: str) -> str:
    """A workflow from the templates docs/workflows/pr-gate.yml and accept.yml are copies of."""
    text = resources.files("agenteval_ci").joinpath("workflow_templates", name).read_text(encoding="utf-8")
    cache_dir = str(PurePosixPath(config).parent / JudgeSettings().cache_dir).removeprefix("./")
    rendered = Template(text).substitute(action=ACTION, config=config, install=_yaml_scalar(install), cache_dir=cache_dir)
    return rendered if install else rendered.replace("          install: \"\"\n", "")


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
            print(f"unchanged {rel}")
            return
        if old is not None and not self.force:
            print(f"kept      {rel} (it exists; --force replaces it)")
            return
        write_atomic(path, data)
        self.written.append(rel)
        print(f"wrote     {rel}")

    def ignore(self, line: str) -> None:
        """Add a line to .gitignore unless it is there; the file's bytes are kept as they are
        (any encoding, its own line endings) and only appended to."""
        path = self.root / ".gitignore"
        old = read_bytes(path) if os.path.lexists(path) else None
        entry = line.encode("utf-8")
        if old and entry in (existing.strip() for existing in old.splitlines()):
            print(f"unchanged .gitignore (already ignores {line})")
            return
        newline = b"\r\n" if old and b"\r\n" in old else b"\n"
        if old is None:
            write_atomic(path, entry + newline)
        else:
            _append(path, (b"" if not old or old.endswith(b"\n") else newline) + entry + newline)
        self.written.append(".gitignore")
        print(f"wrote     .gitignore (ignores {line}, what `agenteval run` writes)")


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


def _first_baseline(root: Path, settings: InitSettings) -> None:
    """Run the suites for a new baseline and accept the results, as a user would type it."""
    from .accept import AcceptSettings, accept
    from .run import RunSettings, run

    config = str(root / DEFAULT_PROJECT_FILE)
    print(f"\nrunning the suites for a first baseline (every case {FIRST_BASELINE_RUNS} times, to tell flaky cases from "
          f"deterministic ones; docs/baseline.md): agenteval run --config {config} --new-baseline", flush=True)
    check_arguments([config])  # as `agenteval run --config CONFIG --new-baseline` would
    first = RunSettings(config=config, new_baseline=True, output=Output(style=settings.style),
                        progress_bar=settings.progress_bar, environ=settings.environ)
    code = run(first).exit_code
    try:
        accept(AcceptSettings(config=config))
    except AgentevalError as exc:
        print(f"\nno baseline written: {exc}\nfix that, then: agenteval run --new-baseline && agenteval accept")
        return
    if code != EXIT_PASSED:
        print("some cases are below their thresholds today; the baseline keeps them as they are, and the gate "
              "fails a PR when a case gets worse or newly falls below its threshold")


def _cd(root: Path) -> str:
    return "" if root.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(root.as_posix())} && "


def next_steps(layout: Layout, files: list[str]) -> str:
    files = [f for f in files if (layout.root / f).exists()]
    legacy = ""
    if layout.legacy_files:
        legacy = (f"\n{len(layout.legacy_files)} eval file(s) use ADK's legacy .test.json format ({', '.join(layout.legacy_files[:3])}"
                  f"{', ...' if len(layout.legacy_files) > 3 else ''}): `agenteval convert` turns them into EvalSets, "
                  "with the initial session they need, and updates agenteval.yaml and the baseline to match.\n")
    return f"""{legacy}
next steps:
  1. commit:  {_cd(layout.root)}git add {' '.join(files)} && git commit -m "Gate the agent with agenteval"
  2. secret:  add GOOGLE_API_KEY under Settings > Secrets and variables > Actions (the agent and the judges use it)
  3. require: Settings > Branches > add a branch protection rule (or a ruleset) for main >
              "Require status checks to pass" > add the check "agenteval"
  then every PR gets a comment and the check; a maintainer comments `/agenteval accept` to take intended changes."""


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


def _kept_config_loads(root: Path) -> None:
    """An agenteval.yaml init keeps must load, or the gate it sets up cannot run."""
    from ..files.project import load_project

    try:
        load_project(root / DEFAULT_PROJECT_FILE)
    except InputError as exc:
        raise UsageError(f"{DEFAULT_PROJECT_FILE} exists and does not load; fix it, or replace it with "
                         f"`agenteval init --force`:\n{exc}") from None


def init(settings: InitSettings) -> Done:
    root = _project_root(settings.folder)
    layout = detect(root)
    print(f"found: {len(layout.agents)} ADK agent(s) ({', '.join(map(printable, layout.agents)) or 'none'}), "
          f"{len(layout.eval_files)} eval file(s), {len(layout.configs)} eval config(s); "
          f"install: {layout.install or 'nothing (no requirements.txt, pyproject.toml or uv.lock)'}")
    for folder in layout.unreadable:
        print(f"skipped   {folder}")
    for agent in layout.agents:
        if _shadows_a_module(agent, root):
            print(f"note:     the agent folder {printable(agent)} has the name of an installed module; its absolute imports "
                  "of itself may not work, and `python -m` from this folder imports the folder instead of the module")
    writer = Writer(root, settings.force)
    for rel in (DEFAULT_PROJECT_FILE, GATE_WORKFLOW, ACCEPT_WORKFLOW, ".gitignore", DEFAULT_RESULTS, DEFAULT_BASELINE):
        writer.check(rel)
    keep_config = os.path.lexists(root / DEFAULT_PROJECT_FILE) and not settings.force
    if keep_config:
        _kept_config_loads(root)
        print(f"kept      {DEFAULT_PROJECT_FILE} (it exists; --force replaces it)")
    else:
        writer.write(DEFAULT_PROJECT_FILE, checked_project_yaml(layout))
    writer.write(GATE_WORKFLOW, workflow("gate.yml", DEFAULT_PROJECT_FILE, layout.install))
    writer.write(ACCEPT_WORKFLOW, workflow("accept.yml", DEFAULT_PROJECT_FILE, layout.install))
    for generated in (DEFAULT_RESULTS, LOG_FILE.as_posix()):
        writer.ignore(f"/{generated}")
    if not settings.run:
        print("\nnot run (--no-run): `agenteval run --new-baseline && agenteval accept` writes the first baseline")
    elif (root / DEFAULT_BASELINE).is_file() and not settings.force:
        print(f"\nkept      {DEFAULT_BASELINE} (it exists; `agenteval run` checks against it, --force replaces it)")
    else:
        _first_baseline(root, settings)
    if {GATE_WORKFLOW, ACCEPT_WORKFLOW} & set(writer.written):
        print(f"\n{action_note()}")
    print(next_steps(layout, [DEFAULT_PROJECT_FILE, ".gitignore", GATE_WORKFLOW, ACCEPT_WORKFLOW, DEFAULT_BASELINE]))
    return Done(EXIT_PASSED)
