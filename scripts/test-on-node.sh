#!/usr/bin/env bash
# Runs the README's test command (`npm install && npm test`) on another Node.js release
# (scripts/with-node.sh), in a fresh copy of this tree: the copy gets its own node_modules with
# native addons (better-sqlite3) built for that release, so this tree's install, built for the
# system Node, stays as it is.
#
#   scripts/test-on-node.sh 24.21.0                 # the README's test command
#   scripts/test-on-node.sh 24.21.0 -- npm run lint # or any other command, in the copy
#
# The copy holds what git would commit (tracked files and new ones it does not ignore), so
# node_modules, dist and data stay behind. FOYER_KEEP_COPY=1 keeps it afterwards for a look.
set -euo pipefail

usage() {
  echo "usage: $0 <version> [-- <command> [args…]]" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
version=$1
shift
if [[ $# -gt 0 ]]; then
  [[ $1 == -- && $# -ge 2 ]] || usage
  shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)

copy=$(mktemp -d "${TMPDIR:-/tmp}/foyer-node-$version-XXXXXX")
if [[ ${FOYER_KEEP_COPY:-} == 1 ]]; then
  echo "test-on-node: the copy stays at $copy" >&2
else
  trap 'rm -rf "$copy"' EXIT
fi

cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Deleted but not yet committed files are listed by git and skipped here.
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do [[ -e $file || -L $file ]] && printf '%s\0' "$file"; done |
    tar --null -T - -cf - | tar -xf - -C "$copy"
else
  tar --exclude=node_modules --exclude=dist --exclude=./data --exclude=coverage -cf - . | tar -xf - -C "$copy"
fi

cd "$copy"
if [[ $# -eq 0 ]]; then
  set -- bash -c 'npm install && npm test'
fi
echo "test-on-node: Node $version in $copy: $*" >&2
"$root/scripts/with-node.sh" "$version" -- "$@"
