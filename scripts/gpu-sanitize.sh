#!/usr/bin/env bash
# The GPU tests under compute-sanitizer (memcheck, racecheck, synccheck), on a machine with a GPU and a built
# tree: scripts/gpu-sanitize.sh [BUILD_DIR]. Each tool runs the tests that exercise every solver's kernels on
# the device (the filter below; the whole suite under memcheck takes far longer than a device session) and
# fails on any report: the tool's own exit code (--error-exitcode) and its ERROR SUMMARY line. Each tool's
# full output goes to $OUT/sanitizer-TOOL.txt; record a run in docs/perf/.
#   SANITIZE_FILTER   gtest filter (default: the list below)
#   SANITIZE_TIMEOUT  seconds per tool (default 150); a tool that runs out says so and counts as failed
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
status=0
for tool in memcheck racecheck synccheck; do
  log="$out/sanitizer-$tool.txt"
  start=$(date +%s)
  timeout "$timeout_s" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 50 \
    "$build/tests/gpu_tests" --gtest_filter="$filter" > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  tests=$(grep -E "^\[  PASSED  \]|^\[  FAILED  \]" "$log" | head -3 | tr '\n' ' ')
  case $rc in
    0) verdict=clean ;;
    124) verdict="ran out of time after ${timeout_s} s"; status=1 ;;
    99) verdict="REPORTED ERRORS"; status=1 ;;
    *) verdict="exit $rc"; status=1 ;;
  esac
  echo "$tool: $verdict in ${took} s; ${summary:-no summary line}; tests: ${tests:-none reported}"
done
exit $status
