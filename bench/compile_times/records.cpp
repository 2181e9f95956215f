// One call of fastread::read_at.
#include <fastread/records.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::uint64_t> at{0, 7, 3};
    std::vector<std::int32_t> out(at.size());
    fastread::read_at<std::int32_t>(argc > 1 ? argv[1] : "records.bin", at,
                                    std::span<std::int32_t>(out));
    std::printf("%d\n", out[0]);
}
