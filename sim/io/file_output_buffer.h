// A stream buffer over a file descriptor that keeps the errno of its first failed write or close. An
// std::ofstream only sets failbit, and errno is whatever the calls after the failure left in it: a full
// disk read as "I/O error" or worse. Here the reason is taken the moment write(2) returns it.
#pragma once

#include <array>
#include <cstddef>
#include <streambuf>

namespace surge {

class FileOutputBuffer : public std::streambuf {
 public:
  explicit FileOutputBuffer(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  ~FileOutputBuffer() override;  // closes the file if close() did not
  FileOutputBuffer(const FileOutputBuffer&) = delete;
  FileOutputBuffer& operator=(const FileOutputBuffer&) = delete;

  // Writes what is buffered and closes the file; false (and error() set) when either failed.
  bool close();
  // errno of the first write or close that failed, or 0.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize count) override;
  int sync() override;

 private:
  bool drain();
  bool write_all(const char* data, std::size_t count);

  int fd_;
  int error_ = 0;
  std::array<char, std::size_t(1) << 16> buffer_{};
};

}  // namespace surge
