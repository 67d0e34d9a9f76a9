#!/usr/bin/env bash
# Fails when proto/gen is not exactly what `npm run generate` makes from proto/ today,
# so a .proto change can never land without its regenerated code.
set -euo pipefail
cd "$(dirname "$0")/.."
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
buf generate --template proto/buf.gen.yaml -o "$fresh"
if ! diff -r -q proto/gen "$fresh/proto/gen" >&2; then
  echo "proto/gen is stale: run 'npm run generate' and commit the result." >&2
  exit 1
fi
echo "proto/gen is up to date." >&2
