#!/usr/bin/env bash
# Every benchmark and full-resolution validation of docs/perf/ and docs/validation.md on a GPU machine, after
# scripts/gpu-check.sh has built build-gpu/. Sections (arguments, default all): lessons solvers validate dem.
# Results go to $OUT (or ./gpu-bench-out) and, packed, to $OUT/results.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-bench-out}
surge=build-gpu/surge
mkdir -p "$out/results"
sections=${*:-lessons solvers validate dem}
run() {  # run NAME TIMEOUT COMMAND...: one measurement, its output to results/NAME.txt
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*" | tee "$out/results/$name.txt"
  local start=$SECONDS
  timeout "$limit" "$@" >> "$out/results/$name.txt" 2>&1
  local rc=$?
  echo "== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$out/results/$name.txt"
  tail -4 "$out/results/$name.txt"
}
for section in $sections; do
  case $section in
    lessons)
      OUT=$out/results/lessons timeout 200 bash scripts/lessons-bench.sh > "$out/results/lessons.txt" 2>&1
      tail -3 "$out/results/lessons.txt" ;;
    solvers)
      for s in wcsph dfsph pbf; do
        run "bench-$s" 90 $surge bench scenes/dam_break.toml --backend gpu --solver "$s" \
          --particles 1048576,4194304 --warmup 100 --steps 20 --json "$out/results/bench-$s.json"
      done
      for s in wcsph dfsph pbf; do
        run "second-$s-262k" 90 $surge run scenes/dam_break.toml --backend gpu --solver "$s" --particles 262144 \
          --time 1 --every 0 --quiet
      done ;;
    validate)
      for s in wcsph dfsph pbf; do
        run "validate-$s-r40" 120 $surge validate dam-break --solver "$s" --resolution 40 --backend gpu \
          --out "$out/results/validate-$s-r40"
      done ;;
    dem)
      # The granular box at NVIDIA's particles sample settings: as its code runs (radius 1/64 at any count) and
      # as the issue describes it (radius 1/grid); docs/perf/2026-11-30-dem-h200.md.
      run dem-fixed-radius 90 $surge bench scenes/particles_box_fixed_radius.toml --backend gpu \
        --particles 1048576,4194304 --steps 300 --warmup 20 --json "$out/results/dem-fixed-radius.json"
      run dem-radius-1-over-grid 90 $surge bench scenes/particles_box.toml --backend gpu \
        --particles 1048576,4194304 --steps 300 --warmup 20 --json "$out/results/dem-radius-1-over-grid.json"
      run dem-fixed-radius-counting 90 $surge bench scenes/particles_box_fixed_radius.toml --backend gpu \
        --index-build counting --particles 1048576,4194304 --steps 300 --warmup 20 ;;
  esac
done
tar -czf "$out/results.tar.gz" -C "$out" results && rm -rf "$out/results"
