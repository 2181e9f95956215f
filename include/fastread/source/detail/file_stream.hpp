#ifndef FASTREAD_SOURCE_DETAIL_FILE_STREAM_HPP
#define FASTREAD_SOURCE_DETAIL_FILE_STREAM_HPP

/// @file
/// The file layer's stream (detail/input_file.hpp): an opened input read front to back with
/// read(2), for the decoders that read a file once from its start (the image loads).

#include <cstddef>

#include "../../detail/input_file.hpp"
#include "../../result.hpp"
#include "../read_source.hpp"

namespace fastread::detail {

/// Hands `file`'s descriptor to a read_source of `chunk`-byte reads from the start: sized by
/// the fstat of open (no second fstat) when the file is sized(), else adopted (a pipe, a
/// /proc file; an fstat error then). `file.fd()` stays valid as long as the source lives.
inline result<read_source> stream_file(input_file& file,
                                       std::size_t chunk = read_source::default_chunk_size) {
    if (file.sized()) {
        return read_source(file.release(), file.path(), chunk, file.size());
    }
    return read_source::try_adopt(file.release(), file.path(), chunk);
}

} // namespace fastread::detail

#endif // FASTREAD_SOURCE_DETAIL_FILE_STREAM_HPP
