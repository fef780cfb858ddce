#!/usr/bin/env bash
# One device call for the engineering-SPH work (issue 12), run on the H200 machine from the checkout with .deps
# (scripts/fetch-device-deps.sh) and, for the peer part, a copy of ../shared/peers as .peers carried:
#   PARTS="build tests spheric2 cost peers" OUT=... scripts/engineering-device.sh
#   build     surge and gpu_tests (sm_90), or BUILD_TARGETS
#   tests     gpu_tests, GTEST_FILTER narrowing it (default every GPU test; DISABLED_ ones with ALSO_DISABLED=1)
#   spheric2  SPHERIC Test 2 (scenes/spheric2_dam_break.toml), gauges every 1 ms, in the variants
#             SPHERIC_VARIANTS lists as NAME:TIME (asis: the scene as written, continuity density with
#             delta-SPH 0.1; summation: summation density instead; wendland3/wendland4: the scene with Wendland
#             C2 at 3/4 spacings; dp01: the scene at dp 0.01 m)
#   cost      the per-step cost of solids, a floating body and gauges at COST_PARTICLES (default 4M) fluid
#             particles: the same tank with and without them, COST_STEPS steps each
#   incompressible  DFSPH and PBF on scenes/spheric2dam.toml's tank at 3 and 4 spacings of support; then the
#             dam break at 1M (cubic, support 2) benched as WCSPH and DFSPH in one record, after each of
#             DFSPH_WARMUPS warm-up steps (default 0 and 100): DFSPH's iterations a step and ms per density
#             iteration against the WCSPH force pass
#   nbody     all-pairs gravity beside NVIDIA's nbody sample at 262,144 and 1,048,576 bodies
#   tree      Barnes-Hut (scenes/plummer_tree.toml) at 1M and 4M bodies with each [nbody] leaf_size in
#             TREE_LEAVES (default 1 8 16 32), then tiled all-pairs at 4M (one step) for the speed-up
#   peers     scenes/spheric2dam.toml beside DualSPHysics' Spheric2Dam at the sizes in DAM_CASES; with
#             PEER_CELLS=2 the scene with [resolution] cells_per_support = 2 (cells of half a support)
#   frames    step + rendering offscreen at 1920x1080, the dam break at FRAME_PARTICLES (default 1M and 4M), in
#             each of FRAME_STYLES (default spheres and surface), with FRAME_ARGS added
#   sph       `surge bench` of the dam break at graphics settings (cubic spline, support 2) at SPH_PARTICLES
#             (default 262k, 1M, 4M, 16M) and of scenes/spheric2dam.toml (DualSPHysics' settings) at DAM_BENCH
#             (default its 4M and 13M sizes), with --json records
#   graphs    the dam break at 262k and 1M with --cuda-graphs off, then on (one call, the same build)
#   cells     --cells-per-support 1 then 2: scenes/spheric2dam.toml at its 4M size, the dam break at 262k-4M
#   density   the dam break at graphics settings with --density summation and continuity, half cells, CUDA graphs
#             off and on, at DENSITY_PARTICLES (default 262k and 16.8M); the 1M dam break run to its end with each
#             density in DENSITY_RUNS (default both)
#   stability the dam break with continuity density run to its end on the GPU, in the variants STABILITY_RUNS names
#   gauged    scenes/spheric2dam.toml at 1M over 0.5 s with gauges, beside DualSPHysics' stored gauges; then
#             `surge validate spheric2 --backend gpu` (the validation scene as written, 6 s)
#   launches  Nsight Compute's list of the kernels of LAUNCH_STEPS steps of the 262,144-particle dam break
#             (kernel names and GPU times), against the step's wall time from `surge bench`
# Everything printed goes to $OUT/log.txt; gauge CSVs and run outputs are bundled in $OUT/results.tgz (the
# device tool returns 8 files at most).
set -uo pipefail
parts=" ${PARTS:-build tests spheric2 cost} "
want() { [[ $parts == *" $1 "* ]]; }
out=${OUT:?set OUT}
results=/tmp/engineering-results
mkdir -p "$results"
start=$(date +%s)
# Each stage bundles what the earlier ones wrote, so a call cut off at its limit still returns them.
stamp() {
  echo "== [$(($(date +%s) - start)) s] $*"
  tar -czf "$out/results.tgz" -C "$results" . 2>/dev/null
}
exec > >(tee -a "$out/log.txt") 2>&1
git log -1 --format='commit %H %s' 2>/dev/null || echo "commit: no git here"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

