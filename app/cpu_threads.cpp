#include "app/cpu_threads.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace surge::app {
namespace {

// Set by apply_cpu_threads; a library user (the tests) may never call it.
std::optional<CpuThreads> g_threads;

// The quota in CPUs (quota / period), or nullopt when there is none. cgroup v2 writes "max 100000" for no
// quota and "150000 100000" for 1.5 CPUs; v1 writes -1 into cfs_quota_us for none.
std::optional<double> cgroup_cpu_quota() {
  std::vector<std::string> v2_files;
  {
    std::ifstream cgroup("/proc/self/cgroup");
    std::string line;
    while (std::getline(cgroup, line))
      if (line.rfind("0::", 0) == 0) v2_files.push_back("/sys/fs/cgroup" + line.substr(3) + "/cpu.max");
  }
  v2_files.emplace_back("/sys/fs/cgroup/cpu.max");
  for (const std::string& path : v2_files) {
    std::ifstream file(path);
    std::string quota;
    double period = 0;
    if (!(file >> quota >> period)) continue;
    if (quota == "max" || period <= 0) return std::nullopt;
    return std::strtod(quota.c_str(), nullptr) / period;
  }
  for (const char* dir : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
    std::ifstream quota_file(std::string(dir) + "/cpu.cfs_quota_us");
    std::ifstream period_file(std::string(dir) + "/cpu.cfs_period_us");
    double quota = 0, period = 0;
    if (!(quota_file >> quota) || !(period_file >> period)) continue;
    if (quota <= 0 || period <= 0) return std::nullopt;
    return quota / period;
  }
  return std::nullopt;
}

std::string format_cpus(double cpus) {
  std::ostringstream text;
  text << cpus;
  return text.str();
}

}  // namespace

void ensure_passive_omp_waits(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  // Only reached when the exec failed (no /proc): go on, spinning as libgomp does by default.
  std::perror(
      "surge: could not restart with OMP_WAIT_POLICY=passive; OpenMP threads will spin while waiting");
}

int available_cpus(std::string* quota_text) {
  cpu_set_t mask;
  int cpus = 0;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) cpus = CPU_COUNT(&mask);
  if (cpus <= 0) cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
  if (cpus <= 0) cpus = 1;
  if (const std::optional<double> quota = cgroup_cpu_quota(); quota && *quota < cpus) {
    if (quota_text) *quota_text = "cgroup quota " + format_cpus(*quota) + " CPUs";
    return std::max(1, int(std::ceil(*quota)));
  }
  return cpus;
}

CpuThreads apply_cpu_threads(std::optional<int> requested) {
  CpuThreads threads;
  if (requested && *requested > 0) {
    threads = {*requested, "--threads"};
  } else if (const char* env = std::getenv("OMP_NUM_THREADS"); env && std::atoi(env) > 0) {
    // libgomp has read it already; omp_get_max_threads() is its first entry ("4,2" nests).
    threads = {omp_get_max_threads(), "OMP_NUM_THREADS"};
  } else {
    std::string quota;
    const int cpus = available_cpus(&quota);
    threads = {cpus,
               quota.empty() ? std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs") + " available" : quota};
  }
  omp_set_num_threads(threads.count);
  g_threads = threads;
  return threads;
}

std::string cpu_threads_text() {
  const int count = omp_get_max_threads();
  std::string text = std::to_string(count) + (count == 1 ? " thread" : " threads");
  if (g_threads && g_threads->count == count) text += ": " + g_threads->source;
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  text +=
      std::string("; ") + (policy ? policy : "spinning (OMP_WAIT_POLICY unset)") + (policy ? " waits" : "");
  return text;
}

}  // namespace surge::app
