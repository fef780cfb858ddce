#include "app/interrupts.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>

#include "sim/io/temporary_files.h"

namespace surge::app {
namespace {

std::atomic<int> requested{0};
const char* notice_prefix = "surge";
static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch lock-free atomics");

// write(2) and strlen only: the handler may run in the middle of any allocation or lock.
void say(const char* text) {
  const std::size_t length = std::strlen(text);
  const ssize_t ignored = ::write(STDERR_FILENO, text, length);
  (void)ignored;
}

// An integer as text, without the allocating or locale-reading formatters.
std::array<char, 16> decimal(int value) {
  std::array<char, 16> text{};
  char reversed[16];
  int length = 0;
  unsigned magnitude = value < 0 ? 0u : unsigned(value);
  do {
    reversed[length++] = char('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude > 0 && length < 15);
  for (int k = 0; k < length; ++k) text[k] = reversed[length - 1 - k];
  return text;
}

void on_signal(int signal_number) {
  int expected = 0;
  if (requested.compare_exchange_strong(expected, signal_number)) {
    say("\n");
    say(notice_prefix);
    say(signal_number == SIGINT ? ": interrupted (SIGINT)" : ": terminated (SIGTERM)");
    say(": finishing the step and the frames in flight (Ctrl-C again stops at once)\n");
    return;
  }
  // The second signal: no destructor or flush runs after this, so only what the list names is cleaned.
  const int removed = remove_temporary_files_in_flight();
  say(notice_prefix);
  say(": stopped at once; the frames written before are complete; removed ");
  say(decimal(removed).data());
  say(removed == 1 ? " temporary file in flight\n" : " temporary files in flight\n");
  ::_exit(128 + signal_number);
}

void set_handler(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  // Blocking the other signal while one handler runs keeps a SIGINT and a SIGTERM at the same moment
  // from both taking the "first" branch.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

void install_interrupt_handlers(const char* program) {
  notice_prefix = program;
  requested.store(0);
  set_handler(on_signal);
}

void remove_interrupt_handlers() {
  set_handler(SIG_DFL);
}

int interrupt_signal() {
  return requested.load(std::memory_order_acquire);
}

const char* signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace surge::app
