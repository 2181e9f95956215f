#ifndef FASTREAD_EXAMPLES_TOOL_MAIN_HPP
#define FASTREAD_EXAMPLES_TOOL_MAIN_HPP

// The entry point of fastread's command-line tools, which get their arguments as UTF-8
// strings on every system (tool_main, defined by each tool). On Windows the narrow argv of
// main is in the ANSI code page, which cannot hold every file name, so the tools start at
// wmain there and convert each wide argument (fastread::detail::string_of); elsewhere argv
// is passed on as it is. File names go back to paths through fastread::detail::path_of.
// The tools read bytes: on Windows standard input is switched to binary mode first, so that
// stdio does not turn CR LF into LF or stop at a Ctrl-Z (standard output stays in text
// mode: the tools print text, in the system's line ends).

#include <filesystem>
#include <string>
#include <vector>

#include <fastread/detail/posix.hpp>
#include <fastread/duplicates/detail/dir.hpp>

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

int tool_main(const std::vector<std::string>& args);

#if defined(_WIN32)
int wmain(int argc, wchar_t* argv[]) {
    (void)::_setmode(0, _O_BINARY);
    std::vector<std::string> args;
    args.reserve(static_cast<std::size_t>(argc));
    for (int i = 0; i < argc; ++i) {
        args.push_back(fastread::detail::string_of(std::filesystem::path(argv[i])));
    }
    return tool_main(args);
}
#else
int main(int argc, char* argv[]) {
    return tool_main(std::vector<std::string>(argv, argv + argc));
}
#endif

#endif
