#!/usr/bin/env bash
# Step times of two builds of Surge side by side on one GPU, in one call: the benchmarks a refactor must not
# slow down (issue 11: WCSPH 4M dam break, DEM particles_box 1M, all-pairs 1M, Barnes-Hut 4M, DFSPH and PBF
# 1M). Each case runs old, new, old, new, so the spread between repeats is seen beside the difference.
#   scripts/perf-before-after.sh OLD_SURGE NEW_SURGE OUT_DIR
# Prints a table (ms per step, each run) and writes each run's JSON to OUT_DIR.
set -uo pipefail
old=$1 new=$2 out=$3
mkdir -p "$out"
cases=(
  "wcsph-4M|scenes/dam_break.toml --particles 4194304 --warmup 20 --steps 100"
  "dem-box-1M|scenes/particles_box.toml --particles 1048576 --warmup 200 --steps 300"
  "allpairs-1M|scenes/plummer.toml --particles 1048576 --warmup 2 --steps 10"
  "barnes-hut-4M|scenes/plummer_tree.toml --particles 4194304 --warmup 3 --steps 10"
  "dfsph-1M|scenes/dam_break.toml --solver dfsph --particles 1048576 --warmup 100 --steps 20"
  "pbf-1M|scenes/dam_break.toml --solver pbf --particles 1048576 --warmup 100 --steps 20"
)
ms() { python3 -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['runs'][0]['ms_per_step'])" "$1" 2>/dev/null || echo failed; }
printf '%-14s %10s %10s %10s %10s %8s\n' case old-1 new-1 old-2 new-2 new/old
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  row=()
  for rep in 1 2; do
    for which in old new; do
      bin=$old; [ "$which" = new ] && bin=$new
      json="$out/$name-$which-$rep.json"
      # shellcheck disable=SC2086
      timeout 120 "$bin" bench $args --backend gpu --json "$json" > "$out/$name-$which-$rep.txt" 2>&1
      row+=("$(ms "$json")")
    done
  done
  ratio=$(python3 -c "import sys; o=(float(sys.argv[1])+float(sys.argv[3]))/2; n=(float(sys.argv[2])+float(sys.argv[4]))/2; print('%.3f' % (n/o))" "${row[@]}" 2>/dev/null || echo -)
  printf '%-14s %10s %10s %10s %10s %8s\n' "$name" "${row[@]}" "$ratio"
done
