#!/usr/bin/env bash
# One call on the GPU machine (record what it prints in docs/perf/): build the GPU targets, run every GPU
# test (checkpoints, out-of-memory reporting included), probe the Python module where it crashed before,
# run the GPU tests under compute-sanitizer (scripts/gpu-sanitize.sh) and a soak of 1M particles for 1e5
# steps (scripts/gpu-soak.sh). Everything it prints goes to $OUT too; each part is time-boxed.
#   PARTS   which parts to run (default all): build tests python sanitize soak
#           (racecheck alone, 3-30x slower than a plain run: PARTS="build sanitize" SANITIZE_SHARDS=4
#           SANITIZE_TOOLS=racecheck SANITIZE_TIMEOUT=300 and a SANITIZE_FILTER naming part of the tests)
# The logs are bundled into $OUT/logs.tgz at the end: the device tool brings back at most 8 files.
set -uo pipefail
parts=" ${PARTS:-build tests python sanitize soak} "
want() { [[ $parts == *" $1 "* ]]; }
out=${OUT:-$PWD/device-out}
mkdir -p "$out"
start=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - start )) s] $*"; }
python3 -c "import sys, sysconfig, os; print(sys.executable, sys.version.split()[0], os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>&1 | sed 's/^/python, Python.h: /' | tee "$out/python.txt"
if want build; then
stamp "build"
EXTRA_CMAKE_ARGS=${EXTRA_CMAKE_ARGS:--DCMAKE_CXX_FLAGS=-g1} KEEP_GOING=1 BUILD_ONLY=1 TARGETS="surge gpu_tests surge_python" timeout 330 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"; tail -8 "$out/build.txt"
fi

if want tests; then
stamp "gpu_tests (every GPU test)"
OMP_WAIT_POLICY=passive timeout 150 build-gpu/tests/gpu_tests > "$out/gpu_tests.txt" 2>&1
echo "gpu_tests exit $?"
grep -E "^\[  (PASSED|FAILED) |tests ran|^\[  FAILED|Failure|light box draft|not checked" "$out/gpu_tests.txt" | head -24
grep -E "checkpoint +[0-9]+ bytes" "$out/gpu_tests.txt" | head -80 > "$out/checkpoint-sizes.txt"; wc -l < "$out/checkpoint-sizes.txt"
fi