if want build; then
  stamp "build surge gpu_tests"
  BUILD_ONLY=1 TARGETS="${BUILD_TARGETS:-surge gpu_tests}" timeout 420 scripts/gpu-check.sh > "$results/build.txt" 2>&1
  echo "build exit $?"
  tail -5 "$results/build.txt"
fi
surge=build-gpu/surge


# A variant of the SPHERIC Test 2 scene: its text with the [resolution]/[fluid] keys replaced.
spheric_variant() {  # NAME then sed expressions
  local name=$1
  shift
  sed "$@" scenes/spheric2_dam_break.toml > "/tmp/spheric2_$name.toml"
  echo "/tmp/spheric2_$name.toml"
}
run_spheric() {  # NAME SCENE TIME [surge run args]
  local name=$1 scene=$2 time=$3
  shift 3
  stamp "SPHERIC Test 2, $name, $time s"
  timeout "${SPHERIC_TIMEOUT:-200}" $surge run "$scene" --backend gpu --time "$time" --out "/tmp/spheric2-$name" \
    --every 0 --quiet "$@" > "$results/spheric2-$name-run.txt" 2>&1
  echo "exit $?"
  grep -E "particles|steps|wall time|instab|error" "$results/spheric2-$name-run.txt" | head -8
  cp "/tmp/spheric2-$name/gauges.csv" "$results/spheric2-$name-gauges.csv" 2>/dev/null
  # Per gauge: the maximum and its time; P1 also over 5 ms windows (the impact's filtered peak).
  python3 - "$results/spheric2-$name-gauges.csv" <<'PY' || true
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, data = rows[0], [[float(v) for v in r] for r in rows[1:]]
t = [r[0] for r in data]
for c, name in enumerate(head[1:], 1):
    col = [r[c] for r in data]
    i = max(range(len(col)), key=lambda k: col[k])
    line = f"{name}: max {col[i]:.4g} at {t[i]:.3f} s"
    if name.startswith("P"):
        w = 5  # samples of 1 ms
        avg = [sum(col[k:k + w]) / w for k in range(len(col) - w)]
        j = max(range(len(avg)), key=lambda k: avg[k])
        line += f"; over 5 ms {avg[j]:.4g} at {t[j]:.3f} s"
    print(line)
PY
}

if want spheric2; then
  # SPHERIC_VARIANTS: NAME:TIME pairs; asis is the scene as written, the others change its keys.
  for spec in ${SPHERIC_VARIANTS:-asis:6}; do
    IFS=: read -r v time <<<"$spec"
    case $v in
      asis) s=scenes/spheric2_dam_break.toml ;;
      summation) s=$(spheric_variant "$v" -e 's/^continuity_density = .*/continuity_density = false/' \
        -e '/^density_diffusion = /d') ;;
      wendland3) s=$(spheric_variant "$v" -e 's/^support_ratio = .*/support_ratio = 3.0/' \
        -e 's/^kernel = .*/kernel = "wendland_c2"/') ;;
      wendland4) s=$(spheric_variant "$v" -e 's/^support_ratio = .*/support_ratio = 4.0/' \
        -e 's/^kernel = .*/kernel = "wendland_c2"/' -e 's/^wall_layers = .*/wall_layers = 4/') ;;
      dp01) s=$(spheric_variant "$v" -e 's/^spacing = .*/spacing = 0.01/') ;;
      *) echo "unknown variant $v"; continue ;;
    esac
    run_spheric "$v" "$s" "$time"
  done
