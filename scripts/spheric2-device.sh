#!/usr/bin/env bash
# One device call for the geometry issue (run on the H200 machine from the checkout, carrying .deps and a copy
# of ../shared/peers as .peers): build, the GPU tests, SPHERIC Test 2 on the GPU with its gauges, and
# DualSPHysics' Spheric2Dam beside Surge's scenes/spheric2dam.toml at the same simulated time.
set -uo pipefail
out=${OUT:?set OUT}
GPU_ONLY=1 TESTS_ONLY=1 bash scripts/gpu-check.sh
cp build-gpu/Testing/Temporary/LastTest.log "$out/gpu-LastTest.log" 2>/dev/null
echo "== SPHERIC Test 2 (scenes/spheric2_dam_break.toml), ${SPHERIC_TIME:-6} s simulated, gauges every 1 ms"
timeout 200 build-gpu/surge run scenes/spheric2_dam_break.toml --backend gpu --time "${SPHERIC_TIME:-6}" \
  --out /tmp/spheric2 --every 0 --quiet 2>&1 | tail -22 | tee "$out/spheric2-run.txt"
cp /tmp/spheric2/gauges.csv "$out/spheric2-gauges.csv" 2>/dev/null
# Side by side at DualSPHysics' sizes (its fluid particle counts), the same simulated time each.
for pair in ${DAM_CASES:-"652212:01M:0.1"}; do
  IFS=: read -r particles case time <<<"$pair"
  echo "== Surge scenes/spheric2dam.toml at $particles fluid particles, $time s simulated; DualSPHysics $case"
  timeout 200 build-gpu/surge run scenes/spheric2dam.toml --backend gpu --particles "$particles" --time "$time" \
    --out /tmp/spheric2dam --every 0 --quiet 2>&1 | tail -22 | tee "$out/spheric2dam-$case-run.txt"
  mkdir -p /tmp/peers-out && OUT=/tmp/peers-out timeout 150 bash .peers/run_device.sh "ds$case:$time"
done
cp /tmp/peers-out/summary.txt "$out/dualsphysics-summary.txt" 2>/dev/null
cat /tmp/peers-out/summary.txt 2>/dev/null
