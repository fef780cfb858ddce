#include "app/machine_info.h"

#include <omp.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <thread>

namespace surge::app {
namespace {

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

}  // namespace

MachineInfo query_machine() {
  return {host_name(), cpu_model(), std::thread::hardware_concurrency(), omp_get_max_threads()};
}

}  // namespace surge::app
