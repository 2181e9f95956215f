#ifndef FASTREAD_ERROR_HPP
#define FASTREAD_ERROR_HPP

/// @file
/// The exception fastread throws for malformed input. Operating-system failures are reported
/// as `std::system_error` (errno, operation and path in the message); invalid arguments from
/// the caller as `std::invalid_argument` or `std::out_of_range`.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fastread {

/// Thrown when input bytes do not follow the format being parsed.
///
/// `what()` reads `<file>: byte <offset>: <reason>`, or `byte <offset>: <reason>` when the
/// input has no file name, e.g. `image.ppm: byte 17: maxval 0 is out of range 1..65535`.
class parse_error : public std::runtime_error {
  public:
    /// @param offset byte offset in the input (from the first byte the source delivered) at
    ///               which the problem was found.
    /// @param reason what was expected or found, without the file name or offset.
    /// @param file   the input's file name, or empty when there is none (memory, pipes).
    parse_error(std::uint64_t offset, const std::string& reason, const std::string& file = {})
        : std::runtime_error((file.empty() ? std::string() : file + ": ") + "byte " +
                             std::to_string(offset) + ": " + reason),
          offset_(offset), reason_(reason), file_(file) {}

    /// Byte offset in the input at which the problem was found.
    std::uint64_t offset() const noexcept { return offset_; }
    /// The reason alone, without file name and offset.
    const std::string& reason() const noexcept { return reason_; }
    /// The input's file name; empty when the input had none.
    const std::string& file() const noexcept { return file_; }

  private:
    std::uint64_t offset_ = 0;
    std::string reason_;
    std::string file_;
};

} // namespace fastread

#endif // FASTREAD_ERROR_HPP
