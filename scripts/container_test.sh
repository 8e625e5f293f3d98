#!/usr/bin/env bash
# Build the action's container with podman and run the end-to-end container tests against
# the loopback fake GitHub (tests/action/test_container.py).
#
#   sudo apt-get install -y buildah podman runc debootstrap
#   scripts/container_test.sh            # NO_CACHE=1 for a cold build
#
# Offline base image: where the Dockerfile's pinned base (python:3.12-slim@sha256:...) cannot
# be pulled, a stand-in named docker.io/library/python:3.12-slim is made from Debian bookworm
# (debootstrap minbase + python3) and the build is pointed at it with --build-arg BASE_IMAGE;
# the Dockerfile itself is built unchanged. Where HTTPS is intercepted, the host's CA bundle
# is baked into the STAND-IN only (never into the shipped Dockerfile) so the build's pip and
# uv can reach PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
STANDIN=docker.io/library/python:3.12-slim
PINNED=$(sed -n 's/^ARG BASE_IMAGE=//p' Dockerfile)
IMAGE=localhost/agenteval-action:test
PODMAN=(podman --runtime runc)
PY=${PYTHON:-$(command -v python)}

for tool in podman buildah runc; do
  command -v "$tool" >/dev/null || { echo "skip: $tool is not installed"; exit 0; }
done

base_args=()
if ! "${PODMAN[@]}" image exists "$PINNED" && ! "${PODMAN[@]}" pull -q "$PINNED" >/dev/null 2>&1; then
  echo "the pinned base $PINNED cannot be pulled: building on the stand-in $STANDIN"
  base_args=(--build-arg "BASE_IMAGE=$STANDIN")
  if ! "${PODMAN[@]}" image exists "$STANDIN"; then
    command -v debootstrap >/dev/null || { echo "skip: no base image and no debootstrap to make a stand-in"; exit 0; }
    root=$(mktemp -d)
    trap 'rm -rf "$root"' EXIT
    echo "making a stand-in for $STANDIN with debootstrap (bookworm + python3)"
    debootstrap --variant=minbase --include=python3,python3-pip,python3-venv,ca-certificates bookworm "$root" >/dev/null
    ln -sf /usr/bin/python3 "$root/usr/local/bin/python"
    ca=/etc/ssl/certs/ca-certificates.crt
    cp "$ca" "$root/etc/ssl/certs/host-ca.crt"
    printf '[global]\nbreak-system-packages = true\ncert = /etc/ssl/certs/host-ca.crt\n' > "$root/etc/pip.conf"
    tar -C "$root" -c . | "${PODMAN[@]}" import --change "ENV SSL_CERT_FILE=/etc/ssl/certs/host-ca.crt" - "$STANDIN" >/dev/null
  fi
fi

echo "building $IMAGE"
cache_args=()
[ -n "${NO_CACHE:-}" ] && cache_args=(--no-cache)
start=$(date +%s)
"${PODMAN[@]}" build "${cache_args[@]}" "${base_args[@]}" --network host --ulimit nofile=20000:20000 --ulimit nproc=20000:20000 \
  -t "$IMAGE" -f Dockerfile .
echo "built in $(( $(date +%s) - start )) s; $("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1 / 1e6}')"
AGENTEVAL_CONTAINER_IMAGE="$IMAGE" "$PY" -m pytest -q tests/action/test_container.py -rs
