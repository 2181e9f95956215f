// detail::source_ref (the decoders' erased source) and the chunk_cursor that reads through
// it: what each kind of source can do reaches the cursor at run time, as its type says.

#include <fastread/detail/chunk_cursor.hpp>
#include <fastread/detail/source_ref.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "test_util.hpp"

using fastread::memory_source;
using fastread::read_source;
using fastread::detail::chunk_cursor;
using fastread::detail::decoder_cursor;
using fastread::detail::source_ref;
using fastread_test::chunked_source;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

/// A source that counts its calls and knows its size, without read_into.
class sized_chunks {
  public:
    explicit sized_chunks(const std::string& bytes) : bytes_(bytes) {}
    std::span<const char> next() {
        ++calls;
        std::span<const char> chunk(bytes_.data() + at_,
                                    std::min<std::size_t>(3, bytes_.size() - at_));
        at_ += chunk.size();
        return chunk;
    }
    std::optional<std::uint64_t> size_hint() const noexcept { return bytes_.size(); }
    int calls = 0;

  private:
    std::string bytes_;
    std::size_t at_ = 0;
};

std::string read_all(decoder_cursor& cur, std::size_t step) {
    std::string out;
    std::string piece(step, '\0');
    for (;;) {
        const std::size_t got = cur.read(piece.data(), step);
        out.append(piece.data(), got);
        if (got < step) {
            return out;
        }
    }
}

} // namespace

TEST_CASE("source_ref reports what its source can do", "[source]") {
    const std::string text = "P3 2 1 255 1 2 3 4 5 6\n";
    memory_source memory({text.data(), text.size()});
    const source_ref m(memory);
    CHECK(m.contiguous());
    CHECK(m.whole().data() == text.data());
    CHECK(m.whole().size() == text.size());
    CHECK_FALSE(m.reads_into());
    CHECK_FALSE(m.size_hint().has_value());

    temp_dir dir;
    write_file(dir / "t", text);
    read_source file(dir / "t");
    source_ref r(file);
    CHECK_FALSE(r.contiguous());
    CHECK(r.reads_into());
    CHECK(r.size_hint() == std::optional<std::uint64_t>(text.size()));

    chunked_source chunks(text, 4);
    source_ref c(chunks);
    CHECK_FALSE(c.contiguous());
    CHECK_FALSE(c.reads_into());
    CHECK_FALSE(c.size_hint().has_value());
    CHECK(std::string(c.next().data(), 4) == "P3 2");

    sized_chunks sized(text);
    const source_ref s(sized);
    CHECK(s.size_hint() == std::optional<std::uint64_t>(text.size()));
    CHECK_FALSE(s.reads_into());
}

TEST_CASE("a cursor over a source_ref reads as over the source itself", "[source]") {
    const std::string text = "0123456789abcdefghijklmnopqrstuvwxyz";
    temp_dir dir;
    write_file(dir / "t", text);

    SECTION("contiguous: the remaining bytes are known exactly") {
        memory_source memory({text.data(), text.size()});
        decoder_cursor cur{source_ref(memory)};
        CHECK(cur.contiguous());
        CHECK(cur.known_remaining() == std::optional<std::uint64_t>(text.size()));
        CHECK(cur.peek() == '0');
        cur.pos += 10;
        CHECK(cur.offset() == 10);
        CHECK(cur.known_remaining() == std::optional<std::uint64_t>(text.size() - 10));
        CHECK(read_all(cur, 7) == text.substr(10));
    }
    SECTION("read_into: the rest comes straight from the source, sized by fstat") {
        read_source file(dir / "t", 8);
        decoder_cursor cur{source_ref(file)};
        CHECK_FALSE(cur.contiguous());
        CHECK(cur.known_remaining() == std::optional<std::uint64_t>(text.size()));
        CHECK(cur.peek() == '0');
        cur.pos += 3;
        CHECK(read_all(cur, 11) == text.substr(3));
        CHECK(cur.offset() == text.size());
        CHECK(file.consumed() == text.size());
    }
    SECTION("chunks only: read copies chunk by chunk") {
        sized_chunks sized(text);
        decoder_cursor cur{source_ref(sized)};
        CHECK_FALSE(cur.contiguous());
        CHECK(cur.known_remaining() == std::optional<std::uint64_t>(text.size()));
        CHECK(read_all(cur, 5) == text);
        CHECK(sized.calls == 13); // 12 chunks of 3 bytes, then the empty one
        CHECK(cur.peek() == -1);
        CHECK(cur.known_remaining() == std::optional<std::uint64_t>(0));
    }
    SECTION("a copied cursor reads on from where it was copied") {
        chunked_source chunks(text, 5);
        decoder_cursor cur{source_ref(chunks)};
        CHECK(cur.peek() == '0');
        decoder_cursor copy = cur;
        ++copy.pos;
        CHECK(copy.peek() == '1');
        CHECK(read_all(copy, 4) == text.substr(1));
    }
}
