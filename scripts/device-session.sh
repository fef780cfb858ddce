#!/usr/bin/env bash
# One call on the GPU machine (record what it prints in docs/perf/): build the GPU targets, run every GPU
# test (checkpoints, out-of-memory reporting included), probe the Python module where it crashed before,
# run the GPU tests under compute-sanitizer (scripts/gpu-sanitize.sh) and a soak of 1M particles for 1e5
# steps (scripts/gpu-soak.sh). Everything it prints goes to $OUT too; each part is time-boxed.
set -uo pipefail
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
start=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - start )) s] $*"; }
python3 -c "import sys, sysconfig, os; print(sys.executable, sys.version.split()[0], os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>&1 | sed 's/^/python, Python.h: /' | tee "$out/python.txt"
stamp "build"
KEEP_GOING=1 BUILD_ONLY=1 TARGETS="surge gpu_tests surge_python" timeout 330 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"; tail -5 "$out/build.txt"

stamp "gpu_tests (every GPU test)"
OMP_WAIT_POLICY=passive timeout 150 build-gpu/tests/gpu_tests > "$out/gpu_tests.txt" 2>&1
echo "gpu_tests exit $?"
grep -E "^\[  (PASSED|FAILED) |tests ran|^\[  FAILED|Failure" "$out/gpu_tests.txt" | head -20
grep -E "checkpoint +[0-9]+ bytes" "$out/gpu_tests.txt" | head -80 > "$out/checkpoint-sizes.txt"; wc -l < "$out/checkpoint-sizes.txt"

stamp "python module: where it crashed"
if ls build-gpu/python/surge/_surge*.so >/dev/null 2>&1; then
  probe='import surge; print("imported", surge.__file__, flush=True); s = surge.Simulation("scenes/dam_break.toml", backend="cpu", particles=1500); print("made", s.backend, flush=True); print(s.step(5), flush=True)'
  PYTHONPATH=$PWD/build-gpu/python timeout 60 python3 -X faulthandler -c "$probe" > "$out/python-probe.txt" 2>&1
  echo "probe exit $?"; tail -25 "$out/python-probe.txt"
  if command -v gdb >/dev/null; then
    PYTHONPATH=$PWD/build-gpu/python timeout 90 gdb -q -batch -ex run -ex bt -ex "info sharedlibrary" --args python3 -c "$probe" > "$out/python-gdb.txt" 2>&1
    grep -E "^#[0-9]+|signal|SIG" "$out/python-gdb.txt" | head -30
  else
    echo "no gdb here"; ldd build-gpu/python/surge/_surge*.so | head -20
  fi
  PYTHONPATH=$PWD/build-gpu/python SURGE_SOURCE_DIR=$PWD SURGE_TEST_GPU=1 timeout 90 python3 -m pytest -q -rs tests/python \
    > "$out/pytest-gpu.txt" 2>&1
  echo "pytest exit $?"; tail -6 "$out/pytest-gpu.txt"
else
  echo "no Python module was built (see build.txt)"
fi

stamp "compute-sanitizer"
SANITIZE_TIMEOUT=70 scripts/gpu-sanitize.sh build-gpu
stamp "soak"
timeout 200 scripts/gpu-soak.sh build-gpu 1000000 100000
stamp "done"
