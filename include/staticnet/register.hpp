#pragma once
// STATICNET_MODEL(name, Model, Setup): names a model and its setup for `staticnet analyze`.
//
//   using Net = sn::Sequential<...>;
//   using NetTraining = sn::Training<...>;
//   STATICNET_MODEL(net, Net, NetTraining);        // at namespace scope, after the types
//
// A header may register several (each name once per namespace). In an ordinary build the line
// checks that both are a staticnet model and setup and costs nothing else: no plan is computed
// and nothing is emitted. Only the analyzer's probe, which defines STATICNET_ANALYZE before it
// includes the header, turns each line into an entry whose plan it reports (see
// analysis/probe.hpp). Templates with several arguments contain commas, which a macro would
// split: give the types an alias first, as above.
//
// The line's `;` may be left out: each expansion is a whole declaration, ending in its own `;`,
// and the one written after it is an empty declaration, which C++11 allows at namespace scope and
// no warning flags (a header that ends in the line without it used to break the next
// declaration of whatever file included it, in a file the user never wrote).

#if defined(STATICNET_ANALYZE)
#include "staticnet/analysis/probe.hpp"
#define STATICNET_MODEL(name, model_type, setup_type)                                   \
  [[maybe_unused]] inline const bool staticnet_registered_##name =                      \
      ::staticnet::analysis::register_model<model_type, setup_type>(#name, #model_type, \
                                                                    #setup_type);
#else
#define STATICNET_MODEL(name, model_type, setup_type)                             \
  static_assert(::staticnet::Model<model_type> && ::staticnet::Setup<setup_type>, \
                "STATICNET_MODEL(" #name ", " #model_type ", " #setup_type        \
                "): needs a "                                                     \
                "staticnet model type and a setup (sn::Training<...> or sn::Inference<...>)");
#endif
