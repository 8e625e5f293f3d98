"""The guarded reader: every bad file is an InputError naming it (exit 2), never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenteval_ci.action.workflow import read_event
from agenteval_ci.cli import main
from agenteval_ci.errors import InputError
from agenteval_ci.files.project import read_project_config
from agenteval_ci.files.readers import MAX_DEPTH, parse_json, parse_yaml, read_json
from tests.unprivileged import agenteval, shared_folder


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "deep": ("[" * 5000 + "]" * 5000).encode(),
        "deep_object": ('{"a":' * 300 + "1" + "}" * 300).encode(),
        "digits": b'{"eval_set_id": ' + b"9" * 5000 + b"}",
        "latin1": '{"eval_set_id": "caf\xe9"}'.encode("latin-1"),
        "utf16": '{"eval_set_id": "x"}'.encode("utf-16"),
        "surrogate": b'{"eval_set_id": "s", "eval_cases": [{"eval_id": "c\\ud800", "conversation": []}]}',
    }
    out = {}
    for name, data in files.items():
        out[name] = tmp_path / f"{name}.json"
        out[name].write_bytes(data)
    out["folder"] = tmp_path / "folder.json"
    out["folder"].mkdir()
    out["loop"] = tmp_path / "loop.json"
    os.symlink("loop.json", out["loop"])
    return out


@pytest.mark.parametrize("kind", ["deep", "deep_object", "digits", "latin1", "utf16", "surrogate", "folder", "loop"])
def test_bad_json_is_an_input_error_naming_the_file(tmp_path, kind):
    path = _bad_files(tmp_path)[kind]
    with pytest.raises(InputError) as exc:
        read_json(path)
    assert path.as_posix() in str(exc.value)


def test_lone_surrogate_names_the_json_path(tmp_path):
    path = _bad_files(tmp_path)["surrogate"]
    with pytest.raises(InputError, match=r"at \$\.eval_cases\[0\]\.eval_id: .*lone surrogate"):
        read_json(path)


def test_depth_limit_allows_the_limit_and_refuses_one_more():
    parse_json("ok.json", "[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(InputError, match="nested more than"):
        parse_json("deep.json", "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2))


@pytest.mark.parametrize("kind", ["deep", "digits", "latin1", "utf16", "surrogate"])
def test_score_and_validate_exit_2_or_1_without_traceback(tmp_path, kind, capsys):
    path = _bad_files(tmp_path)[kind]
    assert main(["score", str(path), "--actual", str(path), "--no-judge-cache"]) == 2
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert path.as_posix() in out + err


def test_permission_denied():
    """As a user permissions apply to (root reads a chmod 000 file)."""
    work = shared_folder()
    try:
        (work / "secret.evalset.json").write_text("{}")
        (work / "secret.evalset.json").chmod(0)
        done = agenteval(["validate", "secret.evalset.json"], work)
        assert done.returncode == 2 and "secret.evalset.json: cannot read the file: permission denied" in done.stdout, done.stdout + done.stderr
    finally:
        shutil.rmtree(work)


def test_yaml_merge_key_bomb_is_refused_quickly(tmp_path):
    lines = ["x0: &x0 {a: 1}"] + [f"x{i}: &x{i} {{<<: [*x{i - 1}, *x{i - 1}]}}" for i in range(1, 42)]
    path = tmp_path / "agenteval.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="aliases and merge keys") as exc:
        read_project_config(path)
    assert path.as_posix() in str(exc.value)


def test_yaml_alias_list_bomb_and_recursion_are_refused():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    with pytest.raises(InputError, match="aliases"):
        parse_yaml("bomb.yaml", "\n".join(lines))
    with pytest.raises(InputError, match="contains it"):
        parse_yaml("rec.yaml", "a: &a [*a]")


def test_yaml_too_deep_and_not_utf8(tmp_path):
    with pytest.raises(InputError, match="nested more than"):
        parse_yaml("deep.yaml", "suites: " + "[" * 5000 + "]" * 5000)
    path = tmp_path / "agenteval.yaml"
    path.write_bytes("suites: caf\xe9".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_project_config(path)
    folder = tmp_path / "dir.yaml"
    folder.mkdir()
    with pytest.raises(InputError, match="folder"):
        read_project_config(folder)


def test_event_payload_guarded(tmp_path):
    path = tmp_path / "event.json"
    path.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(InputError, match="event.json"):
        read_event(str(path))


def test_double_encoded_actuals_are_guarded_inside_the_string(tmp_path, capsys):
    eval_set = Path(__file__).resolve().parents[2] / "examples" / "home_automation" / "evals" / "basic" / "home.evalset.json"
    actual = tmp_path / "run.evalset_result.json"
    actual.write_text(json.dumps("[" * 5000 + "]" * 5000))
    assert main(["score", str(eval_set), "--actual", str(actual), "--no-judge-cache"]) == 2
    err = capsys.readouterr().err
    assert actual.as_posix() in err and "nested more than" in err and "Traceback" not in err


@pytest.mark.parametrize("text", ["", "# only a comment\n", "7", "null"])
def test_a_yaml_without_a_mapping_is_exit_2(tmp_path, text, capsys):
    (tmp_path / "agenteval.yaml").write_text(text)
    results = tmp_path / "results.json"
    results.write_text("{}")
    assert main(["compare", str(results), "--config", str(tmp_path / "agenteval.yaml")]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("text, lone", [
    (r'"\ud83d\ude00"', False), (r'"\uD83D\uDE00"', False), (r'"x"', False), (r'"\\ud800"', False),
    (r'"\\\ud800\udc00"', False), (r'"\ud800"', True), (r'"\udc00"', True), (r'"\\ud800\udc00"', True),
    (r'"\ud800\ud800\udc00"', True), (r'"\udc00\ud800"', True), (r'"\\\\\ud800"', True),
])
def test_emoji_pairs_skip_the_slow_surrogate_walk_and_lone_halves_do_not(text, lone):
    from agenteval_ci.files.readers import may_hold_lone_surrogate

    assert may_hold_lone_surrogate(text) is lone
    try:
        json.loads(text).encode("utf-8")
        decoded_lone = False
    except UnicodeEncodeError:
        decoded_lone = True
    assert decoded_lone is lone  # the quick test agrees with decoding