fi

if want cost; then
  # The tank of SPHERIC Test 2 with the same water, bare (no solid, no gauge) and with the box obstacle, a
  # floating box (density 500, 0.1 m) dropped into the column and the scene's twelve gauges every 1 ms.
  n=${COST_PARTICLES:-4194304}
  steps=${COST_STEPS:-300}
  awk '/^\[\[solid\]\]/{skip=1} /^\[gauges\]/{skip=1} /^# (The box|Gauges)/{next} !skip' \
    scenes/spheric2_dam_break.toml > /tmp/cost_bare.toml
  { cat scenes/spheric2_dam_break.toml
    printf '\n[[solid]]\nname = "float"\nshape = "box"\ncenter = [2.6, 0.5, 0.6]\nsize = [0.1, 0.1, 0.1]\n'
    printf 'motion = "floating"\ndensity = 500.0\n'; } > /tmp/cost_full.toml
  for variant in bare full bare full; do
    stamp "cost: $variant, $n particles, $steps steps"
    timeout 150 $surge run "/tmp/cost_$variant.toml" --backend gpu --particles "$n" --steps "$steps" \
      --out "/tmp/cost-$variant" --every 0 --quiet > "$results/cost-$variant.txt" 2>&1
    echo "exit $?"
    grep -E "particles|wall time|steps" "$results/cost-$variant.txt" | head -6
  done
fi

if want incompressible; then
  # DFSPH and PBF on DualSPHysics' tank (scenes/spheric2dam.toml, dp 0.01 m, Wendland C2) at 3 and 4
  # spacings of support, gauges left out (PBF has no pressure to read), INCOMPRESSIBLE_TIME s each.
  awk '/^\[gauges\]/{skip=1} /^\[\[gauge\]\]/{skip=1} /^\[/{if ($0 !~ /gauge/) skip=0} !skip' \
    scenes/spheric2dam.toml > /tmp/tank4.toml
  sed -e 's/^support_ratio = .*/support_ratio = 3.0/' -e 's/^wall_layers = .*/wall_layers = 3/' \
    /tmp/tank4.toml > /tmp/tank3.toml
  for solver in dfsph pbf; do
    for support in 3 4; do
      stamp "$solver on the 3.22 m tank, Wendland at $support spacings, ${INCOMPRESSIBLE_TIME:-0.5} s"
      timeout 150 $surge run /tmp/tank$support.toml --solver $solver --backend gpu \
        --time "${INCOMPRESSIBLE_TIME:-0.5}" --out "/tmp/tank-$solver-$support" --every 0 --quiet \
        > "$results/tank-$solver-$support.txt" 2>&1
      echo "exit $?"
      grep -E "particles|steps|wall time|instab|unstable|error|iterations|max" "$results/tank-$solver-$support.txt" | head -12
    done
  done
  # The performance issue's target 3: one density iteration costs at most 1.5 WCSPH force passes at the same N
  # and support. One bench of both solvers, so the ratio is in one record (its "density_solve" entry).
  for warmup in ${DFSPH_WARMUPS:-0 100}; do
    stamp "dam break at 1M, wcsph then dfsph after $warmup warm-up steps: density iteration vs force pass"
    timeout 200 $surge bench scenes/dam_break.toml --backend gpu --solver wcsph,dfsph --particles 1048576 \
      --warmup "$warmup" --steps 20 --json "$results/dfsph-iteration-1M-warmup$warmup.json" \
      > "$results/dfsph-iteration-1M-warmup$warmup.txt" 2>&1
    echo "bench exit $?"
    grep -E "^ +[0-9]|per step|^dfsph,|unstable" "$results/dfsph-iteration-1M-warmup$warmup.txt" | cut -c1-200
  done
fi

