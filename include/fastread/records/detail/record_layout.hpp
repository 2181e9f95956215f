#ifndef FASTREAD_RECORDS_DETAIL_RECORD_LAYOUT_HPP
#define FASTREAD_RECORDS_DETAIL_RECORD_LAYOUT_HPP

// What read_at and update_at's strategies know of a record: its size in bytes, and for
// updates a function that changes one record in place (and how update_at reports a failed
// batch, report_update). The strategies are templates over the size's kind, not over the
// record type: header-only code instantiates them once per record size known at compile
// time (static_record, every copy of a record a fixed-size memcpy), and fastread::compiled
// once for a size given at run time (dynamic_record), so that the path forms can be
// declared for any T and defined once in src/.

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

#include "../../error.hpp"

namespace fastread::detail {

/// A record of N bytes, N known at compile time.
template <std::size_t N>
struct static_record {
    static constexpr std::size_t size() noexcept { return N; }
    /// Room for one record, on the stack.
    struct scratch {
        explicit scratch(static_record) noexcept {}
        unsigned char* data() noexcept { return bytes.data(); }
        std::array<unsigned char, N> bytes;
    };
};

/// A record whose size (bytes, at least 1) is known at run time.
struct dynamic_record {
    std::size_t bytes;
    std::size_t size() const noexcept { return bytes; }
    /// Room for one record, on the heap (once per batch).
    struct scratch {
        explicit scratch(dynamic_record r) : bytes(new unsigned char[r.bytes]) {}
        unsigned char* data() noexcept { return bytes.get(); }
        std::unique_ptr<unsigned char[]> bytes;
    };
};

/// update_at's fn over the bytes of one record, by reference (fn must outlive this object):
/// `(*this)(record)` copies the record (`size` bytes) into a T, calls fn with it and copies
/// the T fn returns back over the record. If fn throws, the record is as it was. One
/// indirect call per record; the strategies are then compiled once per record size, not
/// once per fn (a test file of twenty lambdas compiled twenty copies of each).
class record_update {
  public:
    /// fn, a callable taking a T lvalue and returning a T (or something convertible).
    template <class T, class F>
    static record_update of(F& fn) noexcept {
        static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");
        record_update u;
        if constexpr (std::is_function_v<F>) { // a function, passed by reference
            u.fn_.function = reinterpret_cast<void (*)()>(&fn);
            u.call_ = [](target f, unsigned char* record) {
                T value;
                std::memcpy(&value, record, sizeof(T));
                const T updated = reinterpret_cast<F*>(f.function)(value);
                std::memcpy(record, &updated, sizeof(T));
            };
        } else {
            u.fn_.object = const_cast<void*>(static_cast<const void*>(std::addressof(fn)));
            u.call_ = [](target f, unsigned char* record) {
                T value;
                std::memcpy(&value, record, sizeof(T));
                const T updated = (*static_cast<F*>(f.object))(value);
                std::memcpy(record, &updated, sizeof(T));
            };
        }
        return u;
    }

    /// Updates the record at `record` in place.
    void operator()(unsigned char* record) const { call_(fn_, record); }
    void operator()(char* record) const { call_(fn_, reinterpret_cast<unsigned char*>(record)); }

  private:
    union target {
        void* object;
        void (*function)();
    };
    record_update() = default;
    target fn_{};
    void (*call_)(target, unsigned char*) = nullptr;
};

/// Updates the record at `record` in place with `fn`, keeping its old bytes in `before`
/// (room for one record of `layout`): true if the bytes changed. If fn throws, the record
/// is unchanged.
template <class Layout>
bool update_record(const Layout& layout, const record_update& fn, char* record,
                   unsigned char* before) {
    std::memcpy(before, record, layout.size());
    fn(record);
    return std::memcmp(before, record, layout.size()) != 0;
}

/// Throws an update batch's failure as update_at does, or returns if there was none: the
/// caller's mistakes (fastread's category: a bad setting, an index out of range) as
/// themselves, the system's failures (opening the file included) as update_error with
/// applied().
inline void report_update(const update_failure& f) {
    if (!f) {
        return;
    }
    if (f.err.code().category() == error_category()) {
        throw_error(f.err);
    }
    throw_update_failure(f);
}

} // namespace fastread::detail

#endif // FASTREAD_RECORDS_DETAIL_RECORD_LAYOUT_HPP
