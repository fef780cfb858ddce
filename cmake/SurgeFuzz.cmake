# -DSURGE_FUZZ=ON: the libFuzzer harnesses (tests/fuzz/), in a build of their own (scripts/fuzz.sh makes
# build-fuzz/). Everything compiled in that build carries libFuzzer's coverage hooks and ASan + UBSan, so
# the fuzzer sees the branches of the code under test and every memory or UB error in it aborts the run.
if(NOT SURGE_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SURGE_FUZZ=ON needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ "
                      "-DCMAKE_C_COMPILER=clang (Debian: clang libclang-rt-14-dev libomp-14-dev)")
endif()
if(SURGE_HAVE_CUDA)
  message(FATAL_ERROR "SURGE_FUZZ=ON needs -DSURGE_CUDA=OFF: the harnesses test host code, and nvcc's host "
                      "compiler would have to be clang with the same instrumentation")
endif()
set(SURGE_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                     -fno-omit-frame-pointer -g)
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${SURGE_FUZZ_FLAGS}>")
add_link_options(-fsanitize=address,undefined)

# toml++'s own assertions are compiled out, as they are in Surge's release builds (NDEBUG, and GCC 12 has no
# __builtin_assume for TOML_ASSERT_ASSUME): on invalid text toml++ 3.3.0 asserts what its next step then
# reports as a parse error (a non-digit after a date's 'T'), so with them on the fuzzer would stop at
# those instead of looking further. The ones the scene check guards against stay covered by
# tests/sim/scene_text_test.cpp. -DSURGE_FUZZ_TOML_ASSERTS=ON keeps them, to hunt for more of them.
option(SURGE_FUZZ_TOML_ASSERTS "Keep toml++'s assertions in the fuzz build" OFF)
if(NOT SURGE_FUZZ_TOML_ASSERTS)
  add_compile_options("-DTOML_ASSERT(expr)=static_assert(true)")  # a function-like macro: not a definition to CMake
endif()
