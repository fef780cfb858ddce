#!/usr/bin/env bash
# `surge view` in a real window on a virtual X server: it opens, runs N frames of a scene, writes a
# screenshot of the requested size and exits 0. Usage: view_under_xvfb.sh SURGE_BINARY SCENE
set -euo pipefail
surge=$1
scene=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
xvfb-run -a -s "-screen 0 1024x768x24" "$surge" view "$scene" --backend cpu --particles 3000 --frames 8 \
  --screenshot shot.png --size 640x360 --set gravity_m_per_s2=0,0,-1 --set viscosity_alpha=0.05 > out.txt 2> err.txt || {
  echo "surge view failed (exit $?)"; cat out.txt err.txt; exit 1; }
grep -q "saved shot.png" out.txt || { echo "no 'saved shot.png' in:"; cat out.txt; exit 1; }
grep -q "live: gravity_m_per_s2 set" out.txt && grep -q "live: viscosity_alpha set" out.txt || {
  echo "the live edits (--set) were not reported:"; cat out.txt; exit 1; }
# A parameter that needs new particles is refused live: a message naming it, and a non-zero exit.
if xvfb-run -a -s "-screen 0 1024x768x24" "$surge" view "$scene" --backend cpu --particles 3000 --frames 8 \
  --size 640x360 --set spacing_m=0.02 > refused_out.txt 2> refused_err.txt; then
  echo "surge view accepted --set spacing_m live"; cat refused_out.txt refused_err.txt; exit 1
fi
grep -q "spacing_m' applies on restart only" refused_err.txt || {
  echo "no clear refusal of spacing_m in:"; cat refused_err.txt; exit 1; }
# PNG signature, then IHDR width and height (big-endian) at bytes 16 and 20.
[ "$(od -An -tx1 -N8 shot.png | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "shot.png is not a PNG"; exit 1; }
width=$((16#$(od -An -tx1 -j16 -N4 shot.png | tr -d ' \n')))
height=$((16#$(od -An -tx1 -j20 -N4 shot.png | tr -d ' \n')))
[ "$width" = 640 ] && [ "$height" = 360 ] || { echo "shot.png is ${width}x${height}, expected 640x360"; exit 1; }
echo "surge view ran 8 frames with two live edits, wrote a ${width}x${height} screenshot, and refused a live spacing"
