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
  --screenshot shot.png --size 640x360 > out.txt 2> err.txt || {
  echo "surge view failed (exit $?)"; cat out.txt err.txt; exit 1; }
grep -q "saved shot.png" out.txt || { echo "no 'saved shot.png' in:"; cat out.txt; exit 1; }
# PNG signature, then IHDR width and height (big-endian) at bytes 16 and 20.
[ "$(od -An -tx1 -N8 shot.png | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "shot.png is not a PNG"; exit 1; }
width=$((16#$(od -An -tx1 -j16 -N4 shot.png | tr -d ' \n')))
height=$((16#$(od -An -tx1 -j20 -N4 shot.png | tr -d ' \n')))
[ "$width" = 640 ] && [ "$height" = 360 ] || { echo "shot.png is ${width}x${height}, expected 640x360"; exit 1; }
echo "surge view ran 8 frames and wrote a ${width}x${height} screenshot"
