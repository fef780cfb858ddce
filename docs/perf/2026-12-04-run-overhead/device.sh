#!/usr/bin/env bash
# One H200 call (docs/perf/2026-12-04-run-overhead.md): where `surge run`'s wall time a step exceeds the sum of
# its stages on scenes/spheric2dam.toml, whether CUDA's lazy module loading is part of it, and DualSPHysics
# beside Surge at 1M over its own default 0.5 s and at 13M over 0.03 s. Run from the checkout with .deps and
# .peers carried: OUT=... bash docs/perf/2026-12-04-run-overhead/device.sh
set -uo pipefail
out=${OUT:?set OUT}
start=$(date +%s)
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
stamp "build surge"
BUILD_ONLY=1 TARGETS=surge timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"; tail -3 "$out/build.txt"
surge=build-gpu/surge
run() {  # NAME PARTICLES TIME [env...]
  local name=$1 n=$2 t=$3; shift 3
  stamp "surge run spheric2dam $n fluid, $t s, ${*:-default env}"
  env "$@" timeout 200 $surge run scenes/spheric2dam.toml --backend gpu --particles "$n" --time "$t" \
    --out "/tmp/s2d-$name" --every 0 --quiet > "$out/run-$name.txt" 2>&1
  echo "exit $?"
  grep -E "steps  |setup|wall time|mean step|^    [a-z]" "$out/run-$name.txt"
}
run 1M-0.1 652212 0.1
run 1M-0.1-eager 652212 0.1 CUDA_MODULE_LOADING=EAGER
run 1M-0.2 652212 0.2
run 1M-0.2-eager 652212 0.2 CUDA_MODULE_LOADING=EAGER
run 1M-0.5-eager 652212 0.5 CUDA_MODULE_LOADING=EAGER
run 1M-0.5 652212 0.5
stamp "DualSPHysics 01M 0.5 s"
mkdir -p /tmp/peers-out && OUT=/tmp/peers-out timeout 150 bash .peers/run_device.sh "ds01M:0.5"
run 13M-0.03 10438578 0.03
stamp "DualSPHysics 13M 0.03 s"
OUT=/tmp/peers-out timeout 150 bash .peers/run_device.sh "ds13M:0.03"
cp /tmp/peers-out/summary.txt "$out/dualsphysics-summary.txt"
stamp done