if want python; then
stamp "python module: NumPy imported first and after, its export table, pytest with the GPU test"
if ls build-gpu/python/surge/_surge*.so >/dev/null 2>&1; then
  probe='import surge; print("imported", surge.__file__, flush=True); s = surge.Simulation("scenes/dam_break.toml", backend="cpu", particles=1500); print("made", s.backend, flush=True); print(s.step(5), flush=True)'
  PYTHONPATH=$PWD/build-gpu/python timeout 60 python3 -X faulthandler -c "$probe" > "$out/python-probe.txt" 2>&1
  echo "probe exit $?"; tail -25 "$out/python-probe.txt"
  # The native stack of a crash (no gdb there; cuda-gdb debugs host code too, and segv_backtrace.so prints
  # the stack from a signal handler). It crashed when NumPy was imported before surge until the module kept its
  # static C++ runtime to itself (2026-12-02); the two import orders below check that it stays so.
  cc -shared -fPIC -o /tmp/segv_backtrace.so scripts/diagnostics/segv_backtrace.c -ldl
  native_stack() {  # the stack segv_backtrace.so printed into $1, each frame's function and line named
    grep -q "native stack" "$1" || return 0
    grep -A30 "native stack" "$1" | grep -E "^  #" | head -24 | while read -r n lib offset rest; do
      echo "$n $(basename "$lib") $offset $rest :: $(addr2line -f -C -i -e "$lib" "$offset" 2>/dev/null | paste -sd' ')"
    done
  }
  run_variant() {  # NAME, ENV..., then the Python code's first statement
    local name=$1; shift
    local code=${!#}
    env "${@:1:$#-1}" PYTHONPATH=$PWD/build-gpu/python LD_PRELOAD=/tmp/segv_backtrace.so timeout 60 python3 \
      -c "$code; s = surge.Simulation('scenes/dam_break.toml', backend='cpu', particles=1500); s.step(5); print('ok', s.backend, s.positions.shape)" \
      > "$out/python-$name.txt" 2>&1
    echo "variant $name: exit $? $(grep -E '^ok' "$out/python-$name.txt")"
    native_stack "$out/python-$name.txt"
  }
  # Which libstdc++ routines and objects the module defines itself (a copy of istream::_M_extract<double> was in
  # the device build's stack of the crash): exported ones are what another library's libstdc++ can bind to.
  module=$(ls build-gpu/python/surge/_surge*.so | head -1)
  nm -C --defined-only "$module" | grep -E "std::(locale|ios_base|basic_istream|basic_ios|num_get|numpunct|ctype)" |
    cut -c1-160 > "$out/python-module-stdlib-symbols.txt"
  echo "module defines $(wc -l < "$out/python-module-stdlib-symbols.txt") locale/stream symbols, exports $(nm -D -C --defined-only "$module" | grep -cE "std::(locale|ios_base|basic_istream|basic_ios|num_get|numpunct|ctype)")"
  head -12 "$out/python-module-stdlib-symbols.txt"
  run_variant surge-first X=1 'import surge, numpy'
  run_variant numpy-first X=1 'import numpy, surge'
  python3 -c "import numpy; print('numpy', numpy.__version__, numpy.__file__)" 2>&1 | head -3
  # How the module gets its C++ runtime there (the 2026-12-02 crash: a static copy whose symbols were exported;
  # the module now exports only PyInit__surge, app/python/surge_module.map).
  ldd "$module" | grep -E "stdc|gcc_s|gomp" | sed 's/^/module needs: /'
  echo "module exports: $(nm -D --defined-only "$module" | awk '{print $NF}' | paste -sd' ' | cut -c1-200)"
  ldd build-gpu/surge | grep -E "stdc" | sed "s/^/surge needs: /" || echo "surge: no libstdc++.so (linked in statically)"
  echo "g++ finds libstdc++.so at: $(g++ -print-file-name=libstdc++.so) ($(readlink -f "$(g++ -print-file-name=libstdc++.so)"))"
  PYTHONPATH=$PWD/build-gpu/python SURGE_SOURCE_DIR=$PWD SURGE_TEST_GPU=1 LD_PRELOAD=/tmp/segv_backtrace.so \
    timeout 90 python3 -m pytest -p no:faulthandler -q -rs tests/python > "$out/pytest-gpu.txt" 2>&1
  echo "pytest exit $?"; tail -6 "$out/pytest-gpu.txt"
  native_stack "$out/pytest-gpu.txt"
else
  echo "no Python module was built (see build.txt)"
fi
fi

if want sanitize; then
  stamp "compute-sanitizer"
  # The kernels that use shared memory (racecheck's subject): Surge's own, CUB's appear under cub:: names.
  cuobjdump -res-usage build-gpu/tests/gpu_tests 2>/dev/null | awk '/Function/ {f=$2} /SHARED:[1-9]/ {print f}' |
    c++filt | sed 's/(.*//' | sort | uniq -c | sort -rn > "$out/shared-memory-kernels.txt"
  echo "kernels with shared memory: $(wc -l < "$out/shared-memory-kernels.txt")"; grep -v "cub::" "$out/shared-memory-kernels.txt" | head -12
  SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-200} scripts/gpu-sanitize.sh build-gpu
fi
if want soak; then
  stamp "soak"
  timeout 200 scripts/gpu-soak.sh build-gpu 1000000 100000
fi
stamp "done"
(cd "$out" && find . -maxdepth 1 -type f \( -name '*.txt' -o -name '*.csv' \) ! -name session.txt -print0 |
  tar czf logs.tgz --null -T - --remove-files)
