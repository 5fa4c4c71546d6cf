#pragma once
// Writing a firmware's report line into a buffer, with no C library.

namespace firmware_text {

// `text` at `at`; returns the end.
inline char* append(char* at, const char* text) {
  while (*text)
    *at++ = *text++;
  return at;
}

// " -123" at `at`; returns the end.
inline char* append_number(char* at, long long value) {
  *at++ = ' ';
  if (value < 0) {
    *at++ = '-';
    value = -value;
  }
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  while (n > 0)
    *at++ = digits[--n];
  return at;
}

}  // namespace firmware_text
