#!/usr/bin/env bash
# On a GPU machine without Debian packages (the H200 machine): unpack the header-only dependencies
# carried as .deb files (scripts/fetch-device-deps.sh), build, run the GPU tests and the benchmarks.
# Results go to $OUT (or ./gpu-check-out); the GPU rendering tests leave their PNGs there too.
set -uo pipefail
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out" .deps/root
for f in .deps/pkg/*.deb; do dpkg -x "$f" .deps/root; done
export CMAKE_PREFIX_PATH=$PWD/.deps/root/usr CPATH=$PWD/.deps/root/usr/include
# OpenGL without a display: the glvnd loaders go into the system (the vendor libraries are already there).
if ls .deps/gl/*.deb >/dev/null 2>&1; then
  for f in .deps/gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [ ! -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] && [ -e /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
# glad (python3-glad, pure Python) runs from the unpacked package through this wrapper, named to CMake
# explicitly: the package's own /usr/bin/glad entry point needs the package to be installed.
mkdir -p .deps/bin
cat > .deps/bin/glad <<GLAD
#!/bin/sh
PYTHONPATH=$PWD/.deps/root/usr/lib/python3/dist-packages\${PYTHONPATH:+:\$PYTHONPATH} exec python3 -m glad "\$@"
GLAD
chmod +x .deps/bin/glad
export PATH=$PWD/.deps/bin:$PATH
# The Python module against the interpreter users run there (python3 on PATH, with NumPy 2, CuPy and
# PyTorch), with pybind11 from the carried wheel: Debian's 2.10 cannot read NumPy 2's arrays.
python_args=(-DPython3_EXECUTABLE="$(command -v python3)")
wheel=$(ls .deps/wheels/pybind11-*.whl 2>/dev/null | tail -1)
if [ -n "$wheel" ]; then
  rm -rf .deps/pybind11 && python3 -m zipfile -e "$wheel" .deps/pybind11
  python_args+=(-Dpybind11_DIR="$PWD/.deps/pybind11/pybind11/share/cmake/pybind11")
fi
export OUT=$out
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${python_args[@]}" ${EXTRA_CMAKE_ARGS:-} -DGLAD_EXECUTABLE=$PWD/.deps/bin/glad -DGTest_DIR=$PWD/.deps/root/usr/lib/x86_64-linux-gnu/cmake/GTest > /tmp/configure.log 2>&1 || { tail -30 /tmp/configure.log; exit 1; }
grep -E "^-- (Surge:|Python module|Mesh import)" /tmp/configure.log  # renderer ON is needed for the interop tests and bench --render
# KEEP_GOING=1: build every target that can be built and go on (an optional part, such as the Python module,
# may not build where a dependency is too old), saying what failed.
# EXTRA_CMAKE_ARGS: more configure arguments (e.g. -DCMAKE_CXX_FLAGS=-g1 for line tables in a crash's stack).
# TARGETS="a b": only those targets (and what they need).
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
if [ -n "${KEEP_GOING:-}" ]; then
  cmake --build build-gpu -j16 "${targets[@]}" -- -k 0 > /tmp/build.log 2>&1 || { echo "== some targets failed to build:"; grep -iE "error|FAILED" -A5 /tmp/build.log | head -40; }
else
  cmake --build build-gpu -j16 "${targets[@]}" > /tmp/build.log 2>&1 || { grep -iE "error|FAILED" -A5 /tmp/build.log | head -40; tail -15 /tmp/build.log; exit 1; }
fi
if [ -n "${BUILD_ONLY:-}" ]; then exit 0; fi  # BUILD_ONLY=1: build, for a script that runs its own checks
echo "== ctest -L gpu"
ctest --test-dir build-gpu -L gpu --output-on-failure -V 2>&1 | grep -vE "^[0-9]+: (\[ *(RUN|OK) *\])" | tee "$out/ctest-gpu.log" | tail -25
if [ -z "${GPU_ONLY:-}" ]; then  # GPU_ONLY=1: the gpu label only, when device time is short
  echo "== ctest (all)"
  ctest --test-dir build-gpu -j8 2>&1 | tail -5
fi
if [ -n "${TESTS_ONLY:-}" ]; then exit 0; fi  # TESTS_ONLY=1: no benchmarks (GTEST_FILTER narrows the tests)
echo "== frames: one step + every particle drawn as a sphere at 1920x1080, offscreen (EGL device), 1M and 4M"
build-gpu/surge bench scenes/dam_break.toml --backend gpu --particles 1048576,4194304 --steps 200 --render \
  --size 1920x1080 2>&1 | tee "$out/bench-render.txt"
echo "== surge run --render: PNG frames of the dam break with 1M particles"
build-gpu/surge run scenes/dam_break.toml --backend gpu --particles 1000000 --steps 2000 --every 500 \
  --render "$out/frames" --size 1920x1080 --quiet 2>&1 | tail -4
