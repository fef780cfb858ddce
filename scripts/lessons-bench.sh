#!/usr/bin/env bash
# The classroom lessons' measurements (docs/lessons/) on a GPU machine, in about two minutes of GPU time
# (lesson 6 also writes and deletes a few GB of frames).
# Assumes build-gpu/ as scripts/gpu-check.sh builds it. Writes JSON and SVG plots to $OUT (or
# ./lessons-out); each lesson's page says which file fills which table. A failing benchmark is reported
# and the others still run.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/lessons-out}
surge=${SURGE:-build-gpu/surge}
mkdir -p "$out"
failed=0
bench() {  # bench NAME ARGS...: one benchmark, its table to $out/NAME.txt
  local name=$1
  shift
  echo "== $name: surge bench $*"
  if ! "$surge" bench "$@" --json "$out/$name.json" 2>&1 | tee "$out/$name.txt"; then
    echo "FAILED: $name" | tee -a "$out/failed.txt"
    failed=1
  fi
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"

# Lessons 1 and 2: every mode over the sizes, with the crossover plot.
bench lesson2-crossover scenes/lessons/2-crossover.toml --modes cpu,hybrid,hybrid-overlap,gpu \
  --particles 4096,16384,65536,262144,1048576 --steps 20 --warmup 5 --plot "$out/lesson2-crossover.svg"
bench lesson1-bus scenes/lessons/1-the-bus.toml --modes hybrid,hybrid-overlap,gpu --steps 100 --warmup 20 \
  --plot "$out/lesson1-bus.svg"
# Lesson 3: sorted by cell against creation order, after the flow has mixed the particles.
bench lesson3-sorted scenes/lessons/3-memory-order.toml --modes gpu --steps 100 --warmup 2000
bench lesson3-creation-order scenes/lessons/3-memory-order.toml --modes gpu --steps 100 --warmup 2000 --no-reorder
# Lesson 4: one branchy force kernel against split fluid and wall passes.
bench lesson4-single scenes/lessons/4-divergence.toml --modes gpu --steps 100 --warmup 50 --force-pass single
bench lesson4-split scenes/lessons/4-divergence.toml --modes gpu --steps 100 --warmup 50 --force-pass split
# Lesson 5: the GPU index by atomics (counting sort) against the CUB radix sort.
bench lesson5-counting scenes/lessons/5-atomics-vs-sort.toml --modes gpu --steps 100 --warmup 20 --index-build counting
bench lesson5-radix scenes/lessons/5-atomics-vs-sort.toml --modes gpu --steps 100 --warmup 20 --index-build radix
# Lesson 6: exported frames written on the stepping thread against a writer thread, every 50 steps.
# Frames go to $out/lesson6-frames and are deleted after each run (about 1 GB per run at 1M particles).
run_export() {  # run_export NAME ARGS...: one `surge run`, its summary to $out/NAME.txt
  local name=$1
  shift
  echo "== $name: surge run $*"
  if ! "$surge" run "$@" --out "$out/lesson6-frames" --quiet 2>&1 | tee "$out/$name.txt"; then
    echo "FAILED: $name" | tee -a "$out/failed.txt"
    failed=1
  fi
  rm -rf "$out/lesson6-frames"
}
run_export lesson6-serial scenes/lessons/6-trajectories.toml --backend gpu --steps 1000 --export-sync
run_export lesson6-overlapped scenes/lessons/6-trajectories.toml --backend gpu --steps 1000
run_export lesson6-overlapped-queue1 scenes/lessons/6-trajectories.toml --backend gpu --steps 1000 --export-queue 1
run_export lesson6-no-export scenes/lessons/6-trajectories.toml --backend gpu --steps 1000 --every 0
exit $failed
