#!/usr/bin/env bash
# On a GPU machine without Debian packages (the H200 machine): unpack the header-only dependencies
# carried as .deb files (scripts/fetch-device-deps.sh), build, run the GPU tests and the benchmarks.
# Results go to $OUT (or ./gpu-check-out).
set -uo pipefail
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out" .deps/root
for f in .deps/pkg/*.deb; do dpkg -x "$f" .deps/root; done
export CMAKE_PREFIX_PATH=$PWD/.deps/root/usr CPATH=$PWD/.deps/root/usr/include
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGTest_DIR=$PWD/.deps/root/usr/lib/x86_64-linux-gnu/cmake/GTest > /tmp/configure.log 2>&1 || { tail -30 /tmp/configure.log; exit 1; }
cmake --build build-gpu -j16 > /tmp/build.log 2>&1 || { grep -E "error" -A5 /tmp/build.log | head -40; exit 1; }
echo "== ctest -L gpu"
ctest --test-dir build-gpu -L gpu --output-on-failure -V 2>&1 | grep -vE "^[0-9]+: (\[ *(RUN|OK) *\])" | tee "$out/ctest-gpu.log" | tail -25
if [ -z "${GPU_ONLY:-}" ]; then  # GPU_ONLY=1: the gpu label only, when device time is short
  echo "== ctest (all)"
  ctest --test-dir build-gpu -j8 2>&1 | tail -5
fi 