if want nbody; then
  # All-pairs gravity beside NVIDIA's nbody sample (same GPU, same call): Surge's Plummer sphere at the
  # sample's benchmark sizes, FP32, softening 0.01, 20 flops per pair in both counts.
  stamp "nbody: Surge all-pairs (tiled) at 262,144 and 1,048,576 bodies, then NVIDIA's nbody"
  timeout 120 $surge bench scenes/plummer.toml --backend gpu --particles 262144,1048576 --warmup 2 --steps 10 \
    --json "$results/nbody-surge.json" > "$results/nbody-surge.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]" "$results/nbody-surge.txt" | cut -c1-70
  mkdir -p /tmp/peers-nbody && OUT=/tmp/peers-nbody timeout 150 bash .peers/run_device.sh nbody
  cp /tmp/peers-nbody/summary.txt "$results/nbody-peer-summary.txt" 2>/dev/null
fi

if want tree; then
  for leaf in ${TREE_LEAVES:-1 8 16 32}; do
    stamp "tree: Barnes-Hut, leaf_size $leaf, 1M and 4M bodies"
    sed "s/^theta = .*/&\nleaf_size = $leaf/" scenes/plummer_tree.toml > "/tmp/plummer_tree_$leaf.toml"
    timeout 120 $surge bench "/tmp/plummer_tree_$leaf.toml" --backend gpu --particles 1048576,4194304 --warmup 2 \
      --steps 5 --json "$results/tree-leaf-$leaf.json" > "$results/tree-leaf-$leaf.txt" 2>&1
    echo "bench exit $?"
    grep -E "^ +[0-9]|pairs|pulls" "$results/tree-leaf-$leaf.txt" | cut -c1-150
  done
  stamp "tree: tiled all-pairs at 4M bodies, one step"
  timeout 120 $surge bench scenes/plummer.toml --backend gpu --particles 4194304 --warmup 0 --steps 1 \
    --json "$results/tree-all-pairs-4M.json" > "$results/tree-all-pairs-4M.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]" "$results/tree-all-pairs-4M.txt" | cut -c1-90
fi

if want peers; then
  dam_scene=scenes/spheric2dam.toml
  if [ "${PEER_CELLS:-1}" != 1 ]; then
    dam_scene=/tmp/spheric2dam-cells-$PEER_CELLS.toml
    sed "s/^\[resolution\]$/[resolution]\ncells_per_support = $PEER_CELLS/" scenes/spheric2dam.toml > "$dam_scene"
  fi
  for pair in ${DAM_CASES:-652212:01M:0.1 3081624:04M:0.1 10438578:13M:0.03}; do
    IFS=: read -r particles case time <<<"$pair"
    stamp "Surge $dam_scene at $particles fluid particles, $time s; then DualSPHysics $case"
    timeout 200 $surge bench "$dam_scene" --backend gpu --particles "$particles" --steps 60 --warmup 20 \
      --json "$results/spheric2dam-$case-bench.json" > "$results/spheric2dam-$case-bench.txt" 2>&1
    echo "bench exit $?"
    grep -iE "neighbo|pairs|ms/step|step " "$results/spheric2dam-$case-bench.txt" | head -8
    timeout 240 $surge run "$dam_scene" --backend gpu --particles "$particles" --time "$time" \
      --out /tmp/spheric2dam --every 0 --quiet > "$results/spheric2dam-$case-run.txt" 2>&1
    echo "run exit $?"
    grep -E "particles|steps|wall time" "$results/spheric2dam-$case-run.txt" | head -5
    mkdir -p /tmp/peers-out && OUT=/tmp/peers-out timeout 200 bash .peers/run_device.sh "ds$case:$time"
  done
  cp /tmp/peers-out/summary.txt "$results/dualsphysics-summary.txt" 2>/dev/null
  cp /tmp/peers-out/logs.tar "$results/dualsphysics-logs.tar" 2>/dev/null
fi

