// For scale: nlohmann/json (Debian nlohmann-json3-dev), a header-only library many C++
// projects include, parsing a small file and dumping it.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

int main(int argc, char** argv) {
    std::ifstream in(argc > 1 ? argv[1] : "config.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::printf("%s\n", doc.dump(2).c_str());
}
