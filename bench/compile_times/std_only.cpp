// What the standard headers every fastread job needs cost alone.
#include <filesystem>
#include <span>
#include <string>
#include <system_error>
#include <vector>

int main() {
    return std::filesystem::path("a").string().size() > 1;
}
