#include "sim/io/temporary_files.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <string>

namespace surge {
namespace {

// Writer threads (overlapped export), the stepping thread, the gauge recorder and the video: a handful at
// once. Paths longer than a slot are not listed.
constexpr int kSlots = 32;
constexpr std::size_t kPathBytes = PATH_MAX;

struct Slot {
  std::atomic<std::uint32_t> sequence{0};  // odd while the owner writes the path; even otherwise
  std::atomic<bool> listed{false};         // claimed by an owner
  std::atomic<pid_t> writer{0};
  // Characters as relaxed atomics: the handler may read them while a new owner writes them, and the
  // sequence number tells it afterwards whether what it read is whole.
  std::array<std::atomic<char>, kPathBytes> path{};
};

static_assert(std::atomic<std::uint32_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free &&
                  std::atomic<pid_t>::is_always_lock_free && std::atomic<char>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

std::array<Slot, kSlots> slots;

}  // namespace

TemporaryFileInFlight::TemporaryFileInFlight(const std::filesystem::path& path, pid_t writer) {
  const std::string& text = path.native();
  if (text.size() >= kPathBytes) return;
  for (int k = 0; k < kSlots; ++k) {
    bool expected = false;
    if (!slots[k].listed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) continue;
    Slot& slot = slots[k];
    slot.sequence.fetch_add(1, std::memory_order_acq_rel);  // odd: being written
    for (std::size_t i = 0; i < text.size(); ++i) slot.path[i].store(text[i], std::memory_order_relaxed);
    slot.path[text.size()].store('\0', std::memory_order_relaxed);
    slot.writer.store(writer, std::memory_order_relaxed);
    slot.sequence.fetch_add(1, std::memory_order_release);  // even: whole
    slot_ = k;
    return;
  }
}

TemporaryFileInFlight::~TemporaryFileInFlight() {
  if (slot_ < 0) return;
  Slot& slot = slots[slot_];
  slot.sequence.fetch_add(1, std::memory_order_acq_rel);  // odd: a reader must not trust the path now
  slot.writer.store(0, std::memory_order_relaxed);
  slot.path[0].store('\0', std::memory_order_relaxed);
  slot.sequence.fetch_add(1, std::memory_order_release);
  slot.listed.store(false, std::memory_order_release);
}

void TemporaryFileInFlight::set_writer(pid_t writer) {
  if (slot_ >= 0) slots[slot_].writer.store(writer, std::memory_order_release);
}

int remove_temporary_files_in_flight() noexcept {
  int removed = 0;
  // Writers first, so that no ffmpeg writes its file again after the unlink below.
  for (Slot& slot : slots) {
    const pid_t writer = slot.writer.load(std::memory_order_acquire);
    if (writer > 0) kill(writer, SIGKILL);
  }
  for (Slot& slot : slots) {
    const std::uint32_t before = slot.sequence.load(std::memory_order_acquire);
    if (before % 2 != 0 || !slot.listed.load(std::memory_order_acquire)) continue;
    char path[kPathBytes];
    std::size_t i = 0;
    for (; i + 1 < kPathBytes; ++i) {
      path[i] = slot.path[i].load(std::memory_order_relaxed);
      if (path[i] == '\0') break;
    }
    path[i] = '\0';
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.sequence.load(std::memory_order_relaxed) != before || path[0] == '\0') continue;
    if (unlink(path) == 0) ++removed;
  }
  return removed;
}

int temporary_files_in_flight() {
  int count = 0;
  for (const Slot& slot : slots)
    if (slot.listed.load(std::memory_order_acquire) && slot.path[0].load(std::memory_order_relaxed) != '\0')
      ++count;
  return count;
}

}  // namespace surge
