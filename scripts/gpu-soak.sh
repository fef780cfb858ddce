#!/usr/bin/env bash
# A GPU soak: scripts/gpu-soak.sh [BUILD_DIR] [PARTICLES] [STEPS]. One `surge run` of the dam break
# (default 1,000,000 particles, 100,000 steps) with frames and checkpoints along the way, while the device
# memory the process holds (nvidia-smi) and its host memory (VmRSS) are sampled every 5 s into
# $OUT/soak-memory.csv. Flat means: after the first samples (allocation, the first frame and checkpoint)
# neither grows; the script prints the first and last samples and the largest of each after the first
# minute, and the run's summary.
set -uo pipefail
build=${1:-build-gpu}
particles=${2:-1000000}
steps=${3:-100000}
out=${OUT:-$PWD/soak-out}
mkdir -p "$out"
work=$(mktemp -d)
"$build/surge" run scenes/dam_break.toml --backend gpu --particles "$particles" --steps "$steps" \
  --out "$work/out" --export vtk --every 20000 --checkpoint-every 25000 --quiet > "$out/soak-run.txt" 2>&1 &
pid=$!
echo "seconds,device_mib,host_rss_kib" > "$out/soak-memory.csv"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  device=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
           awk -F', ' -v p="$pid" '$1 == p {print $2}')
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [ -n "$rss" ] && echo "$(( $(date +%s) - start )),${device:-},$rss" >> "$out/soak-memory.csv"
  sleep 5
done
wait "$pid"
rc=$?
echo "surge run exit $rc after $(( $(date +%s) - start )) s"
grep -E "particles|steps|simulated|wall time|mean step|frames written|checkpoint|unstable" "$out/soak-run.txt"
echo "memory samples (seconds, device MiB, host RSS KiB): first, last, and the largest after 60 s"
sed -n 2p "$out/soak-memory.csv"
tail -1 "$out/soak-memory.csv"
awk -F, 'NR > 1 && $1 >= 60 { if ($2 > d) d = $2; if ($3 > h) h = $3 } END { print "max after 60 s: device " d " MiB, host " h " KiB" }' \
  "$out/soak-memory.csv"
rm -rf "$work"
exit $rc
