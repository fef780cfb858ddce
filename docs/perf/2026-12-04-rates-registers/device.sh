#!/usr/bin/env bash
# One H200 call (docs/perf/2026-12-04-rates-registers.md): the rates pass without XSPH's registers and with rho_j
# from the neighbour's position: its SASS (registers, spills, the inner loop), every GPU test but the flumes,
# scenes/spheric2dam.toml beside DualSPHysics at 1M (0.5 s), 4M (0.1 s) and 13M (0.03 s), each Surge run followed
# by DualSPHysics' of the same size, and the dam break at graphics settings at 262k and 16M.
# Run from the checkout with .deps and .peers carried: OUT=... bash docs/perf/2026-12-04-rates-registers/device.sh
set -uo pipefail
out=${OUT:?set OUT}
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
stamp() { echo "== [$(elapsed) s] $*"; }
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
stamp "build surge gpu_tests"
BUILD_ONLY=1 TARGETS="surge gpu_tests" timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"; tail -3 "$out/build.txt"
stamp "SASS of the WCSPH neighbour passes"
obj=build-gpu/sim/CMakeFiles/surge_sim.dir/backend/wcsph_cuda.cu.o
/usr/local/cuda/bin/cuobjdump -res-usage "$obj" 2>&1 | grep -A1 "with_max" | grep -E "REG|STACK" | head -12
/usr/local/cuda/bin/cuobjdump -sass "$obj" | awk '/Function :/ {keep = ($0 ~ /with_max/)} keep' | gzip > "$out/wcsph-with-max.sass.gz"
stamp "gpu_tests -WaveFlume/*"
mkdir -p /tmp/gpu-tests-out
# The tests write their PNGs into OUT: elsewhere, so that the 8 files the device returns are this script's.
OUT=/tmp/gpu-tests-out OMP_WAIT_POLICY=passive timeout 220 build-gpu/tests/gpu_tests --gtest_filter='-WaveFlume/*' 2>&1 |
  grep -vE "^\[ *(RUN|OK) *\]" > "$out/gpu_tests.txt"
echo "gpu_tests exit ${PIPESTATUS[0]}"; tail -12 "$out/gpu_tests.txt"
surge=build-gpu/surge
run() {  # NAME PARTICLES TIME
  local name=$1 n=$2 t=$3
  stamp "surge run scenes/spheric2dam.toml $n fluid, $t s"
  timeout 120 $surge run scenes/spheric2dam.toml --backend gpu --particles "$n" --time "$t" \
    --out "/tmp/s2d-$name" --every 0 --quiet > "$out/run-$name.txt" 2>&1
  echo "exit $?"
  grep -E "steps  |wall time|mean step|^    [a-z]" "$out/run-$name.txt"
}
peer() {  # CASE
  stamp "DualSPHysics $1"
  mkdir -p /tmp/peers-out && OUT=/tmp/peers-out timeout 120 bash .peers/run_device.sh "$1" | grep "^ds"
}
run 1M-0.5 652212 0.5; peer ds01M:0.5
run 4M-0.1 3081624 0.1; peer ds04M:0.1
if [ "$(elapsed)" -lt 420 ]; then run 13M-0.03 10438578 0.03; peer ds13M:0.03; else stamp "no time left for 13M"; fi
cp /tmp/peers-out/summary.txt "$out/dualsphysics-summary.txt"
if [ "$(elapsed)" -lt 540 ]; then
  stamp "dam break at graphics settings, 262k and 16M"
  timeout 45 $surge bench scenes/dam_break.toml --backend gpu --particles 262144,16777216 --steps 100 --warmup 20 \
    > "$out/bench-dam-break.txt" 2>&1
  tail -40 "$out/bench-dam-break.txt"
fi
stamp done
