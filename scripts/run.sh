#!/usr/bin/env bash
# Builds Surge and runs it with the given arguments; with none it runs the default scene.
# It builds only the `surge` binary (scripts/test.sh builds the tests), and the CUDA backend only where this
# machine has an NVIDIA driver: without one the backend could not run, and it is most of a first build's
# time. SURGE_CUDA=ON (or OFF) decides instead.
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/.." && pwd)"

has_nvidia_driver() {
  [[ -e /proc/driver/nvidia/version ]] || /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'
}
if [[ -z "${SURGE_CUDA:-}" ]]; then
  if has_nvidia_driver; then SURGE_CUDA=ON; else SURGE_CUDA=OFF; fi
  [[ "$SURGE_CUDA" == OFF ]] &&
    echo "run.sh: no NVIDIA driver here, so the CUDA backend is left out (SURGE_CUDA=ON builds it)" >&2
fi

# Build output goes to stderr so that stdout carries only what surge prints.
cmake -S "$source_dir" -B "$source_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSURGE_CUDA="$SURGE_CUDA" >&2
cmake --build "$source_dir/build" --target surge --parallel "$(nproc)" >&2
exec "$source_dir/build/surge" "$@"
