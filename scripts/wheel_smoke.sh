#!/usr/bin/env bash
# The built wheel in a clean venv runs the README's first command: that very line, with the wheel
# installed instead of the checkout (`pip install .`) and a new venv in a temporary folder instead
# of .venv. Then the installed `agenteval` must be the wheel's: its code from the venv, its version.
# Used by .github/workflows/dist.yml; run from the repository root (the example's paths).
#
#   scripts/wheel_smoke.sh dist
set -euo pipefail
dist=${1:?usage: $0 DIST_DIR}
shopt -s nullglob
wheels=("$dist"/*.whl)
[ ${#wheels[@]} -eq 1 ] || { echo "expected one wheel in $dist, found ${#wheels[@]}" >&2; exit 2; }
wheel=$(realpath "${wheels[0]}")
version=$(basename "$wheel" | cut -d- -f2)

first=$(grep -m1 '^python3 -m venv .venv && ' README.md) || { echo "README.md: no first command (python3 -m venv .venv && ...)" >&2; exit 2; }
[[ "$first" == *" && pip install . && "* ]] || { echo "README.md's first command installs no checkout: $first" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
venv=$scratch/venv
command=${first// .venv/ $(printf '%q' "$venv")}
command=${command/ pip install . / pip install $(printf '%q' "$wheel") }
echo "+ $command"
bash -c "$command"

where=$(cd "$venv" && bin/python -c 'import agenteval_ci; print(agenteval_ci.__file__)')  # not from the checkout
[[ "$where" == "$venv"/* ]] || { echo "agenteval_ci came from $where, not from the wheel in $venv" >&2; exit 1; }
said=$("$venv/bin/agenteval" --version)
[ "$said" = "agenteval-ci $version" ] || { echo "agenteval --version says '$said', the wheel is $version" >&2; exit 1; }
echo "the wheel $(basename "$wheel") ran the README's first command from $venv"
