#!/usr/bin/env bash
# H200 call of docs/perf/2026-12-04-gpu-neighbour-lists.md: DFSPH and PBF with the GPU's per-step neighbour
# lists against the cell walks they replace, side by side; the 1M dam break over 0.4 s with WCSPH and with
# DFSPH (lists; whole and half cells), at the density error DFSPH stops at; then the GPU tests.
# Run from the checkout with .deps carried: OUT=... bash docs/perf/2026-12-04-gpu-neighbour-lists/device-1.sh
# PARTS="tests bench runs all-tests" (the default) or a subset, and "billion" (the dam break at 10^9 fluid
# particles, the GPU's memory in use and the process's resident host memory sampled each second); the build
# always runs.
set -uo pipefail
out=${OUT:?set OUT}
exec > >(tee -a "$out/log.txt") 2>&1
start=$(date +%s)
root=$PWD
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
stamp "build surge and gpu_tests"
BUILD_ONLY=1 TARGETS="surge gpu_tests" timeout 330 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"
surge=build-gpu/surge
parts=${PARTS:-tests bench runs all-tests}
has() { [[ " $parts " == *" $1 "* ]]; }
if has tests; then
stamp "the new GPU tests"
(cd /tmp && OUT=/tmp/gpu-tests-out timeout 60 $root/build-gpu/tests/gpu_tests \
  --gtest_filter='GpuNeighborLists*:*GpuNeighborListsSolvers*:GpuIncompressible.*' > "$out/new-tests.txt" 2>&1)
echo "new tests exit $?"
grep -E "listed neighbours|entries|PASSED|FAILED|spacings" "$out/new-tests.txt" | head -30
fi
if has bench; then
for lists in on off; do
  stamp "bench wcsph,dfsph,pbf, 262k and 1M, neighbour lists $lists"
  timeout 90 $surge bench scenes/dam_break.toml --backend gpu --solver wcsph,dfsph,pbf --particles 262144,1048576 \
    --steps 60 --warmup 10 --neighbor-lists $lists --json "$out/bench-lists-$lists.json" > "$out/bench-lists-$lists.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]|per step|density iteration" "$out/bench-lists-$lists.txt" | cut -c1-160
done
fi
if has runs; then
sed '/^\[resolution\]/a cells_per_support = 2' scenes/dam_break.toml > /tmp/dam_break_half.toml
show() { grep -E "unstable|particles  |steps  |simulated|wall time|mean step|density_|iterations|neighbor_list" "$1"; }
for cfg in whole half; do
  scene=scenes/dam_break.toml; [ $cfg = half ] && scene=/tmp/dam_break_half.toml
  stamp "wcsph, 1M, 0.4 s, $cfg cells"
  timeout 60 $surge run $scene --backend gpu --particles 1048576 --time 0.4 --every 0 --quiet \
    --out /tmp/w > "$out/run-wcsph-$cfg.txt" 2>&1
  echo "exit $?"; show "$out/run-wcsph-$cfg.txt"
  for target in 1.0 0.1; do
    [ $cfg = whole ] && [ $target = 0.1 ] && continue
    printf '\n[dfsph]\ndensity_error = %s\n' $target | cat $scene - > /tmp/dfsph.toml
    stamp "dfsph (lists), density_error $target %, 1M, 0.4 s, $cfg cells"
    timeout 60 $surge run /tmp/dfsph.toml --solver dfsph --backend gpu --particles 1048576 --time 0.4 \
      --every 0 --quiet --out /tmp/d > "$out/run-dfsph-$target-$cfg.txt" 2>&1
    echo "exit $?"; show "$out/run-dfsph-$target-$cfg.txt"
  done
done
# BK17's time step, 0.4 particle diameters a step, instead of the scene's 0.25 (chosen for WCSPH's c0).
printf '\n[dfsph]\ndensity_error = 1.0\n' | cat /tmp/dam_break_half.toml - | sed 's/^cfl = .*/cfl = 0.4/' > /tmp/dfsph.toml
stamp "dfsph (lists), density_error 1.0 %, 1M, 0.4 s, half cells, cfl 0.4"
timeout 60 $surge run /tmp/dfsph.toml --solver dfsph --backend gpu --particles 1048576 --time 0.4 \
  --every 0 --quiet --out /tmp/d > "$out/run-dfsph-1.0-half-cfl0.4.txt" 2>&1
echo "exit $?"; show "$out/run-dfsph-1.0-half-cfl0.4.txt"
fi
if has all-tests; then
stamp "all GPU tests but the wave flume"
(cd /tmp && OUT=/tmp/gpu-tests-out timeout 200 $root/build-gpu/tests/gpu_tests --gtest_filter=-WaveFlume/* \
  > "$out/gpu_tests.txt" 2>&1)
echo "gpu_tests exit $?"
grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED  \]" "$out/gpu_tests.txt" | head -20
fi
if has billion; then
  # Largest GPU memory in use and largest resident set of the surge process, sampled each second.
  sampled() {
    local name=$1; shift
    "$@" > "$out/$name.txt" 2>&1 &
    local pid=$! gpu=0 rss=0 g r
    while kill -0 $pid 2>/dev/null; do
      g=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
      r=$(ps -o rss= -C surge | sort -n | tail -1)
      [ -n "$g" ] && [ "$g" -gt "$gpu" ] && gpu=$g
      [ -n "$r" ] && [ "$r" -gt "$rss" ] && rss=$r
      sleep 1
    done
    wait $pid
    echo "$name: exit $?, largest GPU memory in use $gpu MiB, largest host resident set $((rss / 1024)) MiB"
  }
  for n in 1000000000; do
    stamp "bench, dam break, $n fluid particles"
    sampled billion-$n timeout 150 $surge bench scenes/dam_break.toml --backend gpu --particles $n --steps 3 \
      --warmup 1 --json "$out/billion-$n.json"
    grep -E "^ +[0-9]|fit|memory|error" "$out/billion-$n.txt" | cut -c1-200
  done
fi
stamp done
