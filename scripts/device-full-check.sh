#!/usr/bin/env bash
# On the H200 machine: build, write the CPU regression record as this build computes it ($OUT/reg.txt), and run
# every test (all labels) on its 16 cores. Carry .deps.
BUILD_ONLY=1 bash scripts/gpu-check.sh > $OUT/build.txt 2>&1; tail -3 $OUT/build.txt
cd build-gpu
SURGE_WRITE_CPU_REGRESSION=$OUT/reg.txt OMP_WAIT_POLICY=passive tests/sim_tests --gtest_filter='CpuRegression.*' > $OUT/reg-write.txt 2>&1
OMP_WAIT_POLICY=passive tests/sim_tests --gtest_filter='CpuRegression.*' 2>&1 | grep -E "differ|not in|OK|FAILED" | head -20
timeout 420 ctest -j12 --output-on-failure > $OUT/ctest-all.txt 2>&1; grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run" $OUT/ctest-all.txt | head -30
