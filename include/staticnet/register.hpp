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
// The line ends in `;`, as written above. The files staticnet writes around a header (the
// analyzer's probe, staticnet_model()'s generator) also take a header whose last line leaves it
// out: they end that line with a `;` of their own. The macro does not supply one, since an empty
// declaration after the user's `;` would warn under clang's -Wextra-semi.

#if defined(STATICNET_ANALYZE)
#include "staticnet/analysis/probe.hpp"
#define STATICNET_MODEL(name, model_type, setup_type)                                   \
  [[maybe_unused]] inline const bool staticnet_registered_##name =                      \
      ::staticnet::analysis::register_model<model_type, setup_type>(#name, #model_type, \
                                                                    #setup_type)
#else
#define STATICNET_MODEL(name, model_type, setup_type)                             \
  static_assert(::staticnet::Model<model_type> && ::staticnet::Setup<setup_type>, \
                "STATICNET_MODEL(" #name ", " #model_type ", " #setup_type        \
                "): needs a "                                                     \
                "staticnet model type and a setup (sn::Training<...> or sn::Inference<...>)")
#endif
