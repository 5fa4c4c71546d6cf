// The search Checkpoint<Auto> is built on (checkpoint_search.hpp), checked against exhaustive
// search: for random segment costs (arbitrary ones, and ones shaped like a chain's), over a
// range of budgets, it finds the least recomputation any cut set fitting the budget has, with
// the lowest peak among those; its answer's cut set has the numbers it reports; the
// recomputation never grows as the budget grows; and a budget nothing fits gets no answer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <staticnet/checkpoint_search.hpp>

#include "test_support.hpp"

namespace sn = staticnet;
using sn::testing::Rng;

namespace {

constexpr std::size_t most_units = 12;

// Each function of a segment i..j a table, filled at random.
struct TableCosts {
  std::int64_t n = 0;
  std::int64_t local_[most_units][most_units]{};
  std::int64_t kept_[most_units][most_units]{};
  std::int64_t recompute_[most_units][most_units]{};
  std::int64_t tail_[most_units]{};
  std::int64_t floor_[most_units][most_units]{};  // local_floor: 0, or what chain_costs knows
  constexpr std::int64_t units() const { return n; }
  constexpr std::int64_t local(std::int64_t i, std::int64_t j) const { return local_[i][j]; }
  constexpr std::int64_t kept(std::int64_t i, std::int64_t j) const { return kept_[i][j]; }
  constexpr std::int64_t recompute(std::int64_t i, std::int64_t j) const {
    return recompute_[i][j];
  }
  constexpr std::int64_t tail(std::int64_t i) const { return tail_[i]; }
  constexpr std::int64_t local_floor(std::int64_t i, std::int64_t j) const { return floor_[i][j]; }
};

// Arbitrary non-negative costs below `most` (10 or so makes many ties, which the order among
// equally cheap answers must settle): the search must be exact for any.
TableCosts arbitrary_costs(Rng& rng, std::int64_t n, std::int64_t most = 100) {
  TableCosts c;
  c.n = n;
  for (std::int64_t i = 0; i < n; ++i) {
    c.tail_[i] = rng.in(0, most);
    for (std::int64_t j = i; j < n; ++j) {
      c.local_[i][j] = rng.in(0, most);
      c.kept_[i][j] = rng.in(0, most / 3);
      c.recompute_[i][j] = rng.in(0, most / 2);
    }
  }
  return c;
}

// Costs shaped as a chain's: unit u keeps a tensor of out[u] bytes at its end and saves save[u]
// for its backward; a checkpointed segment recomputes all its units' forward but the last's and
// holds, at its busiest, what its units save; the tail holds all it saves.
TableCosts chain_costs(Rng& rng, std::int64_t n) {
  std::int64_t out[most_units], save[most_units], flops[most_units];
  for (std::int64_t u = 0; u < n; ++u) {
    out[u] = rng.in(1, 8) * 256;
    save[u] = out[u] + rng.in(0, 4) * 256;
    flops[u] = rng.in(1, 100);
  }
  TableCosts c;
  c.n = n;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t saved = 0;
    for (std::int64_t j = i; j < n; ++j)
      saved += save[j];
    c.tail_[i] = saved;
    saved = 0;
    std::int64_t recompute = 0;
    for (std::int64_t j = i; j < n; ++j) {
      saved += save[j];
      c.local_[i][j] = saved + out[j];  // and the gradient arriving at its end
      c.floor_[i][j] = saved;           // grows with j: the search stops there
      c.kept_[i][j] = out[j];
      c.recompute_[i][j] = recompute;  // units i..j-1
      recompute += flops[j];
    }
  }
  return c;
}

struct Evaluated {
  std::int64_t recompute = 0, peak = 0;
};

