#include "app/machine_info.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
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

double measure_host_copy_bandwidth() {
  static constexpr std::size_t kBytes = std::size_t(128) << 20;
  constexpr int kRepeats = 5;
  const std::unique_ptr<char[]> source(new char[kBytes]), destination(new char[kBytes]);
  // Each thread works on its own contiguous share, as the backend's static schedule would; written first,
  // so that the pages exist (an untouched page reads as the one shared zero page, faster than memory).
  auto each_share = [](auto&& work) {
#pragma omp parallel
    {
      const std::size_t threads = std::size_t(omp_get_num_threads());
      const std::size_t share = (kBytes + threads - 1) / threads;
      const std::size_t begin = std::min(kBytes, share * std::size_t(omp_get_thread_num()));
      work(begin, std::min(kBytes, begin + share) - begin);
    }
  };
  each_share([&](std::size_t begin, std::size_t size) {
    std::memset(source.get() + begin, 1, size);
    std::memset(destination.get() + begin, 0, size);
  });
  double best_s = 0.0;
  for (int k = 0; k < kRepeats; ++k) {
    const auto start = std::chrono::steady_clock::now();
    each_share([&](std::size_t begin, std::size_t size) {
      std::memcpy(destination.get() + begin, source.get() + begin, size);
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (best_s == 0.0 || s < best_s) best_s = s;
  }
  return best_s > 0.0 ? 2.0 * double(kBytes) / best_s : 0.0;
}

}  // namespace surge::app
