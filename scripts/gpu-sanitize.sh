#!/usr/bin/env bash
# The GPU tests under compute-sanitizer (memcheck, racecheck, synccheck), on a machine with a GPU and a built
# tree: scripts/gpu-sanitize.sh [BUILD_DIR]. Each tool runs the tests that exercise every solver's kernels on
# the device (the filter below; the whole suite under memcheck takes far longer than a device session) and
# fails on any report: the tool's own exit code (--error-exitcode) and its ERROR SUMMARY line. Each tool's
# full output goes to $OUT/sanitizer-TOOL-SHARD.txt; record a run in docs/perf/.
#   SANITIZE_FILTER   gtest filter (default: the list below)
#   SANITIZE_TIMEOUT  seconds per tool (default 150); a shard that runs out says so and counts as failed
#   SANITIZE_SHARDS   shards per tool (default 4), run side by side
#   SANITIZE_TOOLS    which tools (default: memcheck racecheck synccheck)
set -uo pipefail
build=${1:-build-gpu}
out=${OUT:-$PWD/sanitize-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# Every solver's passes (WCSPH single and split, continuity density, DFSPH, PBF, DEM with Mindlin friction,
# n-body tiled, naive and Barnes-Hut), the emitter, moving solids, gauges, both cell-index builds, the
# overlapped export's snapshots and checkpoints.
filter=${SANITIZE_FILTER:-"GpuEquivalence.*:GpuDem.*:GpuIncompressible.*:NbodyGpuAllPairs.*:NbodyGpuBarnesHut.*:GpuEmitter.*:MovingSolidsGpu.*:GaugesGpu.*:GpuExport.*:Builds/GpuCellIndexTest.*:CheckpointGpu.HybridResumesAndHybridOverlapSaysItCannot"}
timeout_s=${SANITIZE_TIMEOUT:-150}
# The tools are slow on the host side (memcheck instruments every access), so each tool's tests are split
# into shards (gtest's GTEST_TOTAL_SHARDS) run side by side; the tools run one after another. The tests'
# CPU references use OpenMP: passive waits and a share of the cores each, or the shards' spinning threads
# starve one another (all tools at once with 16 spinning threads each took over 10 times longer).
shards=${SANITIZE_SHARDS:-4}
threads=$(( $(nproc) / shards )); [ "$threads" -ge 1 ] || threads=1
tools=(${SANITIZE_TOOLS:-memcheck racecheck synccheck})
status=0
for tool in "${tools[@]}"; do
  start=$(date +%s)
  pids=()
  for ((k = 0; k < shards; ++k)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$k OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$threads \
      timeout "$timeout_s" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 50 \
      "$build/tests/gpu_tests" --gtest_filter="$filter" > "$out/sanitizer-$tool-$k.txt" 2>&1 &
    pids+=($!)
  done
  verdicts=() ran=0 failed=0
  for ((k = 0; k < shards; ++k)); do
    wait "${pids[$k]}"
    rc=$?
    log="$out/sanitizer-$tool-$k.txt"
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    ran=$((ran + $(grep -cE "^\[       OK \]" "$log")))
    failed=$((failed + $(grep -cE "^\[  FAILED  \] [A-Za-z]" "$log")))
    case $rc in
      0) verdicts+=("shard $k clean (${summary:-no summary line})") ;;
      124) verdicts+=("shard $k RAN OUT OF TIME after ${timeout_s} s"); status=1 ;;
      99) verdicts+=("shard $k REPORTED ERRORS: $summary"); status=1 ;;
      *) verdicts+=("shard $k exit $rc (${summary:-no summary line})"); status=1 ;;
    esac
  done
  echo "$tool: $ran tests passed, $failed failed, in $(( $(date +%s) - start )) s; $(IFS=';'; echo "${verdicts[*]}")"
done
exit $status
