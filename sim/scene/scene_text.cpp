#include "sim/scene/scene_text.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "sim/scene/scene.h"

namespace surge {
namespace {

struct CodePoint {
  char32_t value = 0;
  std::size_t bytes = 0;
};

// One UTF-8 sequence as RFC 3629 allows it (no overlong forms, no surrogates, nothing above U+10FFFF).
std::optional<CodePoint> decode(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return std::uint8_t(text[at + k]); };
  const std::uint8_t lead = byte(0);
  if (lead < 0x80) return CodePoint{lead, 1};
  std::size_t length = 0;
  std::uint8_t low = 0x80, high = 0xBF;  // the range of the second byte
  char32_t value = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    value = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    value = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    value = lead & 0x07;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return std::nullopt;
  }
  if (at + length > text.size()) return std::nullopt;
  for (std::size_t k = 1; k < length; ++k) {
    const std::uint8_t next = byte(k);
    if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF)) return std::nullopt;
    value = (value << 6) | (next & 0x3F);
  }
  return CodePoint{value, length};
}

std::string hex(char32_t value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "%0*X", digits, unsigned(value));
  return text;
}

// "'µ' (U+00B5)"; spaces, joiners and marks that would print as nothing get the code alone.
std::string describe(std::string_view text, std::size_t at, CodePoint c) {
  const bool invisible = c.value < 0xA1 || (c.value >= 0x2000 && c.value <= 0x206F) || c.value == 0x3000 ||
                         c.value == 0xFEFF || (c.value >= 0x0300 && c.value <= 0x036F);
  const std::string code = "U+" + hex(c.value, 4);
  if (invisible) return code;
  // Appended piece by piece: `"'" + std::string(...)` trips GCC 12's false -Wrestrict (GCC bug 105329).
  std::string quoted = "'";
  quoted += text.substr(at, c.bytes);
  quoted += "' (";
  quoted += code;
  quoted += ')';
  return quoted;
}

enum class Context { code, comment, basic_string, literal_string, multiline_basic, multiline_literal };

class TextChecker {
 public:
  TextChecker(std::string_view text, const std::filesystem::path& file) : text_(text), file_(file) {}

  void check() {
    // toml++ skips a byte-order mark at the start, as editors on Windows write one.
    if (text_.starts_with("\xEF\xBB\xBF")) at_ = 3;
    while (at_ < text_.size()) step();
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw SceneError::at_position(file_, line_, column_, problem);
  }

  // The code point at the cursor; refuses what toml++ must not see at all.
  CodePoint peek() const {
    if (text_[at_] == '\0')
      fail("a NUL byte, which TOML does not allow anywhere (is this a binary file, or UTF-16?)");
    const std::optional<CodePoint> c = decode(text_, at_);
    if (!c) {
      fail("invalid UTF-8 (byte 0x" + hex(std::uint8_t(text_[at_]), 2) +
           "): a scene file must be UTF-8 text (re-save it as UTF-8)");
    }
    return *c;
  }
  void advance(CodePoint c) {
    at_ += c.bytes;
    if (c.value == U'\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }
  bool next_is(std::string_view what) const { return text_.substr(at_).starts_with(what); }
  // Consumes a run of `quote` characters and returns its length.
  std::size_t quote_run(char quote) {
    std::size_t run = 0;
    while (at_ < text_.size() && text_[at_] == quote) {
      advance({char32_t(quote), 1});
      ++run;
    }
    return run;
  }

  void step() {
    const CodePoint c = peek();
    switch (context_) {
      case Context::code:
        return in_code(c);
      case Context::comment:
        if (c.value == U'\n') context_ = Context::code;
        return advance(c);
      case Context::basic_string:
      case Context::literal_string:
        return in_single_line_string(c);
      case Context::multiline_basic:
        return in_multiline_basic(c);
      case Context::multiline_literal:
        // The closing ''' may have up to two more quotes before it, which belong to the string.
        if (c.value == U'\'') {
          if (quote_run('\'') >= 3) context_ = Context::code;
          return;
        }
        return advance(c);
    }
  }

  void in_code(CodePoint c) {
    if (c.value >= 0x80) {
      fail("unexpected character " + describe(text_, at_, c) +
           ": outside quoted strings and comments TOML allows ASCII only (keys are letters, digits, '_' "
           "and '-'; a unit belongs in a comment, after '#')");
    }
    if (c.value == U'#') {
      context_ = Context::comment;
    } else if (c.value == U'"') {
      if (next_is("\"\"\"")) {
        open_multiline(Context::multiline_basic);
        return;
      }
      context_ = Context::basic_string;
    } else if (c.value == U'\'') {
      if (next_is("'''")) {
        open_multiline(Context::multiline_literal);
        return;
      }
      context_ = Context::literal_string;
    }
    advance(c);
  }

  // Exactly three quotes open the string: quotes after them are its text, and a run of three or more
  // closes it (six quotes in a row are the empty string).
  void open_multiline(Context context) {
    for (int k = 0; k < 3; ++k) advance({char32_t(text_[at_]), 1});
    context_ = context;
  }

  void in_single_line_string(CodePoint c) {
    const bool basic = context_ == Context::basic_string;
    if (c.value == U'\n' || c.value == (basic ? U'"' : U'\'')) {
      // Closed, or unterminated at the end of the line (toml++ reports that one).
      context_ = Context::code;
    } else if (basic && c.value == U'\\') {
      advance(c);
      if (at_ < text_.size()) advance(peek());  // the escaped character, whatever it is
      return;
    }
    advance(c);
  }

  void in_multiline_basic(CodePoint c) {
    if (c.value == U'"') {
      if (quote_run('"') >= 3) context_ = Context::code;
      return;
    }
    if (c.value != U'\\') return advance(c);
    advance(c);
    if (at_ >= text_.size()) return;
    const CodePoint escaped = peek();
    if (escaped.value >= 0x80) {
      fail("a backslash before " + describe(text_, at_, escaped) +
           " in a multi-line string: escapes are ASCII (\\n, \\t, \\uXXXX), and toml++ 3.3.0 misreads "
           "this one (marzer/tomlplusplus#295)");
    }
    const auto is_space = [](char32_t v) { return v == U' ' || v == U'\t' || v == U'\r' || v == U'\n'; };
    if (!is_space(escaped.value)) return advance(escaped);  // \n, \", \\, \uXXXX...: ASCII from here
    // A line-ending backslash: the string goes on at the next character that is not white space.
    while (at_ < text_.size() && is_space(peek().value)) advance(peek());
    if (at_ >= text_.size()) return;
    const CodePoint first = peek();
    if (first.value >= 0x80) {
      fail(describe(text_, at_, first) +
           " first after a line-ending backslash in a multi-line string: toml++ 3.3.0 misreads this "
           "(marzer/tomlplusplus#190); begin the continued text with an ASCII character or a \\u escape");
    }
  }

  std::string_view text_;
  const std::filesystem::path& file_;
  std::size_t at_ = 0;
  int line_ = 1;
  int column_ = 1;
  Context context_ = Context::code;
};

}  // namespace

void check_scene_text(std::string_view text, const std::filesystem::path& file) {
  TextChecker(text, file).check();
}

}  // namespace surge
