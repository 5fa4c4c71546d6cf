#pragma once
// A fixed-capacity vector usable in constant expressions: the plan's buffer list has a size
// known only after planning, but a capacity known from the layer count.
//
// Constant evaluation charges every call, and std::array's operator[] is several (g++ counts
// about 44 operations for it, clang 5 steps), so the storage is a built-in array, public, and the
// planner's hot loops bind a reference to it (`const auto& buffers = list.items;`) and subscript
// that. g++ also allocates trees for every expression it evaluates, and frees them only between
// declarations, so the way an element is reached shows in the compiler's peak memory: reading
// an element of a built-in array costs it about 60-90 bytes, through a pointer (`p[i]`) 150-300,
// through std::array's operator[] about 800; a write, about 190 against 420 through a pointer.
#include <cstddef>

namespace staticnet {

template <class T, std::size_t Capacity>
struct StaticVector {
  T items[Capacity]{};
  std::size_t count = 0;

  constexpr std::size_t size() const { return count; }
  constexpr bool empty() const { return count == 0; }
  static constexpr std::size_t capacity() { return Capacity; }
  constexpr T& operator[](std::size_t i) { return items[i]; }
  constexpr const T& operator[](std::size_t i) const { return items[i]; }
  constexpr T* begin() { return items; }
  constexpr T* end() { return items + count; }
  constexpr const T* begin() const { return items; }
  constexpr const T* end() const { return items + count; }
  constexpr T& back() { return items[count - 1]; }
  constexpr std::size_t push_back(const T& t) {
    items[count] = t;
    return count++;
  }
  constexpr void insert(std::size_t at, const T& t) {
    T* const p = items;
    for (std::size_t i = count; i > at; --i)
      p[i] = p[i - 1];
    p[at] = t;
    ++count;
  }
  constexpr void erase(std::size_t at) {
    T* const p = items;
    for (std::size_t i = at; i + 1 < count; ++i)
      p[i] = p[i + 1];
    --count;
  }
};

}  // namespace staticnet
