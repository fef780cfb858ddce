#!/usr/bin/env bash
# Builds Surge and runs it with the given arguments; with none it runs the default scene.
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/.." && pwd)"

# Build output goes to stderr so that stdout carries only what surge prints.
cmake -S "$source_dir" -B "$source_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$source_dir/build" --parallel "$(nproc)" >&2
exec "$source_dir/build/surge" "$@"
