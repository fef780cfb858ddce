#!/usr/bin/env bash
# H200 call of docs/perf/2026-12-04-dfsph-equal-error.md: the 1M dam break (cubic spline, 2 spacings) over 0.4 s
# with WCSPH (summation density, as the scene) and with DFSPH at density_error targets of 1, 0.3 and 0.1 %, each
# run's wall time and density error (WCSPH: the average density excess at its end, the measure DFSPH stops at).
# Run from the checkout with .deps carried: OUT=... bash docs/perf/2026-12-04-dfsph-equal-error/device-5.sh
set -uo pipefail
out=${OUT:?set OUT}
exec > >(tee -a "$out/log.txt") 2>&1
start=$(date +%s)
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
stamp "build surge"
BUILD_ONLY=1 TARGETS=surge timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"
surge=build-gpu/surge
show() { grep -E "unstable|particles  |steps  |simulated|wall time|mean step|density_|iterations" "$1"; }
stamp "wcsph, 1M, 0.4 s"
timeout 60 $surge run scenes/dam_break.toml --backend gpu --particles 1048576 --time 0.4 --every 0 --quiet \
  --out /tmp/w > "$out/wcsph-0.4.txt" 2>&1
echo "exit $?"; show "$out/wcsph-0.4.txt"
for target in 1.0 0.3 0.1; do
  printf '\n[dfsph]\ndensity_error = %s\n' $target | cat scenes/dam_break.toml - > /tmp/dam_break_dfsph.toml
  stamp "dfsph, density_error $target %, 1M, 0.4 s"
  timeout 60 $surge run /tmp/dam_break_dfsph.toml --solver dfsph --backend gpu --particles 1048576 --time 0.4 \
    --every 0 --quiet --out /tmp/d > "$out/dfsph-$target-0.4.txt" 2>&1
  echo "exit $?"; show "$out/dfsph-$target-0.4.txt"
done
stamp "wcsph, 1M, 0.2 s (a second snapshot of its density excess)"
timeout 40 $surge run scenes/dam_break.toml --backend gpu --particles 1048576 --time 0.2 --every 0 --quiet \
  --out /tmp/w2 > "$out/wcsph-0.2.txt" 2>&1
echo "exit $?"; show "$out/wcsph-0.2.txt"
stamp done
