#!/usr/bin/env bash
# Point action.yml at a prebuilt image: `image: Dockerfile` -> `image: docker://<image>:<version>`.
# Used by .github/workflows/release.yml on the release commit only; main keeps the Dockerfile.
#
#   scripts/release_action_yml.sh ghcr.io/owner/repo:1.2.3 [action.yml]
set -euo pipefail
image=${1:?usage: $0 IMAGE:VERSION [action.yml]}
file=${2:-action.yml}
[[ "$image" =~ ^[a-z0-9][a-z0-9./_-]*:[A-Za-z0-9_.-]+$ ]] || { echo "not a lowercase image:version reference: '$image'" >&2; exit 2; }
grep -qx '  image: Dockerfile' "$file" || { echo "$file: expected the line '  image: Dockerfile' under runs:" >&2; exit 2; }
sed -i "s|^  image: Dockerfile\$|  image: docker://$image|" "$file"
grep -qx "  image: docker://$image" "$file"
