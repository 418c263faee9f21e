// The contract between the store's C++ and its Lua scripts, as the build
// makes it from store/contract/ and store/lua/ (cmake/store_contract.cmake):
// every failure a script can name is one C++ maps, and every script has its
// body.

#include "store/failures.hpp"
#include "store/keys.hpp"
#include "store/replies.hpp"
#include "store/script_list.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>

namespace simsync::store {

namespace {

std::set<std::string> failures_named_in(std::string_view lua) {
  static const std::regex call{R"(fail\('([a-z_]+)')"};
  std::set<std::string> names;
  std::string text(lua);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), call);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

bool mapped(const std::string& name) {
  return std::any_of(std::begin(detail::script_failures),
                     std::end(detail::script_failures),
                     [&](const auto& f) { return f.name == name; });
}

} // namespace

TEST(script_contract, every_failure_a_script_names_is_one_cpp_maps) {
  std::set<std::string> named = failures_named_in(detail::lua_lib);
  for (auto body : detail::script_bodies)
    named.merge(failures_named_in(body));
  ASSERT_GT(named.size(), 5u) << "the scan found too few fail() calls to mean anything";
  for (const auto& name : named)
    EXPECT_TRUE(mapped(name)) << name << " is not in store/contract/failures.list";
}

TEST(script_contract, the_lua_side_checks_the_same_failures) {
  for (const auto& f : detail::script_failures)
    EXPECT_NE(detail::lua_contract.find("  " + std::string(f.name) + " = true"),
              std::string_view::npos)
        << f.name;
}

TEST(script_contract, every_script_has_its_body_in_the_order_of_the_enum) {
  ASSERT_EQ(detail::script_bodies.size(), std::size(detail::script_names));
  for (auto body : detail::script_bodies)
    EXPECT_FALSE(body.empty());
  auto at = [](script s) { return static_cast<std::size_t>(s); };
  EXPECT_EQ(detail::script_names[at(script::upload)], "upload");
  EXPECT_EQ(detail::script_names[at(script::apply_incoming)], "apply_incoming");
  // upload.lua's own head, so the body at the enum's place is that file.
  EXPECT_NE(detail::script_bodies[at(script::upload)].find("F2 shared upload"),
            std::string_view::npos);
}

template <class Reply> bool names_a_script() {
  return std::find(std::begin(detail::script_names), std::end(detail::script_names),
                   Reply::script) != std::end(detail::script_names);
}

TEST(script_contract, every_reply_of_counts_is_a_scripts_and_both_sides_order_it_alike) {
  EXPECT_TRUE(names_a_script<replies::register_line>());
  EXPECT_TRUE(names_a_script<replies::remove_line>());
  EXPECT_TRUE(names_a_script<replies::release_claim>());
  EXPECT_TRUE(names_a_script<replies::restore>());
  EXPECT_TRUE(names_a_script<replies::apply_incoming>());
  const std::uint64_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto r = replies::apply_incoming::from(counts);
  EXPECT_EQ(r.applied, 1u);
  EXPECT_EQ(r.not_sibling, 8u);
  EXPECT_NE(
      detail::lua_contract.find("{counts.applied, counts.identical, counts.stale, "
                                "counts.asked, counts.answered, counts.siblings_added, "
                                "counts.siblings_removed, counts.not_sibling}"),
      std::string_view::npos);
}

TEST(script_contract, both_sides_name_a_key_alike) {
  EXPECT_EQ(keys::pending("ID", "L"), "pending:{ID}:L");
  EXPECT_NE(
      detail::lua_contract.find(
          "local function pending_key(id, line) return 'pending:{' .. id .. '}:' .. "
          "line end"),
      std::string_view::npos);
  EXPECT_EQ(keys::outbox("carrier-b"), "outbox:carrier-b");
  EXPECT_EQ(keys::prefix::account, "acct:");
}

} // namespace simsync::store
