// A solver's state as named sections of bytes, for checkpoints (sim/io/checkpoint.h): everything the next
// steps read, so that a run restored from it continues bit for bit as the uninterrupted one would.
//
// A solver lists its state once, in `template <typename Archive> void archive_state(Archive& a)`:
//   a.value("fluid.n", n);                          a trivially copyable value held on the host
//   a.buffer("fluid.position", position, n);       the first `count` entries of an executor buffer
//   a.constant("fluid.capacity", capacity);         a value the setup fixes: saved, and on loading compared
//                                                   (a checkpoint of another resolution is refused by it)
// StateSaver copies each into a section (the buffers through the executor: on the GPU a copy the ledger
// records as "checkpoint"); StateLoader reads them back in the same order, checking name, element size and
// count, so a checkpoint of another solver or build is refused by the section that differs. Counts are
// evaluated when each call is made, so a buffer's count may be a value loaded just before it.
// `Archive::kLoading` lets a solver redo what it derives from the state after a load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace surge {

struct StateSection {
  std::string name;
  std::uint32_t element_size = 0;
  std::uint64_t count = 0;
  std::vector<std::byte> bytes;  // element_size * count
};

struct SolverState {
  std::vector<StateSection> sections;
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const StateSection& section : sections) total += section.bytes.size();
    return total;
  }
};

// A checkpoint that does not fit the simulation it is loaded into (another solver, scene or build).
class StateMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename Exec>
class StateSaver {
 public:
  static constexpr bool kLoading = false;
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  StateSaver(Exec& exec, SolverState& out) : exec_(exec), out_(out) {}

  template <typename T>
  void value(std::string_view name, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "a state value is copied as bytes");
    StateSection& section = add(name, sizeof(T), 1);
    std::memcpy(section.bytes.data(), &value, sizeof(T));
  }
  template <typename T>
  void constant(std::string_view name, const T& value) {
    this->value(name, value);
  }
  template <typename T>
  void buffer(std::string_view name, const Buffer<T>& values, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "a state buffer is copied as bytes");
    std::vector<T> host;
    if (count > 0) exec_.download(host, values, count, "checkpoint");
    StateSection& section = add(name, sizeof(T), count);
    if (count > 0) std::memcpy(section.bytes.data(), host.data(), count * sizeof(T));
  }

 private:
  StateSection& add(std::string_view name, std::size_t element_size, std::size_t count) {
    StateSection& section = out_.sections.emplace_back();
    section.name = name;
    section.element_size = std::uint32_t(element_size);
    section.count = count;
    section.bytes.resize(element_size * count);
    return section;
  }

  Exec& exec_;
  SolverState& out_;
};

template <typename Exec>
class StateLoader {
 public:
  static constexpr bool kLoading = true;
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  StateLoader(Exec& exec, const SolverState& in) : exec_(exec), in_(in) {}

  template <typename T>
  void value(std::string_view name, T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "a state value is copied as bytes");
    const StateSection& section = next(name, sizeof(T), 1);
    std::memcpy(&value, section.bytes.data(), sizeof(T));
  }
  template <typename T>
  void constant(std::string_view name, const T& value) {
    T saved;
    this->value(name, saved);
    if (std::memcmp(&saved, &value, sizeof(T)) != 0) {
      throw StateMismatch("checkpoint's '" + std::string(name) +
                          "' differs from this simulation's: it was made from another setup");
    }
  }
  // Writes the first `count` entries of `values`, which keeps its allocation (pointers others hold stay).
  template <typename T>
  void buffer(std::string_view name, Buffer<T>& values, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "a state buffer is copied as bytes");
    const StateSection& section = next(name, sizeof(T), count);
    if (count > values.size()) {
      throw StateMismatch("checkpoint section '" + std::string(name) + "' holds " + std::to_string(count) +
                          " entries; this simulation has room for " + std::to_string(values.size()));
    }
    if (count == 0) return;
    std::vector<T> host(count);
    std::memcpy(host.data(), section.bytes.data(), count * sizeof(T));
    exec_.upload(values, host, values.size(), "checkpoint");
  }
  // Every section read: a longer checkpoint holds state this simulation would not restore.
  void finish() const {
    if (next_ != in_.sections.size()) {
      throw StateMismatch("checkpoint holds sections this simulation does not have, from '" +
                          in_.sections[next_].name + "' on");
    }
  }

 private:
  const StateSection& next(std::string_view name, std::size_t element_size, std::size_t count) {
    if (next_ >= in_.sections.size()) {
      throw StateMismatch("checkpoint ends before section '" + std::string(name) + "'");
    }
    const StateSection& section = in_.sections[next_++];
    if (section.name != name) {
      throw StateMismatch("checkpoint section '" + section.name + "' where this simulation expects '" +
                          std::string(name) + "'");
    }
    if (section.element_size != element_size || section.count != count ||
        section.bytes.size() != element_size * count) {
      throw StateMismatch("checkpoint section '" + section.name + "' holds " + std::to_string(section.count) +
                          " entries of " + std::to_string(section.element_size) +
                          " bytes; this simulation expects " + std::to_string(count) + " of " +
                          std::to_string(element_size));
    }
    return section;
  }

  Exec& exec_;
  const SolverState& in_;
  std::size_t next_ = 0;
};

}  // namespace surge
