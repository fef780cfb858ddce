#!/usr/bin/env bash
# Fourth H200 call of docs/perf/2026-12-04-continuity-graphics.md: the graphics-settings dam break with summation
# density (stable to its end) and the counting index build, beside the radix one, in one call; then continuity
# density with viscosity_alpha 0.05 (the spheric2 scenes' value) run to the end at 262k and 1M particles.
# Run from the checkout with .deps carried: OUT=... bash docs/perf/2026-12-04-continuity-graphics/device-4.sh
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
for index in radix counting; do
  stamp "summation, half cells, CUDA graphs, --index-build $index"
  timeout 120 $surge bench scenes/dam_break.toml --backend gpu --particles 262144,16777216 --steps 200 --warmup 20 \
    --cells-per-support 2 --cuda-graphs on --index-build $index > "$out/summation-$index.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]" "$out/summation-$index.txt" | cut -c1-80
done
sed 's/^viscosity_alpha = .*/viscosity_alpha = 0.05/' scenes/dam_break.toml > /tmp/dam_break_alpha05.toml
for n in 262144 1048576; do
  stamp "continuity density, viscosity_alpha 0.05, $n particles, to the scene's end"
  timeout 120 $surge run /tmp/dam_break_alpha05.toml --backend gpu --particles $n --density continuity --every 0 \
    --quiet --out /tmp/alpha05-$n > "$out/alpha05-$n.txt" 2>&1
  echo "run exit $?"
  grep -E "unstable|particles  |steps  |wall time" "$out/alpha05-$n.txt"
done
stamp done