if want frames; then
  for style in ${FRAME_STYLES:-spheres surface}; do
    stamp "frames: dam break, --style $style, ${FRAME_PARTICLES:-1048576,4194304} particles, 1920x1080"
    timeout 200 $surge bench scenes/dam_break.toml --backend gpu --particles "${FRAME_PARTICLES:-1048576,4194304}" \
      --steps 200 --render --size 1920x1080 --style "$style" ${FRAME_ARGS:-} > "$results/frames-$style.txt" 2>&1
    echo "bench exit $?"
    grep -E "frames at|interop|ms/step|^ +[0-9]" "$results/frames-$style.txt" | head -12
  done
fi

if want sph; then
  stamp "sph: dam break at ${SPH_PARTICLES:=262144,1048576,4194304,16777216}"
  timeout 200 $surge bench scenes/dam_break.toml --backend gpu --particles "$SPH_PARTICLES" --steps 100 --warmup 20 \
    --json "$results/sph-dam-break.json" > "$results/sph-dam-break.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]|neighbo|floor" "$results/sph-dam-break.txt" | cut -c1-150 | head -16
  stamp "sph: scenes/spheric2dam.toml at ${DAM_BENCH:=3081624,10438578}"
  timeout 200 $surge bench scenes/spheric2dam.toml --backend gpu --particles "$DAM_BENCH" --steps 60 --warmup 20 \
    --json "$results/sph-spheric2dam.json" > "$results/sph-spheric2dam.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]|neighbo|pairs|floor" "$results/sph-spheric2dam.txt" | cut -c1-150 | head -12
fi

if want graphs; then
  for graphs in off on; do
    stamp "graphs: dam break 262k and 1M, --cuda-graphs $graphs"
    timeout 100 $surge bench scenes/dam_break.toml --backend gpu --particles 262144,1048576 --steps 200 --warmup 20 \
      --cuda-graphs $graphs > "$results/graphs-$graphs.txt" 2>&1
    echo "bench exit $?"
    grep -E "^ +[0-9]|CUDA graphs" "$results/graphs-$graphs.txt" | cut -c1-150 | head -6
  done
fi

if want cells; then
  for cells in 1 2; do
    stamp "cells: --cells-per-support $cells"
    timeout 100 $surge bench scenes/spheric2dam.toml --backend gpu --particles 3081624 --steps 60 --warmup 20 \
      --cells-per-support $cells --json "$results/cells-$cells-spheric2dam.json" > "$results/cells-$cells-spheric2dam.txt" 2>&1
    echo "bench exit $?"
    grep -E "^ +[0-9]|neighbo|pairs" "$results/cells-$cells-spheric2dam.txt" | cut -c1-150 | head -6
    timeout 100 $surge bench scenes/dam_break.toml --backend gpu --particles 262144,1048576,4194304 --steps 100 \
      --warmup 20 --cells-per-support $cells --json "$results/cells-$cells-dam-break.json" \
      > "$results/cells-$cells-dam-break.txt" 2>&1
    echo "bench exit $?"
    grep -E "^ +[0-9]|neighbo" "$results/cells-$cells-dam-break.txt" | cut -c1-150 | head -9
  done
fi

