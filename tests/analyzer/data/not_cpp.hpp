// Not staticnet's error: the compiler's own message must pass through unchanged.
#include <staticnet/staticnet.hpp>

int broken = undeclared_name_in_this_header;
