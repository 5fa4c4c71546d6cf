#include <ostream>

#include <staticnet/print.hpp>

#include "mlp.hpp"

void report(std::ostream& out) {
  sn::print_footprint(out, plan.footprint);
  out << "required on my board " << (plan.footprint.total() + my_board.overhead).count << " of "
      << my_board.memory.count << " bytes\n";
}
