#!/usr/bin/env bash
# assets/blender/surge_import.py in a real Blender (background mode): Surge's PLY frames of a fluid, of grains
# (radius) and of n-body bodies (mass) arrive with their attributes and follow the scene frame; a saved .blend
# follows the frame again when the script is loaded; a bad file is refused by name with a non-zero exit.
# Usage: blender_import_test.sh SURGE_BINARY SOURCE_DIR. Exit 77 (skipped) where Blender is not installed.
set -euo pipefail
surge=$1
source_dir=$2
command -v blender > /dev/null || { echo "SKIP: blender not installed (apt-get install blender)"; exit 77; }
addon=$source_dir/assets/blender/surge_import.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
blender_run() { blender -b --factory-startup "$@" > "$work/out.txt" 2>&1; }

# Three frames of each kind of run.
surge_run() { "$surge" run "$@" --backend cpu --export ply --quiet > "$work/surge.txt" 2>&1 || {
  echo "surge run $* failed:"; cat "$work/surge.txt"; exit 1; }; }
surge_run "$source_dir/scenes/dam_break.toml" --particles 3000 --steps 200 --every 100 --out "$work/fluid"
surge_run "$source_dir/scenes/granular_column.toml" --particles 1000 --steps 100 --every 50 --out "$work/grains"
surge_run "$source_dir/scenes/kepler.toml" --steps 100 --every 50 --out "$work/bodies"

# Attributes, types, values and frame changes, checked inside Blender against the files.
blender_run --python-exit-code 1 --python "$source_dir/tests/app/blender_import_check.py" -- \
  "$addon" "$work/fluid" "$work/grains" "$work/bodies" || {
  echo "the checks inside Blender failed:"; cat "$work/out.txt"; exit 1; }
grep -q "blender_import_check: all checks passed" "$work/out.txt" || {
  echo "checks did not finish:"; cat "$work/out.txt"; exit 1; }
grep "^checked\|^spheres\|^operator" "$work/out.txt"

# Headless import of a directory with spheres, saved; the saved file, reopened with the script loaded, follows
# the frame and renders spheres coloured by speed.
blender_run --python "$addon" -- "$work/fluid" --spheres --save "$work/fluid.blend" || {
  echo "headless import failed:"; cat "$work/out.txt"; exit 1; }
grep -Eq "^surge_import: dam_break: 3 frames, [0-9]{4} particles in frame 1$" "$work/out.txt" || {
  echo "unexpected headless import report:"; cat "$work/out.txt"; exit 1; }
blender -b "$work/fluid.blend" --factory-startup --python-exit-code 1 --python "$addon" \
  --python "$source_dir/tests/app/blender_render_check.py" > "$work/out.txt" 2>&1 || {
  echo "the saved .blend did not follow the frame or render:"; cat "$work/out.txt"; exit 1; }
grep -q "blender_render_check: passed" "$work/out.txt" || {
  echo "render check did not finish:"; cat "$work/out.txt"; exit 1; }
grep "^rendered" "$work/out.txt"

# The OpenVDB level set of the fluid's surface (--export vdb), where this build writes it, opens in Blender's own
# volume import and gives back Surge's surface.
if "$surge" run "$source_dir/scenes/dam_break.toml" --backend cpu --particles 3000 --steps 200 --every 200 \
  --export obj,vdb --out "$work/level_set" --quiet > "$work/surge.txt" 2>&1; then
  blender_run --python-exit-code 1 --python "$source_dir/tests/app/blender_vdb_check.py" -- \
    "$work/level_set/dam_break_surface_000001.vdb" "$work/level_set/dam_break_surface_000001.obj" || {
    echo "Blender's check of the .vdb failed:"; cat "$work/out.txt"; exit 1; }
  grep "^blender_vdb_check" "$work/out.txt"
elif grep -q "this build has no OpenVDB" "$work/surge.txt"; then
  echo "not checked: this build has no OpenVDB"
else
  echo "surge run --export obj,vdb failed:"; cat "$work/surge.txt"; exit 1
fi

# Bad files: refused with the file's name and a non-zero exit (without --python-exit-code: the script exits 1).
printf 'hello\n' > "$work/not_a_ply.ply"
first=$work/fluid/dam_break_000000.ply
head -c $(($(stat -c %s "$first") - 10)) "$first" > "$work/truncated_000000.ply"
sed 's/property uint id/property uint ident/' "$first" > "$work/no_id.ply"
for bad in not_a_ply.ply:"does not start with 'ply'" truncated_000000.ply:"truncated" no_id.ply:"no property id"; do
  file=$work/${bad%%:*}
  if blender_run --python "$addon" -- "$file"; then echo "accepted the bad file $file:"; cat "$work/out.txt"; exit 1; fi
  grep -F "surge_import: error: $file:" "$work/out.txt" | grep -qF "${bad#*:}" || {
    echo "no clear error naming $file ('${bad#*:}'):"; cat "$work/out.txt"; exit 1; }
  grep -F "surge_import: error:" "$work/out.txt"
done
echo "blender_import_test: passed"
