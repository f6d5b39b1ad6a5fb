#!/usr/bin/env bash
# Prints the bin folder of the pnpm that package.json's packageManager names,
# installing that version into .cache/ first unless the pnpm on PATH is it.
# Like shipped-node.sh it needs only npm and the npm registry: no root, no
# corepack, nothing outside this repository.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(node -p 'require("./package.json").packageManager.replace(/^pnpm@/, "")')
if [ "$(pnpm --version 2>/dev/null)" = "$want" ]; then
  dirname "$(command -v pnpm)"
  exit 0
fi

dir=.cache/pnpm-$want
if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
  npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --silent "pnpm@$want"
fi
echo "$PWD/$dir/node_modules/.bin"
