// The host memory a setup may use, and the check that refuses a scene before it allocates more than that
// (a particle lattice of a few billion sites ended in std::bad_alloc after a minute, or never ended).
#pragma once

#include <cstddef>
#include <string>

namespace surge {

struct Scene;

struct HostMemory {
  double bytes = 0;
  std::string source;  // what sets it: "physical memory", "the cgroup's memory.max", "ulimit -d"...
};

// The least of the physical memory, the cgroup's limit (v2 memory.max or v1 memory.limit_in_bytes) and
// the process's RLIMIT_DATA and RLIMIT_AS.
HostMemory usable_host_memory();

// "1.8e11", or "125,000" below ten million: a count as a message shows it.
std::string approximate_count(double count);
// "4.2 GiB".
std::string gibibytes(double bytes);

// Throws SceneError (at `key`, `line`; line 0 for a command-line option) when `bytes`, what about
// `particles` particles (`what`: "fluid particles", "grains", "bodies") need at least, exceeds the usable
// host memory; `needed_for` says what the bytes are for, and the message gives the count that would fit.
void check_setup_memory(const Scene& scene, const std::string& key, int line, double particles, double bytes,
                        const std::string& what, const std::string& needed_for);

}  // namespace surge
