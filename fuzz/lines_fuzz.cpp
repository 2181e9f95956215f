// fastread::lines on untrusted bytes with options from the input's first byte, through
// chunks of a size that also comes from it. With keep_delimiter the lines put back together
// are the input; without, the same lines come back stripped of their delimiter (and of a
// CR before a LF when strip_cr is set).

#include <fastread/lines.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = fastread_fuzz::split(data, size);
    fastread::line_options kept;
    kept.delimiter = (in.param & 1) != 0 ? '\n' : static_cast<char>(in.param & 0xF0);
    kept.keep_delimiter = true;
    kept.strip_cr = false;
    const std::size_t chunk = 1 + (in.param >> 1);

    std::vector<std::string> whole_lines;
    {
        fastread::memory_source m(in.data);
        std::string joined;
        for (std::string_view line : fastread::lines(m, kept)) {
            whole_lines.emplace_back(line);
            joined += line;
        }
        fastread_fuzz::check(joined == std::string_view(in.data.data(), in.data.size()),
                             "kept lines concatenate to the input");
    }

    fastread::line_options stripped = kept;
    stripped.keep_delimiter = false;
    stripped.strip_cr = (in.param & 2) != 0;
    stripped.max_line_length = (in.param & 4) != 0 ? 16 : 0;
    fastread_fuzz::chunked_source source(in.data, chunk);
    std::size_t i = 0;
    try {
        for (std::string_view line : fastread::lines(source, stripped)) {
            fastread_fuzz::check(i < whole_lines.size(), "no more lines than with delimiters");
            std::string_view want = whole_lines[i++];
            if (!want.empty() && want.back() == stripped.delimiter) {
                want.remove_suffix(1);
                if (stripped.strip_cr && stripped.delimiter == '\n' && !want.empty() &&
                    want.back() == '\r') {
                    want.remove_suffix(1);
                }
            }
            fastread_fuzz::check(line == want, "stripped line matches the kept one");
            fastread_fuzz::check(stripped.max_line_length == 0 ||
                                     line.size() <= stripped.max_line_length,
                                 "no line longer than max_line_length");
        }
        fastread_fuzz::check(i == whole_lines.size(), "as many lines with and without delimiters");
    } catch (const fastread::parse_error& e) {
        fastread_fuzz::check(stripped.max_line_length != 0, "only too-long lines are errors");
        fastread_fuzz::check(e.offset() <= in.data.size(), "error offset inside the input");
    }
    return 0;
}
