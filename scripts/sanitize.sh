#!/usr/bin/env bash
# Builds the CPU test suite with AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer, part of
# ASan) in build-sanitize/ and runs it; any sanitizer report fails the test that produced it, and so this
# script. docs/fuzzing-and-sanitizers.md says what runs and what is left out.
#
# Usage: scripts/sanitize.sh [CTEST ARGS...]   e.g. scripts/sanitize.sh -R SceneText
#   SANITIZE_ALL=1 scripts/sanitize.sh   # the CLI tests and the long physics runs too
# SANITIZE_BUILD_DIR moves the build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-sanitize}

# -O1: ASan's own advice (fast enough, and frames stay readable); no NDEBUG, so asserts run as well.
# -fno-sanitize-recover=all: a UBSan report aborts the test instead of printing and carrying on.
# -Wno-maybe-uninitialized: at -O1 GCC 12 warns inside libstdc++'s <regex> (std::function moved into an NFA
# state, GCC bug 105562), which -Werror would make fatal; the Release build keeps the warning.
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
flags+=" -Wno-maybe-uninitialized"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# The CPU build only: no CUDA (sanitizers do not see device code), no renderer, viewer or Python module
# (Mesa's and the interpreter's own leaks and uninstrumented GL drivers would be noise, and the Python
# module would need the ASan runtime preloaded into python3).
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
  -DCMAKE_CXX_FLAGS_SANITIZE="$flags" -DCMAKE_C_FLAGS_SANITIZE="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS_SANITIZE="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS_SANITIZE="-fsanitize=address,undefined" \
  -DSURGE_CUDA=OFF -DSURGE_RENDER=OFF -DSURGE_VIEWER=OFF -DSURGE_PYTHON=OFF "${launcher[@]}"
# sim_tests alone by default, which is what fits in CI's time; SANITIZE_ALL=1 adds the CLI tests, which run
# the sanitized `surge` binary, and the long tests below (about 40 min on two cores, build included).
targets=(sim_tests)
# The CLI tests and scenes_doc_up_to_date carry the label cli; cli_tests_NOT_BUILT is the stand-in CTest
# runs (and fails) for a test binary not built.
# The rank tests (label mpi) are left out always: OpenMPI's runtime keeps allocations until exit, which
# LeakSanitizer would report as Surge's; the Release suite (scripts/test.sh) runs them.
ctest_scope=(-LE 'cli|mpi')
not_built='^cli_tests_NOT_BUILT$'
if [[ "${SANITIZE_ALL:-0}" == 1 ]]; then
  targets+=(cli_tests surge)
  ctest_scope=(-LE mpi)
  not_built='^$'
fi
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"

# halt_on_error/abort_on_error: the first report ends the process with a failing status (ctest sees
# a failed test, and the CLI tests see a surge that died of a signal). detect_leaks: LeakSanitizer runs at
# exit (it works as root in CI). strict_string_checks, detect_stack_use_after_return: more of ASan's
# checks than its defaults. print_stacktrace: UBSan reports with the stack that led there.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
if [[ -f tests/sanitizers/lsan.supp ]]; then
  export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi

# Left out under sanitizers always: the packaging checks, which test CMake and CPack rather than Surge's
# memory; and the tests that lower the process's data size limit (ulimit -d) to a few GiB to check the
# setup's refusals, where ASan cannot map its shadow memory and dies before Surge runs.
exclude='^(install_and_deb|source_archive_knows_its_commit)$|^LimitedMemory\.|^Cli\.SetupThatCannotFitIsRefusedWithinASecond$'
# Left out unless SANITIZE_ALL=1: the long physics runs, 20 s to 2 min each under ASan at -O1 (4 to 7 times
# their Release time; 14 min of the suite's 20 on two cores). The shorter tests of the same solvers,
# boundaries, solids, gauges and DEM laws take the same code paths; these only take them for longer.
long_tests=(
  ContinuityDensity.TankFloorGaugeReadsRhoGDAndDiffusionQuietsIt
  ContinuityDensity.DamBreakWallGaugeIsQuietWithDiffusion
  ContinuityDensity.DamBreakKeepsItsDensityAndItsParticlesOutOfTheWalls
  ContinuityDensity.DamBreakWallPressureIsQuietWithDiffusion
  ContinuityDensity.TankFloorPressureIsRhoGDAndDiffusionQuietsIt
  CpuRegression.EveryScenesCpuRunIsBitIdenticalToTheRecordedOne
  DamBreakVerdict.LowResolutionWcsphOnCpuIsJudgedAsTheCommandJudgesIt
  DemMindlin.ACollapsedColumnComesToRestAsAHeap
  DemPile.KineticEnergyOfARestingBedDecaysToZero
  Dfsph.HydrostaticTankHoldsDensityAndPressure
  Emitter.AHorizontalJetFollowsTheBallisticParabola
  ExecutionMode.GranularAndGravityRunsSwitchThroughTheScene
  Gauges.HydrostaticTankReadsRhoGDTheDepthAndRest
  Hydrostatic.DensityHoldsAndPressureIsRhoGD
  MovingSolids.AFixedBoxFeelsItsBuoyancyUnderEverySolver
  MovingSolids.AFixedSphereFeelsItsBuoyancy
  MovingSolids.ArchimedesFloatsHalfAndSinksOneAndAHalf
  MovingSolids.ArchimedesUnderDfsph
  MovingSolids.ArchimedesUnderPbf
  MovingSolids.ATurningPaddleGivesTheWaterAngularMomentumOfItsSign
  Pbf.HydrostaticTankHoldsDensityWithinItsIterationBudget
  Solids.HydrostaticTankWithASphereKeepsTheFluidOutAndRhoGDUnderIt
  Solids.ContinuityTankWithASphereKeepsTheFluidOutAndRhoGDUnderIt
  SupportRatio.FourSpacingsLoadAndRunAndFourAndAHalfIsRefused
  WcsphSolver.SplitForcePassGivesTheSinglePassBitForBit
)
exclude+="|$not_built"
if [[ "${SANITIZE_ALL:-0}" != 1 ]]; then
  exclude+="|^($(printf '%s\n' "${long_tests[@]}" | sed 's/\./\\./g' | paste -sd '|'))\$"
fi
status=0
ctest --test-dir "$build" --output-on-failure -j2 --timeout 900 "${ctest_scope[@]}" -E "$exclude" "$@" |
  tee "$build/ctest-output.log" || status=$?
scripts/skip-reasons.sh "$build/ctest-output.log" "$build/Testing/Temporary/LastTest.log"
exit "$status"
