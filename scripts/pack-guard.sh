#!/usr/bin/env bash
# `pnpm pack:guard`: builds @svc/session-guard from a clean dist/ and packs it
# into dist/packages/svc-session-guard-<version>.tgz, the tarball other teams
# install with npm. Works on a fresh clone: it installs the guard's own
# dependencies first (its compiler among them), and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$PWD/dist/packages
pnpm install --frozen-lockfile --filter @svc/session-guard
rm -rf packages/session-guard/dist
mkdir -p "$out"
cd packages/session-guard
# prepack compiles; the tarball holds dist/ and the README (package.json "files").
pnpm pack --pack-destination "$out"
