#!/usr/bin/env bash
# Second H200 call of docs/perf/2026-12-04-accuracy-beside-dualsphysics.md: why Surge's front reached the box later
# than DualSPHysics' (both at its settings, 1M over 0.5 s). Surge again as in the first call, then with a free-slip
# floor (is it the floor's friction?), then at the scene's own spacing of 0.01 m (the first call matched
# DualSPHysics' particle count, 640,332 fluid particles where the spacing of 0.01 m gives about 675k, a spacing about 2 % larger); each compared with DualSPHysics'
# gauges of the first call (../gauges/, same case, same GPU) by scripts/compare-gauges-with-dualsphysics.py.
set -uo pipefail
out=${OUT:?set OUT}
here=docs/perf/2026-12-04-accuracy-beside-dualsphysics
start=$(date +%s)
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
exec > >(tee -a "$out/log.txt") 2>&1
stamp "build surge"
BUILD_ONLY=1 TARGETS=surge timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"
sed -e 's/^\[\[solid\]\]$/[[solid]]\nname = "box"/' scenes/spheric2dam.toml > /tmp/gauged.toml
printf '\n[[gauge]]\nname = "Fbox"\ntype = "force"\nsolid = "box"\n' >> /tmp/gauged.toml
sed -e 's/^wall_layers = 4$/wall_layers = 4\nslip_walls = ["z-"]/' /tmp/gauged.toml > /tmp/gauged-slip-floor.toml
grep -n "slip_walls" /tmp/gauged-slip-floor.toml
run() {  # NAME SCENE [ARGS...]
  local name=$1 scene=$2; shift 2
  stamp "surge run $name $*"
  timeout 120 build-gpu/surge run "$scene" --backend gpu --time 0.5 --out "/tmp/$name" --every 0 --quiet "$@" \
    > "/tmp/$name.txt" 2>&1
  echo "exit $?"; grep -E "particles  |steps  |wall time" "/tmp/$name.txt"
  python3 scripts/compare-gauges-with-dualsphysics.py "/tmp/$name/gauges.csv" $here/gauges 2>/dev/null |
    tee "$out/compare-$name.txt"
  cp "/tmp/$name/gauges.csv" "$out/gauges-$name.csv"
}
run as-before /tmp/gauged.toml --particles 652212
run slip-floor /tmp/gauged-slip-floor.toml --particles 652212
run spacing-0.01 /tmp/gauged.toml
stamp done
