// Values from input (trace fields, file names, options) as they may appear in a line printed on
// a terminal, or in markup.
#pragma once

#include <string>
#include <string_view>

namespace schedlab {

// `text` with every byte that a terminal would act on written as an escape: control characters
// (C0, DEL, and the C1 range U+0080..U+009F) and bytes that are not part of valid UTF-8 become
// \n, \r, \t or \xNN (two lowercase hex digits per byte); everything else, valid UTF-8 included,
// is unchanged. The result is one line and starts no escape sequence; applying it again changes
// nothing.
std::string printable_text(std::string_view text);

// `text` as character data or an attribute value of HTML, SVG or XML 1.0 (the report's pages and
// charts, check's JUnit report): & < > " ' as the entities &amp; &lt; &gt; &quot; &#39;, and
// every other byte as printable_text has it, except tab, newline and carriage return, which
// markup allows and which stay as they are.
std::string markup_escape(std::string_view text);

}  // namespace schedlab
