#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SAMPLE_VECTOR_HPP)
#define FASTREAD_SAMPLE_VECTOR_HPP

/// @file
/// `sample_vector<T>`: a `std::vector` whose `resize()` leaves new elements uninitialised, so
/// a raster is written once (by `read(2)` or a parser) instead of twice.

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace fastread {

/// An allocator that default-initialises instead of value-initialising, so that
/// `std::vector<T, uninitialized_allocator<T>>::resize(n)` does not zero-fill trivial `T`.
/// Every other construction (copies, `push_back`, `resize(n, value)`) behaves as usual.
template <class T, class Base = std::allocator<T>>
class uninitialized_allocator : public Base {
    using base_traits = std::allocator_traits<Base>;

  public:
    /// The same allocator for elements of type `U` (std::allocator_traits::rebind_alloc).
    template <class U>
    struct rebind {
        /// uninitialized_allocator over `Base` rebound to `U`.
        using other = uninitialized_allocator<U, typename base_traits::template rebind_alloc<U>>;
    };

    using Base::Base;
    uninitialized_allocator() = default;
    /// Converts from the allocator of another element type (copies the base allocator).
    template <class U, class B>
    uninitialized_allocator(const uninitialized_allocator<U, B>& other) noexcept
        : Base(static_cast<const B&>(other)) {}

    /// Default-initialises: leaves a trivial `U` uninitialised.
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    /// Constructs `U` from `args` at `p`, as the base allocator does.
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        base_traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
    }
};

/// The sample buffer of an image: `resize()` does not zero-fill. fastread writes every
/// element it exposes; a caller who resizes one must write the new elements before reading.
template <class T>
using sample_vector = std::vector<T, uninitialized_allocator<T>>;

} // namespace fastread

#endif // FASTREAD_SAMPLE_VECTOR_HPP
