// The host a benchmark ran on, so a recorded result says what produced it.
#pragma once

#include <string>

namespace surge::app {

struct MachineInfo {
  std::string hostname;
  std::string cpu_model;  // "model name" from /proc/cpuinfo; "unknown" where there is none
  unsigned logical_cores = 0;
  int openmp_threads = 0;  // what the CPU backend will use (OMP_NUM_THREADS, or the cores)
};

MachineInfo query_machine();

// Host memory bandwidth as the CPU backend's threads reach it copying a 128 MiB array [bytes/s, read +
// write]: the ceiling a CPU benchmark measures each stage's byte floor against. Best of a few copies.
double measure_host_copy_bandwidth();

}  // namespace surge::app
