#pragma once
// staticnet: a network is a C++ type; its shapes, bytes and memory plan are computed by the
// compiler. See README.md for the tour and ARCHITECTURE.md for the design.
#include "staticnet/budget.hpp"
#include "staticnet/bytes.hpp"
#include "staticnet/device.hpp"
#include "staticnet/dtype.hpp"
#include "staticnet/fit.hpp"
#include "staticnet/layers.hpp"
#include "staticnet/lower.hpp"
#include "staticnet/plan.hpp"
#include "staticnet/register.hpp"
#include "staticnet/setup.hpp"
#include "staticnet/shape.hpp"
