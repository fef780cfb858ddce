// Every host<->device copy Surge makes, with its size, time and reason (STYLE.md: "every transfer
// has a name"). The classroom modes and the interop test read it; in GPU-resident stepping it stays
// empty between status readbacks.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace surge {

enum class CopyDirection { host_to_device, device_to_host };

class TransferLedger {
 public:
  struct Entry {
    std::size_t copies = 0;
    std::size_t bytes = 0;
    double ms = 0.0;
  };

  void record(CopyDirection direction, std::size_t bytes, double ms, const std::string& reason) {
    std::lock_guard lock(mutex_);
    Entry& e = entries_[{direction, reason}];
    e.copies += 1;
    e.bytes += bytes;
    e.ms += ms;
  }
  std::size_t total_bytes() const {
    std::lock_guard lock(mutex_);
    std::size_t total = 0;
    for (const auto& [key, e] : entries_) total += e.bytes;
    return total;
  }
  std::map<std::pair<CopyDirection, std::string>, Entry> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<CopyDirection, std::string>, Entry> entries_;
};

}  // namespace surge
