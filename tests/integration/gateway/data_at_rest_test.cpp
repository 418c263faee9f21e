// MSISDNs and ICCIDs at rest: after lines register, upload and replicate
// through real carrierd processes, no key name and no stored value (hash
// field or value, set or sorted-set member, stream entry, string) of either
// carrier's Redis holds a number or an ICCID in the clear. The store knows a
// line by its line id and a SIM by its ICCID's hash (core/line_id.hpp).
#include "tests/integration/gateway/gateway_fixture.hpp"

using namespace simsync::testing;

namespace {

struct data_at_rest : shared_deployment<data_at_rest> {
  static std::vector<std::string> carriers() { return {"carrier-a", "carrier-b"}; }
};

} // namespace

TEST_F(data_at_rest, no_msisdn_or_iccid_is_stored_in_the_clear_at_either_carrier) {
  const std::string msisdn_a = "+8613712345678";
  const std::string msisdn_b = "+8618712345678";
  const std::string iccid_a = "89860071234567890123";
  const std::string iccid_b = "89860171234567890123";
  auto reg_a =
      http.enrol_and_register("carrier-a", msisdn_a, iccid_a, "Zhao Lei", "TEST424242");
  ASSERT_EQ(reg_a.status, 201) << reg_a;
  auto reg_b =
      http.enrol_and_register("carrier-b", msisdn_b, iccid_b, "Zhao Lei", "TEST424242");
  ASSERT_EQ(reg_b.status, 201) << reg_b;
  line a{"carrier-a", msisdn_a, reg_a.json.value("token", ""),
         reg_a.json.value("idcode", "")};
  line b{"carrier-b", msisdn_b, reg_b.json.value("token", ""),
         reg_b.json.value("idcode", "")};
  // Cards that name neither number, so whatever is found is the store's own;
  // shared ones from both lines (stamps replicated both ways), a private one.
  ASSERT_EQ(http.push(a, card("r1", "Qian Yu")).status, 200);
  ASSERT_EQ(http.push(a, card("p1", "Qian Yu Jr"), "private").status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(b) == 1; })) << http.update(b);
  ASSERT_EQ(http.push(b, card("r2", "Sun Li")).status, 200);
  ASSERT_TRUE(eventually([&] { return http.pending_added(a) == 1; })) << http.update(a);

  std::vector<std::string> in_the_clear{iccid_a, iccid_b};
  for (const auto& number : {msisdn_a, msisdn_b}) {
    in_the_clear.push_back(number);
    in_the_clear.push_back(number.substr(1)); // without its '+'
  }
  for (const auto& carrier : carriers()) {
    auto stored = everything_in(d->redis(carrier));
    ASSERT_NE(stored.find("shared:{" + a.idcode + "}"), std::string::npos)
        << carrier << ": the scan reads the store";
    for (const auto& text : in_the_clear) {
      auto at = stored.find(text);
      EXPECT_EQ(at, std::string::npos)
          << carrier << " stores " << text << " in: "
          << stored.substr(at == std::string::npos ? 0 : stored.rfind('\n', at) + 1, 200);
    }
  }
  // The store finds the line by its line id.
  auto store_a = d->redis("carrier-a").connect();
  auto sim = store_a.call({"HGET", "sim:" + d->line_id("carrier-a", msisdn_a), "id"});
  ASSERT_TRUE(sim);
  EXPECT_EQ(sim->view().str(), a.idcode);
}
