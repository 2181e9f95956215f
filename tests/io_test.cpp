// How entry points reach a file (fastread/io.hpp): FASTREAD_IO, and the default of every
// options struct's io field, which it sets.

#include <fastread/files_equal.hpp>
#include <fastread/io.hpp>
#include <fastread/lines.hpp>
#include <fastread/numbers.hpp>
#include <fastread/pnm/options.hpp>
#include <fastread/records.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "test_util.hpp"

using fastread::io_mode;

namespace {

// Sets FASTREAD_IO for the scope (unset when `value` is null), then restores it.
class scoped_io_env {
  public:
    explicit scoped_io_env(const char* value) {
        if (const char* old = std::getenv("FASTREAD_IO")) {
            old_ = old;
        }
        set(value);
    }
    ~scoped_io_env() { set(old_ ? old_->c_str() : nullptr); }
    scoped_io_env(const scoped_io_env&) = delete;
    scoped_io_env& operator=(const scoped_io_env&) = delete;

  private:
    static void set(const char* value) { fastread_test::set_environment("FASTREAD_IO", value); }
    std::optional<std::string> old_;
};

} // namespace

TEST_CASE("FASTREAD_IO takes read or map, and anything else is an error naming it", "[io]") {
    CHECK(fastread::parse_io_mode("read") == io_mode::read);
    CHECK(fastread::parse_io_mode("map") == io_mode::map);
    CHECK_THROWS_WITH(fastread::parse_io_mode("mmap"), "FASTREAD_IO=mmap: expected read or map");
    CHECK_THROWS_WITH(fastread::parse_io_mode("auto"), "FASTREAD_IO=auto: expected read or map");
    CHECK_THROWS_AS(fastread::parse_io_mode("READ"), std::invalid_argument);
    CHECK(fastread::to_string(io_mode::read) == "read");
    CHECK(fastread::to_string(io_mode::map) == "map");
    {
        scoped_io_env env(nullptr);
        CHECK(fastread::io_mode_from_environment() == std::nullopt);
    }
    {
        scoped_io_env env("");
        CHECK(fastread::io_mode_from_environment() == std::nullopt);
    }
    {
        scoped_io_env env("map");
        CHECK(fastread::io_mode_from_environment() == io_mode::map);
    }
    {
        scoped_io_env env("sometimes");
        CHECK_THROWS_AS(fastread::io_mode_from_environment(), std::invalid_argument);
    }
}

TEST_CASE("Options are plain values: their io defers to FASTREAD_IO, read inside the call",
          "[io]") {
    for (const char* value : {static_cast<const char*>(nullptr), "map", "bogus"}) {
        scoped_io_env env(value);
        // Making options reads no environment variable and never throws.
        CHECK(fastread::line_options{}.io == io_mode::process_setting);
        CHECK(fastread::load_options{}.io == io_mode::process_setting);
        CHECK(fastread::compare_options{}.io == io_mode::process_setting);
        CHECK(fastread::record_options{}.io == io_mode::process_setting);
        CHECK(fastread::number_options{}.io == io_mode::process_setting);
    }
    CHECK(fastread::to_string(io_mode::process_setting) == "process setting");
    auto settled_io = [](io_mode asked) {
        fastread::line_options o;
        o.io = asked;
        const fastread::result<fastread::line_options> r = fastread::detail::settle_call(o);
        REQUIRE(r);
        return r->io;
    };
    {
        scoped_io_env env(nullptr);
        CHECK(settled_io(io_mode::process_setting) == io_mode::read);
    }
    {
        scoped_io_env env("");
        CHECK(settled_io(io_mode::process_setting) == io_mode::read);
    }
    {
        scoped_io_env env("map");
        CHECK(settled_io(io_mode::process_setting) == io_mode::map);
        // What the caller writes wins over the environment.
        CHECK(settled_io(io_mode::read) == io_mode::read);
    }
    {
        scoped_io_env env("read");
        CHECK(settled_io(io_mode::process_setting) == io_mode::read);
        CHECK(settled_io(io_mode::map) == io_mode::map);
    }
    {
        scoped_io_env env("mmap");
        fastread::line_options o;
        const fastread::result<fastread::line_options> r = fastread::detail::settle_call(o);
        REQUIRE(!r);
        CHECK(r.error().code() == fastread::errc::invalid_argument);
        CHECK(r.error().message() == "FASTREAD_IO=mmap: expected read or map");
        // A call whose options do not defer to FASTREAD_IO does not read it.
        o.io = io_mode::read;
        CHECK(fastread::detail::settle_call(o));
    }
}
