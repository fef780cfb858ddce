#!/usr/bin/env bash
# One call on the GPU machine for the first-hour and continuity work (docs/perf/2026-12-01-first-hour.md):
# build everything (the Python module where pybind11 builds against the machine's Python), the GPU tests,
# the Python module's GPU test with CuPy and PyTorch, SPHERIC Test 2 with continuity density on the GPU, and
# the default dam break at 200k particles. Everything it prints goes to $OUT too.
set -uo pipefail
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
python3 -c "import sys, sysconfig, os; print(sys.version.split()[0], os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>&1 | sed 's/^/python, Python.h: /' | tee "$out/python.txt"
KEEP_GOING=1 BUILD_ONLY=1 scripts/gpu-check.sh > "$out/build.txt" 2>&1
tail -30 "$out/build.txt"
grep -E "Python module|Surge:" /tmp/configure.log | tee -a "$out/build.txt"

echo "== ctest -L gpu"
ctest --test-dir build-gpu -L gpu --output-on-failure > "$out/ctest-gpu.log" 2>&1
grep -E "tests passed|tests failed|Failed|Skipped" "$out/ctest-gpu.log" | tail -8
echo "== gpu_tests (every GPU test, verbose)"
OMP_WAIT_POLICY=passive build-gpu/tests/gpu_tests > "$out/gpu_tests.txt" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$out/gpu_tests.txt" | head -20

echo "== python module on the GPU"
if [ -d build-gpu/python/surge ] && ls build-gpu/python/surge/_surge*.so >/dev/null 2>&1; then
  PYTHONPATH=$PWD/build-gpu/python SURGE_SOURCE_DIR=$PWD SURGE_TEST_GPU=1 python3 -m pytest -q -rs tests/python \
    > "$out/pytest-gpu.txt" 2>&1
  tail -15 "$out/pytest-gpu.txt"
else
  echo "no Python module was built here (see build.txt)"
fi

echo "== SPHERIC Test 2 with continuity density and delta-SPH (delta = 0.1), 84k particles, GPU, 1.5 s"
sed 's/^\[fluid\]$/[fluid]\ncontinuity_density = true\ndensity_diffusion = 0.1/' scenes/spheric2_dam_break.toml \
  > /tmp/spheric2_continuity.toml
grep -n -A3 "^\[fluid\]" /tmp/spheric2_continuity.toml | head -5
build-gpu/surge run /tmp/spheric2_continuity.toml --backend gpu --time 1.5 --quiet --out "$out/spheric2c" \
  --export vtk --every-time 0.5 > "$out/spheric2-continuity.txt" 2>&1
echo "exit $?"; grep -E "backend|steps |simulated|wall time|unstable|instab|error" "$out/spheric2-continuity.txt" | head -10
tail -3 "$out/spheric2-continuity.txt"

echo "== the default dam break at 200k particles on the GPU"
build-gpu/surge run scenes/dam_break.toml --backend gpu --particles 200000 --quiet --out /tmp/db200k \
  > "$out/dam-break-200k.txt" 2>&1
grep -E "particles|steps |simulated|wall time|mean step" "$out/dam-break-200k.txt"
