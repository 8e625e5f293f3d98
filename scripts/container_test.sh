#!/usr/bin/env bash
# Build the action's container with podman and run the end-to-end container tests against
# the loopback fake GitHub (tests/action/test_container.py).
#
#   sudo apt-get install -y buildah podman runc debootstrap
#   scripts/container_test.sh [PYTEST_ARGS...]   # NO_CACHE=1 for a cold build, REBUILD_BASE=1 for a new stand-in
#   BUILD_ONLY=1 scripts/container_test.sh       # only build the image (scripts/workflow_test.sh does)
#
# Offline base image: where the Dockerfile's pinned base (python:3.12-slim@sha256:...) cannot
# be pulled, a stand-in named docker.io/library/python:3.12-slim is made and the build is
# pointed at it with --build-arg BASE_IMAGE; the Dockerfile itself is built unchanged. Like
# the real one, the stand-in is Debian bookworm (debootstrap minbase, the runtime libraries
# CPython needs, docs trimmed) with CPython 3.12 under /usr/local and pip from ensurepip.
# Bookworm's own python3 is 3.11, so the 3.12 is copied from a CPython 3.12 built on this
# (bookworm) host: PYTHON312=/path/to/python3.12, else python3.12 on PATH or pyenv's. Its
# stdlib, shared libpython and headers are copied; never its site-packages. Without one, the
# script skips rather than test a 3.11 image under the 3.12 name. REBUILD_BASE=1 remakes it.
# Where HTTPS is intercepted, the host's CA bundle is baked into the STAND-IN only (never into
# the shipped Dockerfile) so the build's pip and uv can reach PyPI.
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

# A CPython 3.12 of this host, for the stand-in: its real prefix (pyenv's shims resolved).
python312_prefix() {
  local candidate
  for candidate in "${PYTHON312:-}" "$(command -v python3.12 || true)" \
                   "$(command -v pyenv >/dev/null && pyenv prefix 3.12 2>/dev/null | head -1)/bin/python3.12"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12); print(sys.base_prefix)' 2>/dev/null && return
  done
  return 0
}

base_args=()
if ! "${PODMAN[@]}" image exists "$PINNED" && ! "${PODMAN[@]}" pull -q "$PINNED" >/dev/null 2>&1; then
  echo "the pinned base $PINNED cannot be pulled: building on the stand-in $STANDIN"
  base_args=(--build-arg "BASE_IMAGE=$STANDIN")
  if [ -n "${REBUILD_BASE:-}" ] || ! "${PODMAN[@]}" image exists "$STANDIN"; then
    command -v debootstrap >/dev/null || { echo "skip: no base image and no debootstrap to make a stand-in"; exit 0; }
    prefix=$(python312_prefix)
    [ -n "$prefix" ] || { echo "skip: no CPython 3.12 on this host to make a stand-in (set PYTHON312)"; exit 0; }
    ver=$("$prefix/bin/python3.12" -c 'import platform; print(platform.python_version())')
    root=$(mktemp -d)
    trap 'rm -rf "$root"' EXIT
    echo "making a stand-in for $STANDIN with debootstrap (bookworm) and CPython $ver from $prefix"
    debootstrap --variant=minbase \
      --include=ca-certificates,netbase,tzdata,libbz2-1.0,libexpat1,libffi8,liblzma5,libncursesw6,libnsl2,libreadline8,libsqlite3-0,libssl3,libtirpc3,libuuid1,zlib1g \
      bookworm "$root" >/dev/null
    rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
      "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    local_=$root/usr/local
    mkdir -p "$local_/bin" "$local_/lib/pkgconfig" "$local_/include"
    cp -a "$prefix/bin/python3.12" "$local_/bin/"
    cp -a "$prefix"/lib/libpython3*.so* "$local_/lib/"
    cp -a "$prefix/include/python3.12" "$local_/include/"
    tar -C "$prefix/lib" -c --exclude='python3.12/site-packages/*' --exclude='python3.12/test' \
      --exclude=__pycache__ --exclude='*.pyc' --exclude=idle_test --exclude='*/lib-dynload/_tkinter*' \
      --exclude='libpython*.a' python3.12 | tar -C "$local_/lib" -x
    for link in python3:python3.12 python:python3; do ln -sf "${link#*:}" "$local_/bin/${link%%:*}"; done
    chroot "$root" /sbin/ldconfig
    in_root=(env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 chroot "$root")
    "${in_root[@]}" python3 -m ensurepip --default-pip >/dev/null
    "${in_root[@]}" python -c 'import sys, ssl, sqlite3, ctypes, lzma, bz2, zlib, uuid, venv; assert sys.version_info[:2] == (3, 12)'
    find "$local_" -depth \( -name __pycache__ -o -name '*.pyc' \) -exec rm -rf {} +
    ca=/etc/ssl/certs/ca-certificates.crt
    cp "$ca" "$root/etc/ssl/certs/host-ca.crt"
    printf '[global]\ncert = /etc/ssl/certs/host-ca.crt\n' > "$root/etc/pip.conf"
    old=$("${PODMAN[@]}" image inspect --format '{{.Id}}' "$STANDIN" 2>/dev/null || true)
    tar -C "$root" -c . | "${PODMAN[@]}" import \
      --change "ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin" \
      --change "ENV LANG=C.UTF-8" --change "ENV PYTHON_VERSION=$ver" \
      --change "ENV SSL_CERT_FILE=/etc/ssl/certs/host-ca.crt" --change 'CMD ["python3"]' \
      - "$STANDIN" >/dev/null
    [ -z "$old" ] || "${PODMAN[@]}" rmi "$old" >/dev/null 2>&1 || true  # the replaced stand-in, unless still in use
    rm -rf "$root"
    trap - EXIT
  fi
fi

echo "building $IMAGE"
cache_args=()
[ -n "${NO_CACHE:-}" ] && cache_args=(--no-cache)
start=$(date +%s)
"${PODMAN[@]}" build "${cache_args[@]}" "${base_args[@]}" --network host --ulimit nofile=20000:20000 --ulimit nproc=20000:20000 \
  -t "$IMAGE" -f Dockerfile .
echo "built in $(( $(date +%s) - start )) s; $("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1 / 1e6}')"
[ -z "${BUILD_ONLY:-}" ] || exit 0
AGENTEVAL_CONTAINER_IMAGE="$IMAGE" "$PY" -m pytest -q tests/action/test_container.py -rs "$@"
