#ifndef FASTREAD_RECORDS_DETAIL_RECORD_TYPES_HPP
#define FASTREAD_RECORDS_DETAIL_RECORD_TYPES_HPP

// How read_at and update_at find the record type: from the output range's element type, or
// from the parameter of the update function.

#include <iterator>
#include <type_traits>
#include <utility>

namespace fastread {

namespace detail {

// The record type of a range read_at writes into: what std::data points to.
template <class R>
using range_record_t = std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>;

// A contiguous range of writable, trivially copyable records (std::vector<T>&,
// std::span<T>, std::array<T, N>&, T[N]).
template <class R>
concept record_output = requires(R& r) {
    std::data(r);
    std::size(r);
}
&&!std::is_const_v<range_record_t<R>> && std::is_trivially_copyable_v<range_record_t<R>>;

// The record type of an update function that takes one record (by value or by const
// reference) and is not a template: a lambda without `auto`, a function, a function pointer.
template <class F>
struct signature_of {};
template <class R, class A>
struct signature_of<R (*)(A)> {
    using type = std::remove_cvref_t<A>;
    using result = R;
};
template <class R, class A>
struct signature_of<R (*)(A) noexcept> : signature_of<R (*)(A)> {};
template <class R, class A>
struct signature_of<R(A)> : signature_of<R (*)(A)> {};
template <class R, class A>
struct signature_of<R(A) noexcept> : signature_of<R (*)(A)> {};
template <class C, class R, class A>
struct signature_of<R (C::*)(A)> : signature_of<R (*)(A)> {};
template <class C, class R, class A>
struct signature_of<R (C::*)(A) const> : signature_of<R (*)(A)> {};
template <class C, class R, class A>
struct signature_of<R (C::*)(A) noexcept> : signature_of<R (*)(A)> {};
template <class C, class R, class A>
struct signature_of<R (C::*)(A) const noexcept> : signature_of<R (*)(A)> {};

template <class F>
struct update_signature : signature_of<F> {};
template <class F>
requires requires {
    &F::operator();
}
struct update_signature<F> : signature_of<decltype(&F::operator())> {};

template <class F>
concept deducible_update = requires {
    typename update_signature<std::remove_cvref_t<F>>::type;
}
&&std::is_trivially_copyable_v<typename update_signature<std::remove_cvref_t<F>>::type>&&
    std::is_convertible_v<typename update_signature<std::remove_cvref_t<F>>::result,
                          typename update_signature<std::remove_cvref_t<F>>::type>;

template <class F>
using update_record_t = typename update_signature<std::remove_cvref_t<F>>::type;

} // namespace detail

} // namespace fastread

#endif // FASTREAD_RECORDS_DETAIL_RECORD_TYPES_HPP
