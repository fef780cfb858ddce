// How many OpenMP threads the CPU backend runs, and how they wait.
//
// Two things go wrong on a shared machine without this. libgomp spins a waiting thread for a while before it
// sleeps (OMP_WAIT_POLICY unset), so on a busy 2-core machine the threads of a step spin against the other
// work and each other: the dam break at 4,914 particles took 133-197 ms a step spinning and 5.5-16.6 ms
// with passive waits. And libgomp starts one thread per CPU in the affinity mask, not per CPU that a
// container's cgroup quota lets the process use.
#pragma once

#include <optional>
#include <string>

namespace surge::app {

// libgomp reads OMP_WAIT_POLICY once, when it is loaded, before main() runs. If it is unset, sets it to
// "passive" and executes this binary again (from /proc/self/exe, with the same arguments), so that waiting
// threads sleep. Returns only when the policy was already set, or when the exec failed (the run then goes
// on with libgomp's default). A user who wants spinning waits sets OMP_WAIT_POLICY=active.
void ensure_passive_omp_waits(char** argv);

// The CPUs this process may use: those in its affinity mask, fewer if a cgroup CPU quota (cgroup v2
// cpu.max, v1 cpu.cfs_quota_us) allows less, rounded up. `quota_text` is set to "cgroup quota 1.5 CPUs"
// when the quota is what limits.
int available_cpus(std::string* quota_text = nullptr);

struct CpuThreads {
  int count = 1;
  std::string source;  // "--threads", "OMP_NUM_THREADS", "cgroup quota 2 CPUs", "2 CPUs available"
};

// The thread count a run uses: --threads when given (> 0), else OMP_NUM_THREADS when set, else the
// available CPUs. Applies it with omp_set_num_threads and remembers it for cpu_threads_text().
CpuThreads apply_cpu_threads(std::optional<int> requested);

// "2 threads: cgroup quota 2 CPUs; passive waits", for the backend line.
std::string cpu_threads_text();

}  // namespace surge::app
