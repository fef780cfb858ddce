// Runs the real `surge` binary as a user would, in a given working directory, with stdout and stderr
// captured through files (so neither is a terminal, as in CI, and a chatty child cannot block on a pipe).
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace surge::testing_support {

struct SurgeResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A `surge` started and not yet waited for. `own_group`: the child leads a process group of its own, so
// a test can signal the group as a terminal's Ctrl-C does (kill(-pid, SIGINT)). `data_limit_bytes` > 0:
// the child runs under that RLIMIT_DATA (ulimit -d), as on a machine with that much memory.
struct SurgeChild {
  pid_t pid = -1;
  std::filesystem::path out_file, err_file;
};

inline SurgeChild start_surge(const std::filesystem::path& working_directory,
                              const std::vector<std::string>& args, bool own_group = false,
                              long data_limit_bytes = 0) {
  SurgeChild child{-1, working_directory / ".stdout", working_directory / ".stderr"};
  std::vector<std::string> argv_storage = {SURGE_BINARY};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  child.pid = fork();
  if (child.pid == 0) {
    if (own_group) setpgid(0, 0);
    if (data_limit_bytes > 0) {
      const rlimit limit{rlim_t(data_limit_bytes), rlim_t(data_limit_bytes)};
      if (setrlimit(RLIMIT_DATA, &limit) != 0) _exit(125);
    }
    const int out = open(child.out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(child.err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || chdir(working_directory.c_str()) != 0) _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // Set from both sides, so the group exists whichever of parent and child runs first.
  if (own_group && child.pid > 0) setpgid(child.pid, child.pid);
  return child;
}

// Waits for the child; a child still running after `timeout_s` is killed (SIGKILL) and reported with
// exit code 128 + 9 and timed_out set.
struct SurgeWait {
  int exit_code = -1;
  bool timed_out = false;
};

inline SurgeWait wait_surge(const SurgeChild& child, double timeout_s = 1e9) {
  SurgeWait wait;
  if (child.pid <= 0) return wait;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const pid_t done = waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid) break;
    if (done < 0) return wait;
    if (std::chrono::steady_clock::now() > deadline) {
      wait.timed_out = true;
      kill(child.pid, SIGKILL);
      waitpid(child.pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  wait.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return wait;
}

inline SurgeResult collect_surge(const SurgeChild& child, const SurgeWait& wait) {
  SurgeResult result;
  result.exit_code = wait.exit_code;
  result.out = read_text_file(child.out_file);
  result.err = read_text_file(child.err_file);
  std::filesystem::remove(child.out_file);
  std::filesystem::remove(child.err_file);
  return result;
}

inline SurgeResult run_surge(const std::filesystem::path& working_directory,
                             const std::vector<std::string>& args, long data_limit_bytes = 0) {
  const SurgeChild child = start_surge(working_directory, args, false, data_limit_bytes);
  return collect_surge(child, wait_surge(child));
}

}  // namespace surge::testing_support
