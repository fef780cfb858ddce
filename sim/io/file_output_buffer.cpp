#include "sim/io/file_output_buffer.h"

#include <unistd.h>

#include <cerrno>

namespace surge {

FileOutputBuffer::~FileOutputBuffer() {
  if (fd_ >= 0) ::close(fd_);
}

bool FileOutputBuffer::close() {
  if (fd_ < 0) return error_ == 0;
  const bool flushed = drain();
  const int fd = fd_;
  fd_ = -1;
  // Some file systems (NFS) report a full disk as late as close().
  if (::close(fd) != 0 && error_ == 0) error_ = errno;
  return flushed && error_ == 0;
}

FileOutputBuffer::int_type FileOutputBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

std::streamsize FileOutputBuffer::xsputn(const char* data, std::streamsize count) {
  // Large blocks (the particle arrays) go straight to the file rather than through the buffer.
  if (count < std::streamsize(buffer_.size())) return std::streambuf::xsputn(data, count);
  if (!drain() || !write_all(data, std::size_t(count))) return 0;
  return count;
}

int FileOutputBuffer::sync() {
  return drain() ? 0 : -1;
}

bool FileOutputBuffer::drain() {
  const std::size_t pending = std::size_t(pptr() - pbase());
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return write_all(buffer_.data(), pending);
}

bool FileOutputBuffer::write_all(const char* data, std::size_t count) {
  if (error_ != 0 || fd_ < 0) return count == 0 && error_ == 0;
  while (count > 0) {
    const ssize_t written = ::write(fd_, data, count);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = written < 0 ? errno : EIO;
      return false;
    }
    data += written;
    count -= std::size_t(written);
  }
  return true;
}

}  // namespace surge