if want density; then
  # Issue 13's graphics-settings target (cubic spline at 2 spacings) with WCSPH's density from the continuity
  # equation (one neighbour pass a step) against summation (two), half cells, CUDA graphs off (stage times) and
  # on; then the 1M dam break run to its end with each density, for stability and wall time per simulated second.
  for density in summation continuity; do
    for graphs in off on; do
      stamp "density: $density, --cuda-graphs $graphs, dam break at ${DENSITY_PARTICLES:=262144,16777216}"
      timeout 150 $surge bench scenes/dam_break.toml --backend gpu --particles "$DENSITY_PARTICLES" --steps 200 \
        --warmup 20 --cells-per-support 2 --density $density --cuda-graphs $graphs \
        --json "$results/density-$density-graphs-$graphs.json" > "$results/density-$density-graphs-$graphs.txt" 2>&1
      echo "bench exit $?"
      grep -E "^ +[0-9]|neighbo" "$results/density-$density-graphs-$graphs.txt" | cut -c1-200 | head -6
    done
  done
  stamp "density: continuity, --cuda-graphs on, --index-build counting"
  timeout 150 $surge bench scenes/dam_break.toml --backend gpu --particles "$DENSITY_PARTICLES" --steps 200 \
    --warmup 20 --cells-per-support 2 --density continuity --cuda-graphs on --index-build counting \
    > "$results/density-continuity-counting.txt" 2>&1
  echo "bench exit $?"
  grep -E "^ +[0-9]" "$results/density-continuity-counting.txt" | cut -c1-200 | head -4
  for density in ${DENSITY_RUNS:-summation continuity}; do
    stamp "density: $density, the 1M dam break to its end"
    timeout 150 $surge run scenes/dam_break.toml --backend gpu --particles 1048576 --density $density \
      --every 0 --quiet --out "/tmp/density-run-$density" \
      > "$results/density-run-$density.txt" 2>&1
    echo "run exit $?"
    grep -E "particles|steps|simulated|wall time|mean step|density|instab|error" "$results/density-run-$density.txt" | head -12
  done
fi

if want stability; then
  # The dam break at graphics settings with continuity density, run to its end: NAME:PARTICLES in
  # STABILITY_RUNS, NAME one of base (the scene), alpha05 (viscosity_alpha 0.05), c2 (twice the automatic
  # speed of sound, 47.5 m/s), delta02 (density_diffusion 0.2).
  for spec in ${STABILITY_RUNS:-base:28224 base:262144 base:1048576 alpha05:1048576 c2:1048576}; do
    IFS=: read -r v n <<<"$spec"
    case $v in
      base) s=scenes/dam_break.toml ;;
      alpha05) s=/tmp/db_$v.toml; sed 's/^viscosity_alpha = .*/viscosity_alpha = 0.05/' scenes/dam_break.toml > $s ;;
      c2) s=/tmp/db_$v.toml; sed 's/^speed_of_sound = .*/speed_of_sound = 47.5/' scenes/dam_break.toml > $s ;;
      delta02) s=/tmp/db_$v.toml
        sed 's/^xsph_epsilon = .*/xsph_epsilon = 0.0\ncontinuity_density = true\ndensity_diffusion = 0.2/' \
          scenes/dam_break.toml > $s ;;
      *) echo "unknown variant $v"; continue ;;
    esac
    stamp "stability: $v at $n, continuity density, to the scene's end"
    timeout 150 $surge run "$s" --backend gpu --particles "$n" --density continuity --every 0 --quiet \
      --out "/tmp/stability-$v-$n" > "$results/stability-$v-$n.txt" 2>&1
    echo "run exit $?"
    grep -E "unstable|particles |steps |simulated|wall time" "$results/stability-$v-$n.txt" | head -6
  done
fi

if want gauged; then
  # scenes/spheric2dam.toml at DualSPHysics' 01M size over its 0.5 s with the box named and a force gauge on it
  # (as in docs/perf/2026-12-04-accuracy-beside-dualsphysics/device.sh); its gauges.csv goes beside
  # DualSPHysics' stored ones through scripts/compare-gauges-with-dualsphysics.py.
  sed -e 's/^\[\[solid\]\]$/[[solid]]\nname = "box"/' scenes/spheric2dam.toml > /tmp/spheric2dam-gauged.toml
  printf '\n[[gauge]]\nname = "Fbox"\ntype = "force"\nsolid = "box"\n' >> /tmp/spheric2dam-gauged.toml
  stamp "gauged: spheric2dam 652212 fluid, 0.5 s"
  timeout 120 $surge run /tmp/spheric2dam-gauged.toml --backend gpu --particles 652212 --time 0.5 \
    --out /tmp/surge-gauged --every 0 --quiet > "$results/gauged-run.txt" 2>&1
  echo "exit $?"
  grep -E "particles  |steps  |wall time|gauges:" "$results/gauged-run.txt"
  cp /tmp/surge-gauged/gauges.csv "$results/gauged-surge-gauges.csv"
  python3 scripts/compare-gauges-with-dualsphysics.py /tmp/surge-gauged/gauges.csv \
    docs/perf/2026-12-04-accuracy-beside-dualsphysics/gauges 2>&1 | tee "$results/gauged-compare.txt"
  stamp "validate spheric2 --backend gpu (the scene as written, 6 s)"
  timeout 120 $surge validate spheric2 --backend gpu --out /tmp/validate-spheric2 --quiet \
    > "$results/validate-spheric2.txt" 2>&1
  echo "exit $?"
  tail -25 "$results/validate-spheric2.txt"
  cp /tmp/validate-spheric2/gauges.csv "$results/validate-spheric2-gauges.csv" 2>/dev/null
