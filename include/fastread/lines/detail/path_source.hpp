#ifndef FASTREAD_LINES_DETAIL_PATH_SOURCE_HPP
#define FASTREAD_LINES_DETAIL_PATH_SOURCE_HPP

/// @file
/// The byte source of lines(path): the file layer's file_source behind a pointer, so that
/// lines.hpp declares it without file_source's headers (the compiled mode's translation
/// units see this class only; its members are in lines/detail/path.hpp).

#include <filesystem>
#include <memory>
#include <span>

#include "../../error.hpp"

namespace fastread::detail {

class file_source;

/// A file_source opened from a path (a reporting, named byte_source: next(), try_next(),
/// error(), path()); one call through a pointer per chunk.
class path_source {
  public:
    explicit path_source(file_source&& source);
    ///@{
    /// Moves the source; not copyable.
    path_source(path_source&&) noexcept;
    path_source& operator=(path_source&&) noexcept;
    ///@}
    ~path_source();

    /// The next chunk; empty at the end. @throws std::system_error naming the file on a
    /// read error, or if the file shrank below what was handed out.
    std::span<const char> next();
    /// As next(), without throwing: an error ends the input and is kept in error().
    std::span<const char> try_next() noexcept;
    /// The error that ended the input; no error otherwise.
    const fastread::error& error() const noexcept;
    /// The file's path, which error messages name.
    const std::filesystem::path& path() const noexcept;

  private:
    std::unique_ptr<file_source> file_;
};

} // namespace fastread::detail

#endif // FASTREAD_LINES_DETAIL_PATH_SOURCE_HPP
