#include <fastread/sample_vector.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

TEST_CASE("sample_vector behaves as a vector and keeps explicit values", "[sample_vector]") {
    fastread::sample_vector<std::uint16_t> v;
    v.resize(3); // new elements are not zeroed: write before reading
    v[0] = 1;
    v[1] = 2;
    v[2] = 3;
    v.push_back(4);
    v.resize(6, 9); // an explicit fill value is honoured
    CHECK(std::vector<std::uint16_t>(v.begin(), v.end()) ==
          std::vector<std::uint16_t>{1, 2, 3, 4, 9, 9});
    fastread::sample_vector<std::uint16_t> copy = v;
    CHECK(copy == v);
    fastread::sample_vector<std::uint16_t> filled(4, 7);
    CHECK(std::vector<std::uint16_t>(filled.begin(), filled.end()) ==
          std::vector<std::uint16_t>{7, 7, 7, 7});
}
