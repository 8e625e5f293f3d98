#!/usr/bin/env bash
# Build the action's container with podman and run the end-to-end container test against
# the loopback fake GitHub (tests/action/test_container.py).
#
#   sudo apt-get install -y buildah podman runc debootstrap
#   scripts/container_test.sh
#
# Offline base image: where docker.io/library/python:3.12-slim cannot be pulled, a stand-in
# with that name is made from Debian bookworm (debootstrap minbase + python3). Where HTTPS
# is intercepted, the host's CA bundle is baked into the STAND-IN only (never into the
# shipped Dockerfile) so the build's pip install can reach PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=docker.io/library/python:3.12-slim
IMAGE=localhost/agenteval-action:test
PODMAN=(podman --runtime runc)
PY=${PYTHON:-/work/venv/bin/python}

for tool in podman buildah runc; do
  command -v "$tool" >/dev/null || { echo "skip: $tool is not installed"; exit 0; }
done

if ! "${PODMAN[@]}" image exists "$BASE" && ! "${PODMAN[@]}" pull -q "$BASE" 2>/dev/null; then
  command -v debootstrap >/dev/null || { echo "skip: no $BASE and no debootstrap to make a stand-in"; exit 0; }
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  echo "making a stand-in for $BASE with debootstrap (bookworm + python3)"
  debootstrap --variant=minbase --include=python3,python3-pip,python3-venv,ca-certificates bookworm "$root" >/dev/null
  ln -sf /usr/bin/python3 "$root/usr/local/bin/python"
  ca=/etc/ssl/certs/ca-certificates.crt
  cp "$ca" "$root/etc/ssl/certs/host-ca.crt"
  printf '[global]\nbreak-system-packages = true\ncert = /etc/ssl/certs/host-ca.crt\n' > "$root/etc/pip.conf"
  tar -C "$root" -c . | "${PODMAN[@]}" import - "$BASE" >/dev/null
fi

echo "building $IMAGE"
"${PODMAN[@]}" build --network host --ulimit nofile=20000:20000 --ulimit nproc=20000:20000 -t "$IMAGE" -f Dockerfile . 
AGENTEVAL_CONTAINER_IMAGE="$IMAGE" "$PY" -m pytest -q tests/action/test_container.py -rs
