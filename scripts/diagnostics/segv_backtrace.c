/* LD_PRELOAD helper for a machine without gdb: on SIGSEGV, SIGBUS or SIGABRT, prints the native stack
 * (per frame: the library and the offset from its load address, for `addr2line -f -C -e LIBRARY OFFSET`)
 * to stderr, then dies of the same signal. Start Python without -X faulthandler: its handler runs first and
 * re-raises, which loses the faulting frames. Build: cc -shared -fPIC -o segv_backtrace.so segv_backtrace.c
 * Use:   LD_PRELOAD=$PWD/segv_backtrace.so python3 -c '...' (scripts/device-session.sh does). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void print_stack(int signal_number) {
  static const char head[] = "\n== native stack at signal ";
  void* frames[64];
  const int depth = backtrace(frames, 64);
  char digits[4] = {(char)('0' + signal_number / 10), (char)('0' + signal_number % 10), '\n', 0};
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, digits, 3);
  for (int k = 0; k < depth; ++k) {
    Dl_info info;
    char line[512];
    int length;
    if (dladdr(frames[k], &info) && info.dli_fname) {
      length = snprintf(line, sizeof line, "  #%d %s +0x%lx %s\n", k, info.dli_fname,
                        (unsigned long)((char*)frames[k] - (char*)info.dli_fbase), info.dli_sname ? info.dli_sname : "");
    } else {
      length = snprintf(line, sizeof line, "  #%d %p\n", k, frames[k]);
    }
    if (length > 0) (void)!write(2, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

__attribute__((constructor)) static void install(void) {
  void* warm[1];
  backtrace(warm, 1); /* loads libgcc's unwinder now, not inside the handler */
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = print_stack;
  action.sa_flags = SA_ONSTACK;
  sigaction(SIGSEGV, &action, 0);
  sigaction(SIGBUS, &action, 0);
  sigaction(SIGABRT, &action, 0);
}
