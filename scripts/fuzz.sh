#!/usr/bin/env bash
# Builds the scene loader's libFuzzer harness (tests/fuzz/scene_fuzzer.cpp) with clang, ASan and UBSan in
# build-fuzz/ and fuzzes it for SECONDS (default 60). Prints executions per second and coverage; exits
# non-zero on any finding (a crash, a sanitizer report, an exception other than SceneError, an input that
# runs past the timeout or the memory limit) and keeps the input that caused it in build-fuzz/artifacts/.
#
# Usage: scripts/fuzz.sh [SECONDS] [LIBFUZZER FLAGS...]
#   scripts/fuzz.sh                 # the CI run, one minute
#   scripts/fuzz.sh 3600 -jobs=2    # an hour on two processes (logs in build-fuzz/fuzz-N.log)
# Reproduce a finding: build-fuzz/tests/fuzz/scene_fuzzer build-fuzz/artifacts/crash-...
# docs/fuzzing-and-sanitizers.md has the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-60}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# -O1 and no NDEBUG: toml++'s and the standard library's asserts count as findings too (toml++ asserts on a
# NUL byte, which the scene check must catch first). The renderer, viewer, Python module and tests are off:
# the harness needs surge_sim only.
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_FLAGS_FUZZ="-O1" -DCMAKE_C_FLAGS_FUZZ="-O1" -DSURGE_FUZZ=ON \
  -DSURGE_CUDA=OFF -DSURGE_RENDER=OFF -DSURGE_VIEWER=OFF -DSURGE_PYTHON=OFF -DBUILD_TESTING=OFF \
  "${launcher[@]}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --parallel "$(nproc)" --target scene_fuzzer

# The corpus starts from the shipped scenes and the seeds (the byte check's reproducers) and keeps what the
# fuzzer adds, so a later run goes on from there; scenes/ itself is only read.
corpus=$build/corpus
artifacts=$build/artifacts
mkdir -p "$corpus" "$artifacts"
seed() { [[ -e "$corpus/$2" ]] || cp "$1" "$corpus/$2"; }
while IFS= read -r -d '' scene; do seed "$scene" "$(echo "$scene" | tr '/' '_')"; done \
  < <(find scenes -name '*.toml' -print0)
for file in tests/fuzz/seeds/*; do seed "$file" "seed_$(basename "$file")"; done

# One thread for the setup's OpenMP loops: each input is small, and the fuzzer's time goes to inputs.
export OMP_NUM_THREADS=1
log=$root/$build/fuzz.log
stamp=$build/fuzz.started  # findings of this run are the artifacts newer than this
touch "$stamp"
rm -f "$build"/fuzz-*.log
echo "fuzz.sh: fuzzing the scene loader for ${seconds} s (log: $log)"
status=0
# -timeout: a scene that takes 10 s to load (or to set up, at most 20,000 particles) is a hang.
# -rss_limit_mb: 2 GB, libFuzzer's default made explicit; it also caps a single allocation.
(cd "$build" && ./tests/fuzz/scene_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -dict="$root/tests/fuzz/scene.dict" -artifact_prefix="$root/$artifacts/" "$@" \
  "$root/$corpus") >"$log" 2>&1 || status=$?

# With -jobs each process writes fuzz-N.log, and the main log only says which jobs ran.
logs=("$log")
mapfile -t job_logs < <(find "$build" -maxdepth 1 -name 'fuzz-*.log' | sort)
((${#job_logs[@]} > 0)) && logs=("${job_logs[@]}")
for one in "${logs[@]}"; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$one" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$one" | tail -1)
  coverage=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+' "$one" | tail -1)
  echo "fuzz.sh: $(basename "$one"): ${runs:-?} executions, ${speed:-?} per second, ${coverage:-no coverage line}"
done
echo "fuzz.sh: corpus $(find "$corpus" -type f | wc -l) inputs in $corpus"

findings=$(find "$artifacts" -type f -newer "$stamp" | wc -l)
if ((status != 0 || findings > 0)); then
  echo "fuzz.sh: FAILED (libFuzzer exit status $status; $findings inputs in $artifacts):" >&2
  for one in "${logs[@]}"; do
    # The report: from the sanitizer's or libFuzzer's first error line to the end.
    awk '/^==[0-9]+==|ERROR: libFuzzer|runtime error:|^terminate called/ { on = 1 } on' "$one" | head -80 >&2
  done
  find "$artifacts" -type f -newer "$stamp" >&2
  exit 1
fi
echo "fuzz.sh: no findings"