// The model's numbers for one cut set (bit u: a cut after unit u), as checkpoint_search.hpp
// states them, written out directly.
Evaluated evaluate(const TableCosts& c, std::uint64_t cuts) {
  Evaluated e;
  std::int64_t kept = 0, start = 0;
  for (std::int64_t u = 0; u + 1 < c.n; ++u) {
    if (((cuts >> u) & 1) == 0)
      continue;
    e.peak = std::max(e.peak, kept + c.local(start, u));
    e.recompute += c.recompute(start, u);
    kept += c.kept(start, u);
    start = u + 1;
  }
  e.peak = std::max(e.peak, kept + c.tail(start));
  return e;
}

// Exhaustive search: the least recomputation within the budget, then the lowest peak.
bool exhaustive(const TableCosts& c, std::int64_t budget, Evaluated& best) {
  bool found = false;
  for (std::uint64_t cuts = 0; cuts < (std::uint64_t{1} << (c.n - 1)); ++cuts) {
    const Evaluated e = evaluate(c, cuts);
    if (e.peak > budget)
      continue;
    if (!found || e.recompute < best.recompute ||
        (e.recompute == best.recompute && e.peak < best.peak))
      best = e;
    found = true;
  }
  return found;
}

void check_against_exhaustive(const TableCosts& c, int& compared) {
  // Budgets from below the smallest peak to above the largest: every cut set's peak, and one less.
  std::vector<std::int64_t> budgets;
  for (std::uint64_t cuts = 0; cuts < (std::uint64_t{1} << (c.n - 1)); ++cuts) {
    const std::int64_t peak = evaluate(c, cuts).peak;
    budgets.push_back(peak);
    budgets.push_back(peak - 1);
  }
  std::sort(budgets.begin(), budgets.end());
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  std::int64_t previous_recompute = -1;
  for (std::int64_t budget : budgets) {
    const auto got = sn::detail::least_recompute_cuts<most_units, 4096>(c, budget);
    REQUIRE_FALSE(got.out_of_states);
    Evaluated want;
    const bool fits = exhaustive(c, budget, want);
    ++compared;
    REQUIRE(got.fits == fits);
    if (!fits)
      continue;
    CHECK(got.recompute == want.recompute);
    CHECK(got.peak == want.peak);
    // Its cut set has the numbers it reports.
    std::uint64_t cuts = 0;
    std::int64_t segments = 0;
    for (std::int64_t u = 0; u < c.n; ++u)
      if (got.cut_after[u]) {
        REQUIRE(u + 1 < c.n);  // never after the last unit
        cuts |= std::uint64_t{1} << u;
        ++segments;
      }
    const Evaluated mine = evaluate(c, cuts);
    CHECK(mine.recompute == got.recompute);
    CHECK(mine.peak == got.peak);
    CHECK(segments == got.segments);
    CHECK(got.peak <= budget);
    // A larger budget never costs more recomputation.
    if (previous_recompute >= 0)
      CHECK(got.recompute <= previous_recompute);
    previous_recompute = got.recompute;
  }
}

}  // namespace

TEST_CASE("checkpoint search: exact against exhaustive search on arbitrary costs") {
  Rng rng{39};
  int compared = 0;
  for (int model = 0; model < 300; ++model)
    check_against_exhaustive(arbitrary_costs(rng, rng.in(1, 10)), compared);
  for (int model = 0; model < 300; ++model)
    check_against_exhaustive(arbitrary_costs(rng, rng.in(1, 10), 10), compared);
  MESSAGE("arbitrary costs: ", compared, " budgets compared");
}

TEST_CASE("checkpoint search: exact against exhaustive search on chain-shaped costs") {
  Rng rng{2016};
  int compared = 0;
  for (int model = 0; model < 100; ++model)
    check_against_exhaustive(chain_costs(rng, rng.in(1, static_cast<int>(most_units))), compared);
  MESSAGE("chain-shaped costs: ", compared, " budgets compared");
}

