// The byte check in front of toml++ (sim/scene/scene_text.h): the inputs toml++ 3.3.0 mishandles are
// refused with file, line and column, and what TOML allows (non-ASCII in strings and comments, a BOM)
// passes. The reproducers are the ones the reliability issue lists: `spacing = 0.01 µm`, a key `tïny = 1`,
// and a 2-byte file, '[' then NUL.
#include "sim/scene/scene_text.h"

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/scene/scene.h"

namespace surge {
namespace {

// The SceneError check_scene_text throws for `text`, as "LINE:COLUMN: message", or "" when it passes.
std::string rejection(const std::string& text) {
  try {
    check_scene_text(text, "t.toml");
  } catch (const SceneError& error) {
    const std::string prefix =
        "t.toml:" + std::to_string(error.line()) + ":" + std::to_string(error.column()) + ": ";
    EXPECT_EQ(std::string(error.what()).rfind(prefix, 0), 0u) << error.what();
    EXPECT_EQ(error.key(), "");
    return std::to_string(error.line()) + ":" + std::to_string(error.column()) + ": " +
           std::string(error.what()).substr(prefix.size());
  }
  return "";
}

testing::AssertionResult starts_with(const std::string& text, const std::string& start) {
  if (text.rfind(start, 0) == 0) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << text << "' does not start with '" << start << "'";
}

TEST(SceneText, TheIssuesReproducersAreRefusedWithLineAndColumn) {
  EXPECT_TRUE(starts_with(rejection("[resolution]\nspacing = 0.01 µm\n"),
                          "2:16: unexpected character 'µ' (U+00B5): outside quoted strings and comments"));
  EXPECT_TRUE(starts_with(rejection("name = \"x\"\ntïny = 1\n"), "2:2: unexpected character 'ï' (U+00EF)"));
  EXPECT_TRUE(starts_with(rejection(std::string("[\0", 2)), "1:2: a NUL byte"));
}

TEST(SceneText, NulAndInvalidUtf8AreRefusedWherever) {
  EXPECT_TRUE(starts_with(rejection(std::string("# a comment \0\n", 14)), "1:13: a NUL byte"));
  EXPECT_TRUE(starts_with(rejection(std::string("name = \"a\0b\"\n", 13)), "1:10: a NUL byte"));
  EXPECT_TRUE(starts_with(rejection("name = \"\xFF\"\n"), "1:9: invalid UTF-8 (byte 0xFF)"));
  EXPECT_TRUE(starts_with(rejection("# caf\xC3\n"), "1:6: invalid UTF-8 (byte 0xC3)")) << "a cut sequence";
  EXPECT_TRUE(starts_with(rejection("# \xC0\xAF\n"), "1:3: invalid UTF-8 (byte 0xC0)")) << "an overlong '/'";
  EXPECT_TRUE(starts_with(rejection("# \xED\xA0\x80\n"), "1:3: invalid UTF-8 (byte 0xED)")) << "a surrogate";
  EXPECT_TRUE(starts_with(rejection("# \xF4\x90\x80\x80\n"), "1:3: invalid UTF-8")) << "above U+10FFFF";
  // Control characters other than tab and the line breaks: toml++ 3.3.0 asserts on U+0014 where a time's
  // digits must come (scripts/fuzz.sh's fourth finding, cut down), and TOML allows none anywhere.
  EXPECT_TRUE(starts_with(rejection("s = 1979-05-27T\x14"
                                    "5:32:00\n"),
                          "1:16: a control character (U+0014), which TOML does not allow"));
  EXPECT_TRUE(starts_with(rejection("# bell \x07\n"), "1:8: a control character (U+0007)"));
  EXPECT_TRUE(starts_with(rejection("s = \"\x1B[0m\"\n"), "1:6: a control character (U+001B)"));
  EXPECT_TRUE(starts_with(rejection("s = '\x7F'\n"), "1:6: a control character (U+007F)"));
  EXPECT_TRUE(starts_with(rejection("s = '''\x0C'''\n"), "1:8: a control character (U+000C)"));
  EXPECT_EQ(rejection("s = \"\\u001B\"\t# tab\r\n"), "") << "the escape, a tab and CRLF are TOML";
  // UTF-16, as some Windows editors save it, is NUL bytes between the characters.
  EXPECT_TRUE(starts_with(rejection(std::string("n\0a\0", 4)), "1:2: a NUL byte"));
}

TEST(SceneText, NonAsciiOutsideStringsIsRefusedInEveryPlaceWhitespaceMayStand) {
  for (const std::string text :
       {"µ = 1", "a = 1 µ", "aµ = 1", "a.µ = 1", "[µ]", "[a µ]", "[[aµ]]", "a = [1, µ]", "a = {b = 1, µ}",
        "a = 1\nµ", "a = \"\"\"\"\"\" µ", "a = '''''' µ", "a = \"\"\"x\"\"\"\" µ", "a = \"\\\"\" µ",
        "a = 'x' µ", "a = 1 # c\nµ = 2",
        "\xC2\xA0"
        "a = 1" /* a no-break space */}) {
    EXPECT_TRUE(rejection(text).find("unexpected character") != std::string::npos) << text;
  }
  EXPECT_TRUE(starts_with(rejection("\xE2\x80\x8B"
                                    "a = 1"),
                          "1:1: unexpected character U+200B"))
      << "zero width";
}

TEST(SceneText, MultilineStringBackslashesBeforeNonAsciiAreRefused) {
  // toml++ asks its broken whitespace test about these characters (marzer/tomlplusplus#190).
  EXPECT_TRUE(starts_with(rejection("s = \"\"\"\\\n§\"\"\"\n"),
                          "2:1: '§' (U+00A7) first after a line-ending backslash in a multi-line string"));
  EXPECT_TRUE(starts_with(rejection("s = \"\"\"\\  \n\n   é\"\"\"\n"), "3:4: 'é' (U+00E9) first after"));
  EXPECT_TRUE(starts_with(rejection("s = \"\"\"a\\é\"\"\"\n"), "1:10: a backslash before 'é' (U+00E9)"));
}

TEST(SceneText, WhatTomlAllowsPasses) {
  for (const std::string text :
       {"name = \"tëst\"", "name = 'tëst'", "s = \"\"\"\nµ\n\"\"\"", "s = '''µ'''",
        "# µ, ï, 水\nname = \"a\"", "a = 1 # 0.01 µm", "\"tïny\" = 1", "'tïny' = 1", "s = \"\\u00B5\"",
        "s = \"\\é\"" /* toml++ reports the bad escape itself */, "s = \"\"\"a \"\" b\"\"\"",
        "s = \"\"\"\\\n a\"\"\"", "\xEF\xBB\xBFname = \"bom\"", "", "\n\n", "a = \"unterminated\nb = 1"}) {
    EXPECT_EQ(rejection(text), "") << text;
  }
}

TEST(SceneText, ColumnsCountCharactersNotBytes) {
  EXPECT_TRUE(starts_with(rejection("name = \"ïïï\" é"), "1:14: unexpected character 'é'"));
}

TEST(SceneText, ParseSceneRunsTheCheckAndReportsSyntaxErrorsWithAColumn) {
  try {
    parse_scene("[domain]\nmin = [0, 0, 0] µ\n", "t.toml");
    FAIL() << "no SceneError";
  } catch (const SceneError& error) {
    EXPECT_TRUE(starts_with(error.what(), "t.toml:2:17: unexpected character 'µ'")) << error.what();
  }
  try {
    parse_scene("[domain\nmin = [0, 0, 0]\n", "t.toml");
    FAIL() << "no SceneError";
  } catch (const SceneError& error) {
    // toml++'s own description after file:line:column, and no "key ''".
    EXPECT_TRUE(starts_with(error.what(), "t.toml:1:8: Error while parsing table header")) << error.what();
    EXPECT_EQ(std::string(error.what()).find("key ''"), std::string::npos) << error.what();
    EXPECT_EQ(error.line(), 1);
    EXPECT_EQ(error.column(), 8);
  }
}

std::string utf8(char32_t c) {
  std::string s;
  const auto continuation = [&](int shift) { s += char(0x80 | ((c >> shift) & 0x3F)); };
  if (c < 0x800) {
    s += char(0xC0 | (c >> 6));
  } else if (c < 0x10000) {
    s += char(0xE0 | (c >> 12));
    continuation(6);
  } else {
    s += char(0xF0 | (c >> 18));
    continuation(12);
    continuation(6);
  }
  continuation(0);
  return s;
}

// Every code point in the three ranges where toml++ 3.3.0's whitespace test is unreachable code, in every
// context: refused wherever toml++ would ask that test about it, passed in strings and comments. (Run
// under UBSan, toml++ reports "execution reached an unreachable program point" on the first refused text
// when the check is left out, and nothing on the texts the check passes.)
TEST(SceneText, EveryHazardousCodePointIsRefusedWhereTomlPlusPlusWouldMisreadIt) {
  const std::vector<std::string> hazardous = {"X",
                                              "a = 1 X",
                                              "a = 1X",
                                              "aX = 1",
                                              "[X]",
                                              "[[aX]]",
                                              "a = [1, X]",
                                              "a = {b=X}",
                                              "a = \"\"\"\\\nX\"\"\"",
                                              "a = \"\"\"\\\n \n X\"\"\"",
                                              "a = \"\"\"\\X\"\"\"",
                                              "a = tX"};
  const std::vector<std::string> allowed = {
      "a = \"X\"", "a = 'X'",    "a = \"\"\"X\"\"\"",   "a = '''X'''",     "# X",
      "a = 1 # X", "\"aX\" = 1", "a = \"\"\"\nX\"\"\"", "a = '''\\\nX'''", "a = \"\\X\""};
  int checked = 0;
  for (const auto& [first, last] :
       {std::pair<char32_t, char32_t>{0xA1, 0x499}, {0x2D4E, 0x3147}, {0xFBC6, 0xFEFE}}) {
    for (char32_t c = first; c <= last; ++c) {
      if (c == 0x3000 || c == 0xFEFF) continue;  // whitespace to toml++, and refused outside strings anyway
      const std::string cp = utf8(c);
      const auto with = [&](const std::string& context) {
        std::string text;
        for (const char ch : context) text += ch == 'X' ? cp : std::string(1, ch);
        return text;
      };
      for (const std::string& context : hazardous) ASSERT_NE(rejection(with(context)), "") << with(context);
      for (const std::string& context : allowed) ASSERT_EQ(rejection(with(context)), "") << with(context);
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000);
}

// toml++ 3.3.0 reads a table header's name with a parser that assumes it starts with a key character
// (an assertion in builds without NDEBUG, __builtin_assume with clang). The first reproducer is the one
// scripts/fuzz.sh found in its first seconds: a mutation of scenes/plummer.toml's "[[nbody.system]]".
TEST(SceneText, ATableHeaderThatDoesNotOpenWithANameIsRefused) {
  EXPECT_TRUE(starts_with(rejection("name = \"p\"\n\n[![nbody.system]]\n"),
                          "3:2: expected a table name after '[', got '!' (a name is a bare key"));
  EXPECT_TRUE(starts_with(rejection("[\n"), "1:2: expected a table name after '[', got the end of the line"));
  EXPECT_TRUE(starts_with(rejection("[[ #"), "1:4: expected a table name after '[[', got '#'"));
  EXPECT_TRUE(starts_with(rejection("[[[a]]]"), "1:3: expected a table name after '[[', got '['"));
  EXPECT_TRUE(starts_with(rejection("[\r\n"), "1:2: expected a table name after '[', got U+000D"));
  EXPECT_TRUE(starts_with(rejection("a = 1\n  [\t=]"), "2:5: expected a table name after '[', got '='"));
  EXPECT_TRUE(starts_with(rejection("a = 1 # [\n[.b]"), "2:2: expected a table name after '[', got '.'"));
  EXPECT_TRUE(starts_with(rejection("a = [\n]\n[{}]"), "3:2: expected a table name after '[', got '{'"))
      << "after an array that spans lines";
  try {
    parse_scene("[domain]\n[+x]\n", "t.toml");
    FAIL() << "no SceneError";
  } catch (const SceneError& error) {
    EXPECT_TRUE(starts_with(error.what(), "t.toml:2:2: expected a table name after '[', got '+'"))
        << error.what();
  }
}

// toml++ 3.3.0 hands whatever stands where an array's element must come to its value parser, which asserts
// (assumes) it is not a terminator; after '[' or ',' it skips blanks, line breaks and comments and checks
// for ']' only, so a '}' there trips it. The first reproducer is scripts/fuzz.sh's second finding, cut
// down.
TEST(SceneText, ACurlyBracketWhereAnArrayElementMustComeIsRefused) {
  EXPECT_TRUE(
      starts_with(rejection("s = [[[}}}[[essure\n"), "1:8: expected a value or ']' in the array, got '}'"));
  EXPECT_TRUE(starts_with(rejection("a = [}"), "1:6: expected a value or ']' in the array"));
  EXPECT_TRUE(starts_with(rejection("a = [1, }"), "1:9: expected a value or ']' in the array"));
  EXPECT_TRUE(starts_with(rejection("a = [\n  # c\r\n  }"), "3:3: expected a value or ']' in the array"));
  EXPECT_TRUE(starts_with(rejection("a = {b = [{}, }"), "1:15: expected a value or ']' in the array"));
}

// A quote inside a bare value (`0'`) starts no string for toml++, which reads the value on and asks its
// broken whitespace test (#295) about each character after it; the check reads such text as code, so
// non-ASCII there is refused. The first reproducer is scripts/fuzz.sh's third finding (UBSan:
// "execution reached an unreachable program point" in toml++'s unicode_autogenerated.h).
TEST(SceneText, AQuoteInsideABareValueOpensNoStringForTheCheck) {
  EXPECT_TRUE(starts_with(rejection("0b10s = [0'D\xC2\xB5[[[[[["), "1:13: unexpected character 'µ'"));
  EXPECT_TRUE(starts_with(rejection("x = 1.'µ'"), "1:8: unexpected character 'µ'"));
  EXPECT_TRUE(starts_with(rejection("x = true\"µ\""), "1:10: unexpected character 'µ'"));
  EXPECT_TRUE(starts_with(rejection("x = {a = 1'µ'}"), "1:12: unexpected character 'µ'"));
  // Nor does a bracket: scripts/fuzz.sh's fifth finding, the same UB behind `0{`.
  EXPECT_TRUE(starts_with(rejection("max = [0{{{{{{{\"\xEF\xBB\x94rti(y"), "1:17: unexpected character"));
  EXPECT_TRUE(starts_with(rejection("a = 0[\"µ\"]"), "1:8: unexpected character 'µ'"));
  // Where keys and values begin, quotes open strings, and non-ASCII inside them is TOML.
  for (const std::string text :
       {"a.\"µ\".'µ' = 1", "[a.\"µ\"]", "a = {\"µ\"='µ', 'é'.y = \"µ\"}", "a = [\"µ\",'µ']", "\"µ\"=\"µ\"",
        "a = [\n'µ'\n]", "a = {b = 1,'µ' = 2}", "a = [1,{b = \"µ\"}, 2.5e-3,'µ']",
        "a = 1979-05-27T07:32:00Z # µ", "a = -inf\n\"µ\" = true"}) {
    EXPECT_EQ(rejection(text), "") << text;
    EXPECT_NO_THROW(toml::parse(text)) << text;
  }
}

// What the bracket checks must let through: every header TOML allows, and the brackets of values, which
// may stand first on a line inside an array, and inline tables in arrays. Each text is valid TOML (toml++
// parses it), so a refusal here would be the check's mistake.
TEST(SceneText, HeadersArraysAndInlineTablesTomlAllowsPassTheBracketChecks) {
  for (const std::string text : {"[a]",
                                 "[ a ]",
                                 "[\ta.b]",
                                 "[[a]]",
                                 "[[ a ]]",
                                 "[\"q\"]",
                                 "['q']",
                                 "[ \"a b\" . c ]",
                                 "[_]",
                                 "[-]",
                                 "[0]",
                                 "a = [\n[{b = 1}],\n]",
                                 "a = [\n[[1]],\n[-1], [+1],\n]",
                                 "a = [ # c\n  [ 'x' ]\n]",
                                 "s = \"\"\"\n[!\n\"\"\"",
                                 "s = '''\n[\n'''",
                                 "# [!\n[a]",
                                 "a = [\"]\"]\n[b]",
                                 "a = {b = [1, {c = [2]}]}\n[d]",
                                 "\xEF\xBB\xBF[a]",
                                 "a = 1\r\n[b]",
                                 "a = [{}]",
                                 "a = [ {b = 1}, {} ]",
                                 "a = [\n{},\n]",
                                 "a = [[], [{}], [ # }\n]]",
                                 "a = {b = [1], c = {}}"}) {
    EXPECT_EQ(rejection(text), "") << text;
    EXPECT_NO_THROW(toml::parse(text)) << text;
  }
}

}  // namespace
}  // namespace surge
