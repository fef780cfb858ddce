#!/usr/bin/env bash
# Configures, builds and runs every test. GPU tests report Skipped (exit 77) on a machine without a GPU; the
# reason each skipped test gave is printed at the end (ctest itself keeps it in LastTest.log only).
set -euo pipefail
cd "$(dirname "$0")/.."

# Every target, the CUDA backend included where nvcc is found (it compiles without a GPU); scripts/run.sh
# may have configured build/ without it.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSURGE_CUDA="${SURGE_CUDA:-ON}"
cmake --build build --parallel "$(nproc)"
status=0
ctest --test-dir build --output-on-failure -j2 | tee build/ctest-output.log || status=$?
scripts/skip-reasons.sh build/ctest-output.log build/Testing/Temporary/LastTest.log
exit "$status"
