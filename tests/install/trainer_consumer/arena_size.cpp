// An embedded-style program: it includes only the generated iris_model.h (plain constants) and
// sizes a static buffer for the whole training step from it.
#include <cstdio>

#include "iris_model.h"

alignas(iris::arena_alignment) static unsigned char arena[iris::arena_bytes];

int main() {
  std::printf("iris arena %lld bytes, parameters at %lld, %lld parameters\n",
              static_cast<long long>(sizeof arena), static_cast<long long>(iris::parameters.offset),
              static_cast<long long>(iris::parameter_count));
  return 0;
}
