"""Paths that are not what they should be (issue 24): a FIFO, socket or folder where a file goes,
a name too long, a symlink loop, no permission. Each is exit 2 naming the path (and the config
key it came from), never a traceback, and nothing waits forever on a FIFO."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.files.judge_cache import DiskCache, cache_key
from tests.fuzz_engine import load_engine
from tests.unprivileged import agenteval, shared_folder

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "home_automation"


def _within(seconds: float, argv: list[str]) -> int:
    """main(argv), failing the test instead of hanging it."""
    outcome: list[int] = []
    thread = threading.Thread(target=lambda: outcome.append(main(argv)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"agenteval {' '.join(argv)} still running after {seconds} s (blocked on a FIFO?)"
    return outcome[0]


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
    return tmp_path / "p"


def _special(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        load_engine().bind_socket(path)  # left bound: the file stays a socket for the test
    else:
        path.mkdir()


@pytest.mark.parametrize("kind, shown", [("fifo", "is a FIFO (named pipe), not a file"), ("socket", "is a socket, not a file"),
                                         ("folder", "is a folder, not a file")])
def test_no_reader_opens_what_is_not_a_file(project, kind, shown, capsys):
    """agenteval.yaml, an eval set, an eval config, a baseline, a results file, an event payload."""
    evalset = project / "evals" / "basic" / "home.evalset.json"
    evalset.unlink()
    _special(evalset, kind)
    special = Path("special.json")
    _special(project / special, kind)
    results = project / "results.json"
    assert main(["score", "evals/judged/quality.evalset.json", "--actual", "evals/judged/quality.evalset.json", "--json", str(results)]) == 0
    capsys.readouterr()
    commands = [
        (["compare", str(results), "--config", str(special)], 2, f"special.json: {shown}"),
        (["score", str(special), "--actual", str(results)], 2, f"special.json: {shown}"),
        (["compare", str(results), "--baseline", str(special)], 2, f"special.json: {shown}"),
        (["compare", str(special), "--baseline", ".agenteval/baseline.json"], 2, f"special.json: {shown}"),
        (["score", "evals/in_order/relative.evalset.json", "--actual", str(results), "--eval-config", str(special)], 2, f"special.json: {shown}"),
    ]
    if kind != "folder":  # a folder named is searched
        commands.append((["validate", str(evalset)], 2, "evals/basic/home.evalset.json: " + shown))
    for argv, code, message in commands:
        assert _within(30, argv) == code, argv
        out, err = capsys.readouterr()
        assert message in out + err and "Traceback" not in err, (argv, out + err)
    # Globs match regular files only: `run` and `validate FOLDER` pass the special file by.
    assert _within(60, ["run", "--json", "r.json"]) == 0
    assert _within(30, ["validate", "evals"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_the_baseline_key_is_named_when_its_path_is_wrong(project, capsys):
    config = project / "agenteval.yaml"
    text = config.read_text()
    (project / "pipe").mkdir()
    os.mkfifo(project / "pipe" / "b.json")
    quality = "evals/judged/quality.evalset.json"
    assert main(["score", quality, "--actual", quality, "--json", ".agenteval/results.json"]) == 0
    cases = {
        "baseline: ''": "agenteval.yaml at $.baseline: is empty; name a file",
        "baseline: " + "b" * 300: "agenteval.yaml at $.baseline: holds a name of more than 255 bytes",
        "baseline: evals": "agenteval.yaml at $.baseline: evals: is a folder, not a file",
        "baseline: agenteval.yaml/b.json": "agenteval.yaml at $.baseline: agenteval.yaml/b.json: a part of the path is a file, not a folder",
        "baseline: pipe/b.json": "agenteval.yaml at $.baseline: pipe/b.json: is a FIFO (named pipe), not a file",
        "baseline: ./": "agenteval.yaml at $.baseline: names a folder; name a file",
    }
    for line, message in cases.items():
        config.write_text(text.replace("baseline: .agenteval/baseline.json", line))
        for command in ("run", "compare", "accept"):
            assert _within(60, [command]) == 2, (line, command)
            err = capsys.readouterr().err
            assert message in err and "Traceback" not in err, (line, command, err)


@pytest.mark.parametrize("glob", ["/", "//", ".", "./", "evals/..", "x" * 5000, "evals/" + "y" * 300 + "/*.json"])
def test_eval_set_globs_that_name_a_folder_or_cannot_exist_are_exit_2(project, glob, capsys):
    config = project / "agenteval.yaml"
    config.write_text(config.read_text().replace('["evals/**/*.evalset.json"]', f'["{glob}"]'))
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "agenteval.yaml at $.suites[0].eval_sets[0]" in err and "Traceback" not in err


def test_paths_too_long_or_looping_are_exit_2_naming_them(project, capsys):
    os.symlink("loop.yaml", project / "loop.yaml")
    long_name = "z" * 5000
    home = "evals/basic/home.evalset.json"
    assert main(["score", home, "--actual", home, "--json", ".agenteval/results.json"]) == 0
    for argv, shown in [
        (["compare", ".agenteval/results.json", "--config", long_name], long_name[:40]),
        (["compare", "--config", "loop.yaml"], "loop.yaml: cannot read the file: a symlink loop"),
        (["validate", long_name], long_name[:40]),
        (["init", long_name], long_name[:40]),
        (["convert", long_name], long_name[:40]),
        (["accept", "--baseline", "x" * 300], "x" * 40),
        (["compare", "--json", "y" * 300 + "/out.json"], "y" * 40),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert shown in err and "Traceback" not in err, (argv, err)


def test_a_judge_cache_entry_that_is_a_fifo_is_a_miss_not_a_hang(tmp_path, capsys):
    cache = DiskCache(tmp_path)
    key = cache_key("m", None, "prompt", 0, 0)
    path = cache._path(key)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    got: list[object] = []
    thread = threading.Thread(target=lambda: got.append(cache.get(key)), daemon=True)
    thread.start()
    thread.join(30)
    assert got == [None], "the cache blocked on a FIFO"
    assert "is a FIFO (named pipe), not a file" in capsys.readouterr().err


def test_unreadable_files_and_folders_are_exit_2_for_a_user_permissions_apply_to():
    work = shared_folder()
    try:
        shutil.copytree(EXAMPLE, work / "p")
        project = work / "p"
        os.system(f"chmod -R a+rwX {project}")
        (project / "evals" / "basic" / "home.evalset.json").chmod(0)
        done = agenteval(["validate", "evals"], project)
        assert done.returncode == 2, done.stderr
        assert "evals/basic/home.evalset.json: cannot read the file: permission denied" in done.stdout
        (project / "evals" / "basic" / "home.evalset.json").chmod(0o644)
        (project / "evals" / "in_order").chmod(0)  # a glob must not pass its cases by in silence
        done = agenteval(["run"], project)
        assert done.returncode == 2, done.stderr
        assert "cannot list the folder evals/in_order (permission denied), which 'evals/**/*.evalset.json' searches" in done.stderr
        (project / "agenteval.yaml").chmod(0)
        done = agenteval(["run"], project)
        assert done.returncode == 2 and "agenteval.yaml: cannot read the file: permission denied" in done.stderr, done.stderr
        (project / "agenteval.yaml").chmod(0o644)
        (project / ".agenteval").chmod(0)
        done = agenteval(["run"], project)
        assert done.returncode == 2, done.stderr
        assert "agenteval.yaml at $.baseline: .agenteval/baseline.json: permission denied" in done.stderr
    finally:
        os.system(f"chmod -R u+rwX {work}")
        shutil.rmtree(work)


def test_an_output_path_that_is_a_device_or_fifo_is_refused_and_left_as_it_is(project, capsys):
    """Renaming a temp file over it would replace the node itself (as root: `--md /dev/stdout`)."""
    home = "evals/basic/home.evalset.json"
    assert main(["score", home, "--actual", home, "--json", "results.json"]) == 0
    os.mkfifo(project / "pipe")
    nodes = {"pipe": "is a FIFO (named pipe), not a file"}
    try:
        os.mknod(project / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        nodes["null"] = "is a character device, not a file"
    except PermissionError:
        pass  # not root: no device of our own; the FIFO stands for both
    for node, message in nodes.items():
        for argv in (["compare", "results.json", "--md", node], ["score", home, "--actual", home, "--json", node],
                     ["report", "results.json", "--format", "html", "-o", node]):
            assert _within(30, argv) == 2, argv
            err = capsys.readouterr().err
            assert f"{node}: cannot write here: {message}" in err, (argv, err)
    assert stat.S_ISFIFO(os.lstat(project / "pipe").st_mode)
    assert "null" not in nodes or stat.S_ISCHR(os.lstat(project / "null").st_mode)
