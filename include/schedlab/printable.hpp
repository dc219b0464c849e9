// Values from input (trace fields, file names, options) as they may appear in a line printed on
// a terminal.
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

}  // namespace schedlab
