#!/usr/bin/env bash
# One H200 call (docs/perf/2026-12-04-accuracy-beside-dualsphysics.md): SPHERIC Test 2 at DualSPHysics' settings,
# 1M over 0.5 s, Surge and DualSPHysics each with gauges every millisecond (water levels H1-H4, the x force on the
# box), compared by scripts/compare-gauges-with-dualsphysics.py; then the graphics-settings dam break at 262k
# and 16M with cells of half a support and CUDA graphs (issue 13's 0.25 ms and 2e9 particle-steps/s).
# Run from the checkout with .deps and .peers carried: OUT=... bash docs/perf/2026-12-04-accuracy-beside-dualsphysics/device.sh
set -uo pipefail
out=${OUT:?set OUT}
start=$(date +%s)
stamp() { echo "== [$(($(date +%s) - start)) s] $*"; }
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
stamp "build surge"
BUILD_ONLY=1 TARGETS=surge timeout 300 scripts/gpu-check.sh > "$out/build.txt" 2>&1
echo "build exit $?"
surge=build-gpu/surge

# Surge: the benchmark scene with the box named and a force gauge on it (the level gauges H1-H4 are the scene's).
sed -e 's/^\[\[solid\]\]$/[[solid]]\nname = "box"/' scenes/spheric2dam.toml > /tmp/spheric2dam-gauged.toml
printf '\n[[gauge]]\nname = "Fbox"\ntype = "force"\nsolid = "box"\n' >> /tmp/spheric2dam-gauged.toml
stamp "surge run spheric2dam (gauged) 652212 fluid, 0.5 s"
timeout 120 $surge run /tmp/spheric2dam-gauged.toml --backend gpu --particles 652212 --time 0.5 --out /tmp/surge-gauged \
  --every 0 --quiet > /tmp/surge-gauged.txt 2>&1
echo "exit $?"; grep -E "particles  |steps  |wall time|gauges:" /tmp/surge-gauged.txt

# DualSPHysics: its 01M case with the same gauges in the XML's execution/special section (v5.0 gauge syntax:
# swl between point0 and point2 at half-spacing points, mass limit half a particle's; force on mkbound 1, the
# box), run with run_device.sh's options.
stamp "DualSPHysics 01M 0.5 s with gauges"
ds=$PWD/.peers/dsph5perf/bin/linux
work=/tmp/ds-gauged && rm -rf $work && mkdir -p $work
python3 - .peers/dsph5perf/test_linux/_DataCases_Ds5Test/Spheric2Dam_01M.xml $work/Spheric2Dam_01M.xml <<'PY'
import sys
text = open(sys.argv[1]).read()
swl = "".join(
    f'<swl name="{n}"><point0 x="{x}" y="0.5" z="0" /><point2 x="{x}" y="0.5" z="1" />'
    f'<pointdp coefdp="0.5" /><masslimit coef="0.5" /></swl>'
    for n, x in (("H1", 0.496), ("H2", 0.992), ("H3", 1.488), ("H4", 2.638)))
gauges = ('<special><gauges><default><computedt value="0.001" /><output value="true" />'
          '<outputdt value="0.001" /></default>' + swl +
          '<force name="Fbox"><target mkbound="1" /></force></gauges></special>')
assert text.count("<execution>") == 1
open(sys.argv[2], "w").write(text.replace("<execution>", "<execution>" + gauges))
PY
(cd $work && timeout 120 "$ds/GenCase_linux64" Spheric2Dam_01M zSpheric2Dam_01M > gencase.log 2>&1)
echo "gencase exit $?"; tail -2 $work/gencase.log
(cd $work && timeout 150 "$ds/DualSPHysics_linux64" -name zSpheric2Dam_01M -dirout out -dirdataout data \
  -runname Tgauged -gpu -svres -symplectic -ddt:3 -cellmode:h -sv:none -tmax:0.5 > run.log 2>&1)
echo "dualsphysics exit $?"; grep -E "Steps of simulation|Simulation Runtime|Gauge|gauge" $work/run.log | head -12
ls $work/out | head -20

stamp "compare"
python3 scripts/compare-gauges-with-dualsphysics.py /tmp/surge-gauged/gauges.csv $work/out > "$out/gauges-compare.txt" 2>&1
cat "$out/gauges-compare.txt"
tar -cf "$out/gauges.tar" -C /tmp surge-gauged/gauges.csv -C $work out/GaugesSWL_H1.csv out/GaugesSWL_H2.csv \
  out/GaugesSWL_H3.csv out/GaugesSWL_H4.csv out/GaugesForce_Fbox.csv gencase.log run.log 2>/dev/null
cp /tmp/surge-gauged.txt "$out/surge-run.txt"

stamp "dam break at graphics settings: whole/half cells, graphs off/on"
for cells in 1 2; do for graphs in off on; do
  timeout 60 $surge bench scenes/dam_break.toml --backend gpu --particles 262144,16777216 --steps 200 --warmup 20 \
    --cells-per-support $cells --cuda-graphs $graphs > /tmp/bench.txt 2>&1
  echo "-- cells_per_support $cells, cuda graphs $graphs (exit $?)"; grep -E "^ +[0-9,]+ +[0-9,]+ +gpu|neighbors:" /tmp/bench.txt
done; done | tee "$out/bench-dam-break.txt"
stamp done
