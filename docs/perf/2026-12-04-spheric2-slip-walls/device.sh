#!/usr/bin/env bash
# One H200 call (docs/perf/2026-12-04-spheric2-slip-walls.md): SPHERIC Test 2 as `surge validate spheric2` runs it
# (dp 0.02 m, 6 s), with the tank's walls free-slip (the scene now) and no-slip (the scene before), both on the GPU.
set -uo pipefail
out=${OUT:?set OUT}
start=$(date +%s)
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
exec > >(tee -a "$out/log.txt") 2>&1
stamp "build surge"
BUILD_ONLY=1 TARGETS=surge timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"
grep -v '^slip_walls' scenes/spheric2_dam_break.toml > /tmp/spheric2-no-slip.toml
for variant in slip no-slip; do
  scene=scenes/spheric2_dam_break.toml; [ $variant = no-slip ] && scene=/tmp/spheric2-no-slip.toml
  stamp "surge validate spheric2, $variant walls"
  timeout 90 build-gpu/surge validate spheric2 --backend gpu --scene $scene --out /tmp/v-$variant > "$out/validate-$variant.txt" 2>&1
  echo "exit $?"; grep -vE "^progress" "$out/validate-$variant.txt" | tail -42
  cp /tmp/v-$variant/gauges.csv "$out/gauges-$variant.csv"
done
stamp done
