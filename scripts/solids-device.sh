#!/usr/bin/env bash
# On the H200 machine: build (scripts/gpu-check.sh's way, tests only), then the moving-solids checks first
# (GPU tests, the CPU physics tests on the machine's 16 cores, the example scenes on the GPU with their gauge
# CSVs in $OUT), then every other GPU test. Carry .deps.
set -uo pipefail
out=${OUT:-$PWD/solids-out}
mkdir -p "$out"
BUILD_ONLY=1 bash scripts/gpu-check.sh > "$out/build.txt" 2>&1
tail -5 "$out/build.txt"
[ -x build-gpu/tests/gpu_tests ] || { tail -40 "$out/build.txt"; exit 1; }
echo "== gpu: MovingSolidsGpu"
build-gpu/tests/gpu_tests --gtest_filter='MovingSolidsGpu.*' > "$out/moving-gpu.txt" 2>&1
grep -vE "sample [0-9]+:" "$out/moving-gpu.txt" | grep -E "piston|Failure|FAILED|OK|Which|actual|expected" | head -40
echo "== cpu (device cores): MovingSolids + CpuRegression"
OMP_WAIT_POLICY=passive build-gpu/tests/sim_tests --gtest_filter='MovingSolids.*:Solids.Hydro*' 2>&1 | grep -E "^(box|light|fixed|paddle|floor)|OK|FAILED|Failure|expected|Which|actual" | tee "$out/moving-cpu.txt"
# The example scenes on the GPU: gauge CSVs only (the mesh scenes need assimp, which the machine lacks).
for s in ${SOLID_SCENES:-floating_box:2.0 wave_tank:8.0}; do
  name=${s%%:*}; t=${s##*:}
  echo "== scene $name to t = $t s (gpu)"
  /usr/bin/time -f "%e s wall" build-gpu/surge run scenes/$name.toml --backend gpu --time "$t" --out "$out/$name" --every 0 --quiet 2>&1 | tail -3
done
echo "== floating box drawn with its walls, offscreen (EGL)"
build-gpu/surge run scenes/floating_box.toml --backend gpu --time 0.6 --out /tmp/fb --render "$out/floating_frames" --boundary --every 1500 --size 960x540 --quiet 2>&1 | tail -2
echo "== gpu: all the others"
build-gpu/tests/gpu_tests --gtest_filter='-MovingSolidsGpu.*' 2>&1 | grep -E "PASSED|FAILED|Failure|tests from" | tail -12
