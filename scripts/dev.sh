#!/bin/sh
# svc bootstrap. Needs only Node >= 20 and npm on the machine.
#
# On first use (or when pnpm-lock.yaml changed) it installs the pinned pnpm and,
# through the workspace's devDependencies, Node 24 into node_modules; then it runs
# what was asked with that Node:
#
#   scripts/dev.sh run <root script> [args]   run a root package.json script with pnpm
#   scripts/dev.sh svc <command> [args]       run the svc command-line tool
#   scripts/dev.sh install                    only install
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
PNPM_VERSION=12.21.0
stamp="$root/node_modules/.svc-install-stamp"
want=$(cat "$root/pnpm-lock.yaml" "$root/pnpm-workspace.yaml" | cksum)

installed() {
  [ -x "$root/node_modules/.bin/node" ] && [ -x "$root/node_modules/.bin/pnpm" ] &&
    [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]
}

if ! installed; then
  echo "svc: installing the toolchain and dependencies (first run only)..." >&2
  (
    cd "$root"
    if [ -x node_modules/.bin/pnpm ]; then
      node_modules/.bin/pnpm install --frozen-lockfile >&2
    else
      npx -y "pnpm@$PNPM_VERSION" install --frozen-lockfile >&2
    fi
  )
  printf '%s' "$want" > "$stamp"
fi

cmd=${1:-}
[ $# -gt 0 ] && shift
PATH="$root/node_modules/.bin:$PATH"
export PATH
case "$cmd" in
  install) ;;
  run) cd "$root" && exec pnpm run --silent "$@" ;;
  svc)
    # npm runs scripts from the repository root; resolve file arguments from the caller's folder.
    cd "${INIT_CWD:-$PWD}"
    exec node "$root/packages/cli/src/bin.ts" "$@" ;;
  *) echo "usage: scripts/dev.sh install | run <script> [args] | svc <command> [args]" >&2; exit 2 ;;
esac
