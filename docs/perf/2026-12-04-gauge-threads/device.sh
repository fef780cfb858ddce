#!/usr/bin/env bash
# One H200 call (docs/perf/2026-12-04-gauge-threads.md): the GPU tests after the gauges became one thread a sum,
# and whether that closed `surge run`'s third of a millisecond a step outside its stages on scenes/spheric2dam.toml
# (docs/perf/2026-12-04-run-overhead.md), with DualSPHysics beside Surge at 1M over 0.5 s and at 13M over 0.03 s.
# Run from the checkout with .deps and .peers carried: OUT=... bash docs/perf/2026-12-04-gauge-threads/device.sh
set -uo pipefail
out=${OUT:?set OUT}
start=$(date +%s)
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log -1 --format='commit %H' 2>/dev/null || true
stamp "build surge gpu_tests"
BUILD_ONLY=1 TARGETS="surge gpu_tests" timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"; tail -3 "$out/build.txt"
surge=build-gpu/surge
# The same scene without its twelve gauges: what the run costs outside its stages when nothing is sampled.
sed '/^\[gauges\]/,$d' scenes/spheric2dam.toml > /tmp/spheric2dam-nogauges.toml
run() {  # NAME SCENE PARTICLES TIME
  local name=$1 scene=$2 n=$3 t=$4
  stamp "surge run $scene $n fluid, $t s"
  timeout 200 $surge run "$scene" --backend gpu --particles "$n" --time "$t" \
    --out "/tmp/s2d-$name" --every 0 --quiet > "$out/run-$name.txt" 2>&1
  echo "exit $?"
  grep -E "steps  |setup|wall time|mean step|^    [a-z]" "$out/run-$name.txt"
}
run 1M-0.1 scenes/spheric2dam.toml 652212 0.1
run 1M-0.1-nogauges /tmp/spheric2dam-nogauges.toml 652212 0.1
run 1M-0.5 scenes/spheric2dam.toml 652212 0.5
stamp "DualSPHysics 01M 0.5 s"
mkdir -p /tmp/peers-out && OUT=/tmp/peers-out timeout 150 bash .peers/run_device.sh "ds01M:0.5"
run 13M-0.03 scenes/spheric2dam.toml 10438578 0.03
stamp "DualSPHysics 13M 0.03 s"
OUT=/tmp/peers-out timeout 150 bash .peers/run_device.sh "ds13M:0.03"
cp /tmp/peers-out/summary.txt "$out/dualsphysics-summary.txt"
stamp "gpu_tests -WaveFlume/*"
mkdir -p /tmp/gpu-tests-out && OUT=/tmp/gpu-tests-out timeout 200 build-gpu/tests/gpu_tests --gtest_filter='-WaveFlume/*' 2>&1 | grep -vE "^\[ *(RUN|OK) *\]" > "$out/gpu_tests.txt"
tail -15 "$out/gpu_tests.txt"
stamp done
