#!/usr/bin/env bash
# `surge view --mode` and the Lessons panel's live mode switch, on a virtual X server: the viewer starts in
# the cpu mode, switches live (cpu -> cpu, the switch a machine without a GPU can make) after 3 frames,
# keeps stepping the same particles from the step it reached, and exits 0 with its screenshot.
# A bad mode name is refused before a window opens. Usage: view_modes_under_xvfb.sh SURGE_BINARY SCENE
set -euo pipefail
surge=$1
scene=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
xvfb-run -a -s "-screen 0 1024x768x24" "$surge" view "$scene" --mode cpu --particles 3000 --frames 6 \
  --switch-mode-after 3 cpu --screenshot shot.png --size 640x360 > out.txt 2> err.txt || {
  echo "surge view --mode cpu failed (exit $?)"; cat out.txt err.txt; exit 1; }
grep -q "saved shot.png" out.txt || { echo "no 'saved shot.png' in:"; cat out.txt; exit 1; }
[ "$(od -An -tx1 -N8 shot.png | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "shot.png is not a PNG"; exit 1; }
# "mode cpu -> cpu at step S, t = T s": the switch happened once, after steps were taken.
switches=$(grep -c "^mode cpu -> cpu at step " out.txt || true)
[ "$switches" = 1 ] || { echo "expected one 'mode cpu -> cpu' line, got $switches:"; cat out.txt err.txt; exit 1; }
switch_step=$(sed -n 's/^mode cpu -> cpu at step \([0-9]*\),.*/\1/p' out.txt)
# 3 frames of at least one step each ran before the switch.
[ "$switch_step" -ge 3 ] || { echo "switched at step $switch_step, expected >= 3"; cat out.txt; exit 1; }
# "last frame: mode cpu, step L, t = T s": the switched run went on from step S.
last_step=$(sed -n 's/^last frame: mode cpu, step \([0-9]*\),.*/\1/p' out.txt)
[ -n "$last_step" ] || { echo "no 'last frame: mode cpu' line in:"; cat out.txt; exit 1; }
[ "$last_step" -ge $((switch_step + 3)) ] || {
  echo "last frame at step $last_step, expected >= $((switch_step + 3)) (3 frames after the switch)"; cat out.txt; exit 1; }
if grep -q "mode switch failed" out.txt err.txt; then echo "the switch failed:"; cat err.txt; exit 1; fi

# A mode that does not exist: refused on the command line, non-zero, naming the option.
if "$surge" view "$scene" --frames 1 --switch-mode-after 2 warp > bad.txt 2>&1; then
  echo "--switch-mode-after 2 warp was accepted"; exit 1; fi
grep -q "switch-mode-after" bad.txt || { echo "the error does not name --switch-mode-after:"; cat bad.txt; exit 1; }
echo "surge view switched cpu -> cpu at step $switch_step and went on to step $last_step"
