#!/usr/bin/env bash
# Configures, builds and runs every test. GPU tests report Skipped (exit 77) on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel "$(nproc)"
ctest --test-dir build --output-on-failure -j2
