"""Tiny wheels written by hand, for pip to install offline from a --find-links folder."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def record_line(name: str, text: str) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(text.encode())}\n"


def write_wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = (), module: str | None = None,
                scripts: dict[str, str] | None = None) -> Path:
    """A pure-Python wheel named `name`; `module` becomes the source of the package of the same name,
    `scripts` the console scripts pip makes of it (name -> "module:function")."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                            + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: agenteval-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    if module is not None:
        files[f"{dist}/__init__.py"] = module
    if scripts:
        files[f"{info}/entry_points.txt"] = "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())
    files[f"{info}/RECORD"] = "".join(record_line(n, t) for n, t in files.items()) + f"{info}/RECORD,,\n"
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for file_name, text in files.items():
            archive.writestr(file_name, text)
    return path


def user_wheels(folder: Path) -> Path:
    """What a user's `install` may ask for: pins that conflict with ours, and a harmless helper."""
    folder.mkdir(parents=True, exist_ok=True)
    write_wheel(folder, "google-adk", "1.18.0")
    write_wheel(folder, "pydantic", "2.9.0")
    write_wheel(folder, "legacy-lib", "1.0", requires=("pydantic<2.10",))
    write_wheel(folder, "home-helpers", "1.0", requires=("pydantic>=2",), module="STEP = 2\n")
    return folder


def import_home_helpers(repo: Path) -> None:
    """The example agent takes its thermostat step from home-helpers, a package only `install` provides."""
    agent = repo / "agent.py"
    source = agent.read_text()
    old = '(2 if match[1] == "warmer" else -2)'
    assert old in source
    source = source.replace(old, '(STEP if match[1] == "warmer" else -STEP)')
    agent.write_text(source.replace("from typing import Any\n", "from typing import Any\n\nfrom home_helpers import STEP\n"))
