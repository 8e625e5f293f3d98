"""write_atomic: whole files only, readable by the next step."""

from __future__ import annotations

import os
import stat

from agenteval_ci.files.writing import write_atomic


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_the_mode_open_would_give_it(tmp_path):
    previous = os.umask(0o022)
    try:
        write_atomic(tmp_path / "out" / "results.json", "{}\n")
        os.umask(0o077)
        write_atomic(tmp_path / "private.json", "{}\n")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "out" / "results.json") == 0o644
    assert mode(tmp_path / "private.json") == 0o600
    assert (tmp_path / "out" / "results.json").read_text() == "{}\n"


def test_replacing_a_file_keeps_its_mode(tmp_path):
    target = tmp_path / "comment.md"
    target.write_text("old")
    target.chmod(0o664)
    write_atomic(target, "new")
    assert mode(target) == 0o664 and target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["comment.md"]
