#!/usr/bin/env bash
# Prints why each skipped test skipped. ctest names the skipped tests at the end of its output ("N - NAME
# (Skipped)") but keeps their output in LastTest.log only; this takes each one's reason from there: the line
# after GoogleTest's "Skipped" (GTEST_SKIP's message), else the test's last line of output.
# Usage: skip-reasons.sh CTEST_OUTPUT [LAST_TEST_LOG]
ctest_output=$1
log=${2:-build/Testing/Temporary/LastTest.log}
[[ -f "$ctest_output" && -f "$log" ]] || exit 0
mapfile -t skipped < <(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$ctest_output")
((${#skipped[@]} == 0)) && exit 0
echo "Skipped tests, and why:"
for name in "${skipped[@]}"; do
  reason=$(awk -v name="$name" '
    $0 ~ / Testing: / { current = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", current); next }
    current == name && /^Output:$/ { inside = 1; n = 0; next }
    inside && /^<end of output>$/ { exit }
    inside && !/^-+$/ { lines[n++] = $0 }
    END {
      for (i = 0; i < n; i++) if (lines[i] ~ /: Skipped$/) { print lines[i + 1]; exit }
      if (n > 0) print lines[n - 1]
    }' "$log")
  echo "  $name: ${reason:-(no output)}"
done
