#!/usr/bin/env bash
# The viewer's keyboard and mouse controls, driven as a user would (xdotool's synthetic input through the
# X server's XTEST extension) on a virtual X server. With the panels hidden (Tab) and the run paused
# (Space), the picture depends only on the camera, so screenshots (P) compare byte for byte:
#   default view A; top view (4) B differs; reset (C) gives A again; a left drag (orbit) differs; C gives A;
#   three single steps (N) advance exactly three steps; R starts and stops a recording of PNG frames;
#   Esc quits with exit 0. Usage: view_controls_under_xvfb.sh SURGE_BINARY SCENE
set -euo pipefail
surge=$1
scene=$2
command -v xdotool > /dev/null || { echo "xdotool is not installed (scripts/install-deps.sh installs it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > drive.sh <<'DRIVE'
set -euo pipefail
"$1" view "$2" --backend cpu --particles 3000 --size 640x360 > out.txt 2> err.txt &
viewer=$!
# The window is found once it is mapped (viewable); focusing it before that fails with BadMatch.
window=$(timeout 30 xdotool search --sync --onlyvisible --name '^Surge$' | head -1)
for attempt in 1 2 3 4 5; do xdotool windowfocus --sync "$window" 2> /dev/null && break; sleep 0.5; done
act() { sleep 0.4; xdotool "$@"; sleep 0.4; }  # a few frames between inputs: ImGui sees each once
shots() { ls surge-*.png 2>/dev/null | wc -l; }
act key Tab            # hide the panels: their fps text would differ between screenshots
act key space          # pause
act key p              # 1: default camera
act key 4
act key p              # 2: top view
act key c
act key p              # 3: reset: as 1
act mousemove --window "$window" 320 180
act mousedown 1
act mousemove --window "$window" 420 200
act mouseup 1
act key p              # 4: orbited
act key c
act key p              # 5: reset again: as 1
act key n; act key n; act key n
act key p              # 6: three steps later
act key r; act key r   # a recording of the frames in between
act key Escape
wait "$viewer"
DRIVE
xvfb-run -a -s "-screen 0 1024x768x24" bash drive.sh "$surge" "$scene" || {
  echo "driving surge view failed (exit $?)"; cat out.txt err.txt 2>/dev/null; exit 1; }
mapfile -t shots < <(sed -n 's/^saved \(surge-[^ ]*\.png\) .*/\1/p' out.txt)
[ "${#shots[@]}" = 6 ] || { echo "expected 6 screenshots, got ${#shots[@]}:"; cat out.txt err.txt; exit 1; }
for f in "${shots[@]}"; do [ -f "$f" ] || { echo "$f was announced but not written"; exit 1; }; done
same() { cmp -s "$1" "$2"; }
same "${shots[0]}" "${shots[2]}" || { echo "C did not restore the default view (shots 1 and 3 differ)"; exit 1; }
same "${shots[0]}" "${shots[4]}" || { echo "C did not restore the default view after the orbit"; exit 1; }
! same "${shots[0]}" "${shots[1]}" || { echo "the top view (4) looks like the default view"; exit 1; }
! same "${shots[0]}" "${shots[3]}" || { echo "the left drag did not orbit the camera"; exit 1; }
step_of() { sed -n "s/^saved $1 (step \([0-9]*\),.*/\1/p" out.txt; }
first=$(step_of "${shots[0]}"); fifth=$(step_of "${shots[4]}"); sixth=$(step_of "${shots[5]}")
[ "$first" = "$fifth" ] || { echo "the run moved while paused: step $first, then $fifth"; exit 1; }
[ "$sixth" = $((fifth + 3)) ] || { echo "three N presses went from step $fifth to $sixth"; exit 1; }
recorded=$(sed -n 's/^recorded \([0-9]*\) frames in \(.*\)$/\1 \2/p' out.txt)
[ -n "$recorded" ] || { echo "no 'recorded N frames' line:"; cat out.txt; exit 1; }
read -r frames directory <<< "$recorded"
[ "$frames" -ge 1 ] && [ "$(ls "$directory"/frame_*.png | wc -l)" = "$frames" ] || {
  echo "recording said $frames frames; $directory holds $(ls "$directory" | wc -l) files"; exit 1; }
last=$(sed -n 's/^last frame: mode cpu, step \([0-9]*\),.*/\1/p' out.txt)
[ "$last" = "$sixth" ] || { echo "quit at step $last, expected $sixth (still paused)"; cat out.txt; exit 1; }
echo "controls: Tab, Space, P, 4, C, left-drag orbit, N x3 (step $fifth -> $sixth), R ($frames frames), Esc"
