#include "sim/setup/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "sim/scene/scene.h"

namespace surge {
namespace {

// A cgroup limit file's value in bytes, or 0 for "max", unreadable or absent.
double cgroup_limit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  const double value = std::strtod(text.c_str(), nullptr);
  // cgroup v1 writes "no limit" as a number near 2^63.
  return value > 0 && value < 1e18 ? value : 0;
}

double resource_limit(int resource) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  return double(limit.rlim_cur);
}

}  // namespace

HostMemory usable_host_memory() {
  HostMemory memory{double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)), "physical memory"};
  const auto lower = [&](double bytes, const char* source) {
    if (bytes > 0 && (memory.bytes <= 0 || bytes < memory.bytes)) memory = {bytes, source};
  };
  lower(cgroup_limit("/sys/fs/cgroup/memory.max"), "the cgroup's memory.max");
  lower(cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes"), "the cgroup's memory limit");
  lower(resource_limit(RLIMIT_DATA), "the data size limit (ulimit -d)");
  lower(resource_limit(RLIMIT_AS), "the address space limit (ulimit -v)");
  return memory;
}

std::string approximate_count(double count) {
  char text[64];
  if (count < 1e7) {
    std::string digits = std::to_string(std::llround(count)), grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
      grouped += digits[i];
    }
    return grouped;
  }
  const int exponent = int(std::floor(std::log10(count)));
  std::snprintf(text, sizeof text, "%.2ge%d", count / std::pow(10.0, exponent), exponent);
  return text;
}

std::string gibibytes(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g GiB", bytes / double(1ull << 30));
  return text;
}

void check_setup_memory(const Scene& scene, const std::string& key, int line, double particles, double bytes,
                        const std::string& what, const std::string& needed_for) {
  const HostMemory memory = usable_host_memory();
  if (memory.bytes <= 0 || bytes <= memory.bytes) return;
  // The need grows with the particle count, so the count that fits scales with the ratio.
  const double fit = std::floor(particles * memory.bytes / bytes);
  throw SceneError(scene.path, line, key,
                   "about " + approximate_count(particles) + " " + what + " need at least " +
                       gibibytes(bytes) + " of host memory (" + needed_for + "); " + memory.source +
                       " allows " + gibibytes(memory.bytes) + ": about " + approximate_count(fit) + " fit");
}

}  // namespace surge
