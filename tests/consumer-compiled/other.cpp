// A second translation unit of the compiled-mode consumer: loads with its own options.
#include <fastread/pnm.hpp>

#include <algorithm>
#include <filesystem>

unsigned widest_sample(const std::filesystem::path& path) {
    fastread::load_options options;
    options.threads = 1;
    const auto img = fastread::pnm::load(path, options);
    return *std::max_element(img.samples.begin(), img.samples.end());
}
