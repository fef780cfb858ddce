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
    // TOML allows no other control character either but tab and the line breaks, not even in strings
    // (they are written as escapes there) or comments; toml++ 3.3.0 asserts on some where a value's
    // digits must come (`1979-05-27T` then U+0014), so all are refused before it reads them.
    const auto byte = std::uint8_t(text_[at_]);
    if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F) {
      fail("a control character (U+" + hex(byte, 4) +
           "), which TOML does not allow (in a string, write it as the escape \\u" + hex(byte, 4) + ")");
    }
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
      // A line break inside a multi-line string is part of a value, not the start of a line of TOML.
      if (context_ == Context::code) {
        line_start_ = true;
        if (brackets_.empty()) value_ = false;  // a top-level value ends with its line
      }
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
    // A bare value (a number, a boolean, a date; or what is neither, which toml++ reports) runs to the next
    // blank, line break, ']', '}', ',' or '#'. toml++ reads all of it as one token, so inside it a quote
    // opens no string and a bracket opens nothing (`0{"µ` is one token to toml++ up to the µ).
    if (bare_value_) {
      const bool terminator = c.value == U' ' || c.value == U'\t' || c.value == U'\n' || c.value == U'\r' ||
                              c.value == U']' || c.value == U'}' || c.value == U',' || c.value == U'#';
      if (!terminator) {
        line_start_ = false;
        return advance(c);
      }
      bare_value_ = false;
    } else if (in_value() && header_ == Header::none && !is_structural(c.value)) {
      bare_value_ = true;
      line_start_ = false;
      element_expected_ = false;
      return advance(c);
    }
    // A quote opens a string only where a key or a value begins. Elsewhere toml++ is inside a bare value
    // (`0'µ`), which it reads on, asking its whitespace test about each character: a non-ASCII one after
    // such a quote is #295 again, so the quote is not taken for a string here and what follows is checked
    // as code. TOML never has a quote anywhere else, so no valid text is refused for it.
    bool opens_string = false;
    if (c.value == U'"' || c.value == U'\'') {
      const char before = at_ == 0 ? '\n' : text_[at_ - 1];
      opens_string = line_start_ || before == ' ' || before == '\t' || before == '=' || before == '[' ||
                     before == '{' || before == ',' || (before == '.' && !in_value());
    }
    // toml++ skips spaces and tabs after a header's '['; a '\r' there is not skipped.
    const bool blank = c.value == U' ' || c.value == U'\t';
    if (header_ != Header::none && in_table_header_opening(c, blank)) return advance(c);
    if (!blank && c.value != U'\n') {
      if (c.value == U'}' && element_expected_) {
        // toml++ 3.3.0 hands this '}' to its value parser, which asserts (assumes) it is no terminator.
        fail("expected a value or ']' in the array, got '}'");
      }
      // A comment, or the '\r' of a line break, leaves an array waiting for its next element.
      if (c.value != U'#' && c.value != U'\r') element_expected_ = false;
      if (c.value == U'[' && line_start_ && brackets_.empty()) {
        if (header_ == Header::none) header_ = Header::after_bracket;
      } else if (c.value == U'[' || c.value == U'{') {
        brackets_ += char(c.value);
        element_expected_ = c.value == U'[';
        if (c.value == U'{') value_ = false;  // an inline table begins with a key
      } else if ((c.value == U']' || c.value == U'}') && !brackets_.empty()) {
        brackets_.pop_back();
        value_ = true;  // the array or inline table was a value
      } else if (c.value == U',') {
        if (brackets_.ends_with('[')) element_expected_ = true;
        if (brackets_.ends_with('{')) value_ = false;
      } else if (c.value == U'=') {
        value_ = true;
      }
      line_start_ = false;
    }
    if (c.value == U'#') {
      context_ = Context::comment;
    } else if (c.value == U'"' && opens_string) {
      if (next_is("\"\"\"")) {
        open_multiline(Context::multiline_basic);
        return;
      }
      context_ = Context::basic_string;
    } else if (c.value == U'\'' && opens_string) {
      if (next_is("'''")) {
        open_multiline(Context::multiline_literal);
        return;
      }
      context_ = Context::literal_string;
    }
    advance(c);
  }

  // Between a table header's '[' (or '[[') and its name. toml++ 3.3.0 goes from there straight into its
  // key parser, which assumes the name starts with a key character (TOML_ASSERT_ASSUME in parse_key):
  // in a build without NDEBUG `[!x]` or a '[' alone on its line aborts on the assertion, and in a
  // release build with clang it is __builtin_assume of a false condition, undefined behaviour.
  // Returns true for a character that belongs to the opening (a blank, the second '['), false when the
  // name (or what toml++ reports itself) begins.
  bool in_table_header_opening(CodePoint c, bool blank) {
    if (blank) {
      if (header_ == Header::after_bracket) header_ = Header::after_blank;
      return true;
    }
    if (c.value == U'[' && header_ == Header::after_bracket) {
      header_ = Header::after_second_bracket;  // [[array.of.tables]]
      return true;
    }
    const Header state = header_;
    header_ = Header::none;
    const bool key_start = (c.value >= U'a' && c.value <= U'z') || (c.value >= U'A' && c.value <= U'Z') ||
                           (c.value >= U'0' && c.value <= U'9') || c.value == U'_' || c.value == U'-';
    // A quote starts a quoted name, and toml++ reports ']' (an empty name) and '[ [' itself; a third '['
    // goes to the key parser.
    const bool spaced_bracket = c.value == U'[' && state == Header::after_blank;
    if (key_start || c.value == U'"' || c.value == U'\'' || c.value == U']' || spaced_bracket) return false;
    // Appended piece by piece, as in describe() (GCC bug 105329).
    std::string seen;
    if (c.value == U'\n') {
      seen = "the end of the line";
    } else if (c.value > U' ' && c.value < 0x7F) {
      seen = "'";
      seen += char(c.value);
      seen += "'";
    } else {
      seen = "U+" + hex(c.value, 4);
    }
    std::string problem = "expected a table name after '";
    problem += state == Header::after_second_bracket ? "[[" : "[";
    problem += "', got ";
    problem += seen;
    problem += " (a name is a bare key of letters, digits, '_' and '-', or a quoted key)";
    fail(problem);
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
  // Where table headers can start: at the start of a line (blanks aside), outside any array or inline
  // table of a value. brackets_ holds the '[' and '{' of the values open here (a header's own brackets are
  // not values); element_expected_ is true where an array's next element or its ']' must come.
  bool line_start_ = true;
  std::string brackets_;
  bool element_expected_ = false;
  // Between a key's '=' and the end of its value; everything in an array is a value too.
  bool value_ = false;
  bool in_value() const { return value_ || brackets_.ends_with('['); }
  bool bare_value_ = false;  // inside a bare value's token
  // What begins no bare value where a value may begin: blanks and line breaks, strings, arrays and inline
  // tables, and what ends a value or stands between values.
  static bool is_structural(char32_t c) {
    for (const char s : std::string_view(" \t\n\r\"'[]{},#=")) {
      if (c == char32_t(s)) return true;
    }
    return false;
  }
  enum class Header { none, after_bracket, after_blank, after_second_bracket };
  Header header_ = Header::none;
};

}  // namespace

void check_scene_text(std::string_view text, const std::filesystem::path& file) {
  TextChecker(text, file).check();
}

}  // namespace surge
