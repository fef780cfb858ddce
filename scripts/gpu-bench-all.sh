#!/usr/bin/env bash
# Every benchmark and full-resolution validation of docs/perf/ and docs/validation.md on a GPU machine, after
# scripts/gpu-check.sh has built build-gpu/. Sections (arguments, default all): lessons solvers validate.
# Results go to $OUT (or ./gpu-bench-out) and, packed, to $OUT/results.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-bench-out}
surge=build-gpu/surge
mkdir -p "$out/results"
sections=${*:-lessons solvers validate}
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
  esac
done
tar -czf "$out/results.tar.gz" -C "$out" results && rm -rf "$out/results"