// By hand: three units saving 10, 20, 30 bytes and ending in tensors of 1, 2, 3 (a segment holds,
// at its busiest, what its units save and its end's gradient); their forward costs 5, 7 and 11
// FLOPs, of which their last layers' 2, 3 and 4 (a segment recomputes all but its last layer).
//   no cut:          the tail holds 60; recomputes 0
//   cut after 0:     segment 0: 10 + 1 = 11, recomputes 5 - 2 = 3; the tail 1..2 after the 1 kept:
//                    1 + 50 = 51. (3, 51)
//   cut after 1:     segment 0..1: 30 + 2 = 32, recomputes 12 - 3 = 9; the tail: 2 + 30 = 32.
//                    (9, 32)
//   cuts after 0, 1: 11; 1 + (20 + 2) = 23; the tail 1 + 2 + 30 = 33; recomputes 3 + (7 - 3) = 7.
//                    (7, 33)
// So a budget of 60 or more: no cut; 51..59: the cut after 0; 33..50: both; 32: the cut after 1;
// 31: nothing fits.
TEST_CASE("checkpoint search: three units by hand") {
  TableCosts c;
  c.n = 3;
  const std::int64_t out[] = {1, 2, 3}, save[] = {10, 20, 30}, flops[] = {5, 7, 11},
                     last_layer[] = {2, 3, 4};
  for (int i = 0; i < 3; ++i) {
    for (int j = i; j < 3; ++j)
      c.tail_[i] += save[j];
    std::int64_t saved = 0, forward = 0;
    for (int j = i; j < 3; ++j) {
      saved += save[j];
      forward += flops[j];
      c.local_[i][j] = saved + out[j];
      c.kept_[i][j] = out[j];
      c.recompute_[i][j] = forward - last_layer[j];
    }
  }
  struct Want {
    std::int64_t budget;
    bool fits, cut0, cut1;
    std::int64_t recompute, peak;
  };
  const Want table[] = {{1000, true, false, false, 0, 60}, {60, true, false, false, 0, 60},
                        {59, true, true, false, 3, 51},    {51, true, true, false, 3, 51},
                        {50, true, true, true, 7, 33},     {33, true, true, true, 7, 33},
                        {32, true, false, true, 9, 32},    {31, false, false, false, 0, 0}};
  for (const Want& w : table) {
    CAPTURE(w.budget);
    const auto got = sn::detail::least_recompute_cuts<most_units, 64>(c, w.budget);
    CHECK(got.fits == w.fits);
    CHECK(got.cut_after[0] == w.cut0);
    CHECK(got.cut_after[1] == w.cut1);
    CHECK(got.recompute == w.recompute);
    CHECK(got.peak == w.peak);
  }
}

TEST_CASE("checkpoint search: a full front says so rather than answer") {
  Rng rng{7};
  TableCosts c = arbitrary_costs(rng, 10);
  c.tail_[0] = 1'000'000;  // no answer without cuts: the search has to hold many
  const auto got = sn::detail::least_recompute_cuts<most_units, 2>(c, 1'000);
  CHECK(got.out_of_states);
  CHECK_FALSE(got.fits);
}

TEST_CASE("checkpoint search: past its comparisons it says so rather than answer") {
  Rng rng{7};
  TableCosts c = arbitrary_costs(rng, 10);
  c.tail_[0] = 1'000'000;
  const auto whole = sn::detail::least_recompute_cuts<most_units, 4096>(c, 1'000);
  REQUIRE(whole.fits);
  REQUIRE(whole.compared > 10);
  // Its own count as the allowance answers as before; one less gives up.
  const auto enough = sn::detail::least_recompute_cuts<most_units, 4096>(c, 1'000, whole.compared);
  CHECK(enough.fits);
  CHECK(enough.recompute == whole.recompute);
  const auto short_by_one =
      sn::detail::least_recompute_cuts<most_units, 4096>(c, 1'000, whole.compared - 1);
  CHECK(short_by_one.out_of_states);
  CHECK_FALSE(short_by_one.fits);
}