fi

if want launches; then
  # ncu serialises the kernels, so the sum of their times is the step's GPU work; the bench's ms/step beside
  # it is the wall time, and the difference is launch and host overhead.
  stamp "launches: 262,144-particle dam break, ${LAUNCH_STEPS:-5} steps under ncu"
  timeout 100 $surge bench scenes/dam_break.toml --backend gpu --particles 262144 --steps 200 --warmup 20 \
    > "$results/launches-bench.txt" 2>&1
  grep -E "ms/step|^ +[0-9]" "$results/launches-bench.txt" | head -6
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv \
    $surge run scenes/dam_break.toml --backend gpu --particles 262144 --steps "$((30 + ${LAUNCH_STEPS:-5}))" \
    --every 0 --quiet --out /tmp/launches > "$results/launches-ncu.csv" 2> "$results/launches-ncu.err"
  echo "ncu exit $?"
  python3 - "$results/launches-ncu.csv" "${LAUNCH_STEPS:-5}" <<'PY' || true
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, data = rows[0], rows[1:]
name, value = head.index("Kernel Name"), head.index("Metric Value")
ids = head.index("ID")
print(f"{len(data)} kernel launches in the run")
# The last steps: launches after the first 30 steps' worth are taken as the steady state.
per = collections.OrderedDict()
tail = data[-int(len(data) * int(sys.argv[2]) / (30 + int(sys.argv[2]))):]
for r in tail:
    k = r[name][:90]
    n, t = per.get(k, (0, 0.0))
    per[k] = (n + 1, t + float(r[value].replace(",", "")))
total = sum(t for _, t in per.values())
print(f"last {sys.argv[2]} steps (approx.): {len(tail)} launches, {total / 1e6 / int(sys.argv[2]):.4f} ms of kernels a step")
for k, (n, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:25]:
    print(f"  {n:5d} x {t / n / 1e6:8.4f} ms  {k}")
PY
fi

# The tests last: the benchmarks' figures come back even when the tests run into the call's limit.
if want tests; then
  stamp "gpu_tests ${GTEST_FILTER:-(all)}"
  extra=()
  [ -n "${ALSO_DISABLED:-}" ] && extra+=(--gtest_also_run_disabled_tests)
  # The tests write their PNGs into OUT: elsewhere, so that the 8 files the device returns are this script's.
  mkdir -p /tmp/gpu-tests-out
  OUT=/tmp/gpu-tests-out OMP_WAIT_POLICY=passive timeout "${TESTS_TIMEOUT:-240}" build-gpu/tests/gpu_tests \
    --gtest_filter="${GTEST_FILTER:-*}" "${extra[@]}" > "$results/gpu_tests.txt" 2>&1
  echo "gpu_tests exit $?"
  grep -E "^\[  (PASSED|FAILED) |tests ran|^\[  FAILED|Failure|Expected|Which is|draft|piston|kh =|H/S|not checked|SKIPPED" \
    "$results/gpu_tests.txt" | head -60
fi

stamp "done"
