// tools/phone driven as a user drives it: the real binary, run in a folder of
// its own, against real carrierd and redis-server processes of two carriers.
// Lines are subscribers the test adds through the admin port; the code a
// carrier texts is read from its development SMS gateway (the fixture's
// last_code) and typed at the phone's prompt, or given with --code.
#include "core/book.hpp"
#include "core/stamp.hpp"
#include "net/instant.hpp"
#include "phone/cli.hpp"
#include "tests/integration/node/node_fixture.hpp" // eventually()
#include "tests/support/carrier_process.hpp"
#include "tests/support/paused_process.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <thread>

using namespace simsync::testing;
namespace fs = std::filesystem;

namespace {

/// What a run of the phone printed (stdout and stderr together) and its exit code.
struct run_result {
  int code = -1;
  std::string output;
};

std::ostream& operator<<(std::ostream& os, const run_result& r) {
  return os << "exit " << r.code << ":\n" << r.output;
}

std::string quoted(const std::string& arg) {
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// What a book means: uid -> hash of its canonical form, for every good card.
std::map<std::string, std::string> meaning(const std::string& book) {
  std::map<std::string, std::string> out;
  for (const auto& entry : simsync::core::prepare_book(book).entries)
    out.emplace(entry.uid, entry.hash.hex());
  return out;
}

/// The carrier's subscriber record of a SIM, PUT through its admin port with
/// its admin key, as the operator's systems do.
void add_subscriber(const deployment& d, const std::string& carrier,
                    const std::string& msisdn, const std::string& iccid,
                    const std::string& name, const std::string& id_number) {
  httplib::Client admin("127.0.0.1", d.admin_port(carrier));
  admin.set_url_encode(false);
  nlohmann::json record{{"iccid", iccid}, {"name", name}, {"id_number", id_number}};
  auto r = admin.Put("/admin/subscribers/" + msisdn,
                     {{"Authorization", "Bearer " + d.admin_key(carrier)}}, record.dump(),
                     "application/json");
  ASSERT_TRUE(r) << "admin port of " << carrier << ": " << httplib::to_string(r.error());
  ASSERT_TRUE(r->status == 200 || r->status == 201) << r->status << " " << r->body;
}

std::string card(const std::string& uid, const std::string& name,
                 const std::string& tel) {
  return "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name + "\r\nN:" + name +
         ";;;;\r\nTEL;TYPE=CELL:" + tel + "\r\nEND:VCARD\r\n";
}

struct phone_cli : ::testing::Test {
  static void SetUpTestSuite() {
    deployment::options opts;
    opts.max_replication_lag_ms = 300; // so a stalled peer sheds pushes soon
    d = new deployment({"carrier-a", "carrier-b"}, opts);
  }
  static void TearDownTestSuite() {
    delete d;
    d = nullptr;
  }
  static deployment* d;

  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("simsync-phone-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  static std::string gateway(const std::string& carrier) {
    return "http://127.0.0.1:" + std::to_string(d->gateway_port(carrier));
  }

  std::string command_line(const std::vector<std::string>& args) const {
    std::string command = "cd " + quoted(dir.string()) + " && " + SIMSYNC_PHONE_BINARY;
    for (const auto& arg : args)
      command += " " + quoted(arg);
    return command;
  }

  /// Runs `phone args...` in the test's folder, with no terminal on stdin.
  run_result phone(const std::vector<std::string>& args) const {
    auto command = command_line(args) + " </dev/null 2>&1";
    run_result r;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe)
      return r;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      r.output.append(buffer, n);
    int status = ::pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }

  /// Runs `phone register args...` and types at its prompt the code that
  /// `carrier` texts to `msisdn` (one line on the phone's stdin), as a person
  /// who reads the SMS does.
  run_result register_typing_the_code(const std::vector<std::string>& args,
                                      const std::string& carrier,
                                      const std::string& msisdn) const {
    auto output = dir / ("register-" + std::to_string(++runs) + ".out");
    auto before = d->last_code(carrier, msisdn);
    auto command = command_line(args) + " >" + quoted(output.string()) + " 2>&1";
    run_result r;
    FILE* pipe = ::popen(command.c_str(), "w");
    if (!pipe)
      return r;
    std::string code;
    eventually([&] {
      code = d->last_code(carrier, msisdn);
      return !code.empty() && code != before;
    });
    std::fputs((code + "\n").c_str(), pipe);
    int status = ::pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = read_text(output);
    return r;
  }

  /// Adds `msisdn` (SIM `iccid`) of person `person` ("李明", ID number
  /// `person`) as a subscriber of `carrier`, then registers it as line `book`
  /// with the code the carrier texts; fails the test otherwise.
  void register_line(const std::string& book, const std::string& carrier,
                     const std::string& msisdn, const std::string& person,
                     const std::string& iccid = "89860012345678901234") {
    add_subscriber(*d, carrier, msisdn, iccid, "李明", person);
    auto r =
        register_typing_the_code({"register", "--book", book, "--gateway",
                                  gateway(carrier), "--msisdn", msisdn, "--iccid", iccid},
                                 carrier, msisdn);
    ASSERT_EQ(r.code, 0) << r;
    EXPECT_NE(r.output.find("code sent by SMS to " + msisdn + ": registered " + msisdn),
              std::string::npos)
        << r;
  }

  /// Waits until the line of `book` has `counts` ("3 added, 0 changed, 0 removed")
  /// pending.
  bool pending(const std::string& book, const std::string& counts) const {
    return eventually([&] {
      return phone({"status", "--book", book}).output.find(counts) != std::string::npos;
    });
  }

  fs::path dir;
  mutable int runs = 0;
};

deployment* phone_cli::d = nullptr;

} // namespace

TEST_F(phone_cli, every_verb_has_help) {
  for (std::string verb : {"register", "push", "pull", "restore", "status", "history"}) {
    auto r = phone({verb, "--help"});
    EXPECT_EQ(r.code, 0) << r;
    EXPECT_NE(r.output.find("usage: phone " + verb), std::string::npos) << r;
    EXPECT_NE(r.output.find("--book FILE"), std::string::npos) << r;
  }
  auto overview = phone({"--help"});
  EXPECT_EQ(overview.code, 0) << overview;
  EXPECT_NE(overview.output.find("restore"), std::string::npos) << overview;
  EXPECT_EQ(phone({}).code, 2);
  EXPECT_EQ(phone({"dance"}).code, 2);
  EXPECT_EQ(phone({"pull", "--apply", "--discard"}).code, 2);
  EXPECT_EQ(phone({"register", "--msisdn"}).code, 2);
  // Identity comes from the carrier's records: the phone has no way to send one.
  auto named = phone({"register", "--msisdn", "+8613800100000", "--iccid",
                      "89860012345678901234", "--name", "Li", "--id-number", "PHONE1"});
  EXPECT_EQ(named.code, 2) << named;
  EXPECT_NE(named.output.find("subscriber records"), std::string::npos) << named;
  EXPECT_EQ(phone({"register", "--msisdn", "+8613800100000"}).code, 2); // no --iccid
}

TEST_F(phone_cli, registration_needs_the_sim_and_the_code_texted_to_it) {
  auto msisdn = std::string("+8613800100010");
  auto iccid = std::string("89860012345678900010");
  auto reg = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"register",           "--book",   "a.vcf", "--gateway",
                                  gateway("carrier-a"), "--msisdn", msisdn};
    args.insert(args.end(), extra.begin(), extra.end());
    return phone(args);
  };
  // Not a subscriber: refused, and no code is texted.
  auto stranger = reg({"--iccid", iccid});
  EXPECT_EQ(stranger.code, 1) << stranger;
  EXPECT_EQ(stranger.output.rfind("phone: register refused (403 not-eligible): ", 0), 0u)
      << stranger;
  EXPECT_EQ(std::count(stranger.output.begin(), stranger.output.end(), '\n'), 1)
      << stranger;
  EXPECT_EQ(d->last_code("carrier-a", msisdn), "");

  add_subscriber(*d, "carrier-a", msisdn, iccid, "李明", "PHONE100010");
  // Another SIM's ICCID: the same answer.
  auto wrong_sim = reg({"--iccid", "89860012345678909999"});
  EXPECT_EQ(wrong_sim.code, 1) << wrong_sim;
  EXPECT_NE(wrong_sim.output.find("403 not-eligible"), std::string::npos) << wrong_sim;
  EXPECT_EQ(d->last_code("carrier-a", msisdn), "");

  // The SIM: a code is texted; nobody types it, so the phone says how to go on.
  auto unanswered = reg({"--iccid", iccid});
  EXPECT_EQ(unanswered.code, 1) << unanswered;
  EXPECT_NE(unanswered.output.find("code sent by SMS to " + msisdn + ": "),
            std::string::npos)
      << unanswered;
  EXPECT_NE(unanswered.output.find("--code CODE"), std::string::npos) << unanswered;
  auto code = d->last_code("carrier-a", msisdn);
  ASSERT_EQ(code.size(), 6u);
  EXPECT_FALSE(fs::exists(dir / "a.vcf.state.json"));

  auto wrong = reg({"--code", code == "000000" ? "111111" : "000000"});
  EXPECT_EQ(wrong.code, 1) << wrong;
  EXPECT_NE(wrong.output.find("403 invalid-code): wrong code, 4 attempts left"),
            std::string::npos)
      << wrong;

  auto right = reg({"--code", code});
  ASSERT_EQ(right.code, 0) << right;
  EXPECT_NE(right.output.find("registered " + msisdn + " at " + gateway("carrier-a") +
                              ": new account"),
            std::string::npos)
      << right;
  // A code is good once.
  auto reused = reg({"--code", code});
  EXPECT_EQ(reused.code, 1) << reused;
  EXPECT_NE(reused.output.find("403 invalid-code): no code is waiting"),
            std::string::npos)
      << reused;
  EXPECT_EQ(phone({"status", "--book", "a.vcf"}).code, 0);

  // A new phone with the same SIM registers with a new code; the old phone's
  // token stops working.
  auto again = register_typing_the_code({"register", "--book", "new.vcf", "--gateway",
                                         gateway("carrier-a"), "--msisdn", msisdn,
                                         "--iccid", iccid},
                                        "carrier-a", msisdn);
  ASSERT_EQ(again.code, 0) << again;
  EXPECT_NE(again.output.find("joined your existing account"), std::string::npos)
      << again;
  EXPECT_EQ(phone({"status", "--book", "new.vcf"}).code, 0);
  auto old_phone = phone({"status", "--book", "a.vcf"});
  EXPECT_EQ(old_phone.code, 1) << old_phone;
  EXPECT_NE(old_phone.output.find("401"), std::string::npos) << old_phone;
}

TEST_F(phone_cli, push_on_one_line_and_pull_apply_on_the_other_keeps_the_meaning) {
  register_line("a.vcf", "carrier-a", "+8613800100001", "PHONE100001");
  register_line("b.vcf", "carrier-b", "+8618600100001", "PHONE100001");
  // An Android export: vCard 2.1, quoted-printable UTF-8 Chinese names, no UIDs.
  auto book = read_text(fs::path(SIMSYNC_TEST_DATA_DIR) / "android-2.1-qp-utf8.vcf") +
              card("u-1", "Li Lei", "+8613911112222");
  write_text(dir / "a.vcf", book);
  auto pushed = phone({"push", "--book", "a.vcf"});
  ASSERT_EQ(pushed.code, 0) << pushed;
  EXPECT_NE(pushed.output.find("6 added, 0 changed, 0 removed"), std::string::npos)
      << pushed;

  ASSERT_TRUE(pending("b.vcf", "pending  6 added, 0 changed, 0 removed"));
  auto pulled = phone({"pull", "--book", "b.vcf", "--apply"});
  ASSERT_EQ(pulled.code, 0) << pulled;
  EXPECT_NE(pulled.output.find("+ Li Lei +8613911112222"), std::string::npos) << pulled;
  EXPECT_EQ(meaning(read_text(dir / "b.vcf")), meaning(book));
  EXPECT_EQ(meaning(book).size(), 6u);

  // Applied: nothing is pending, and line b's book is in sync with its base.
  auto status = phone({"status", "--book", "b.vcf"});
  EXPECT_NE(status.output.find("local    0 added, 0 changed, 0 removed"),
            std::string::npos)
      << status;
  EXPECT_NE(status.output.find("pending  0 added, 0 changed, 0 removed"),
            std::string::npos)
      << status;

  // An edit and removals on line a reach b's book as a replaced and a dropped card.
  auto edited = card("u-1", "Li Lei", "+8613900000000");
  write_text(dir / "a.vcf", edited);
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  ASSERT_TRUE(pending("b.vcf", "pending  0 added, 1 changed, 5 removed"));
  ASSERT_EQ(phone({"pull", "--book", "b.vcf", "--apply"}).code, 0);
  EXPECT_EQ(meaning(read_text(dir / "b.vcf")), meaning(edited));
}

TEST_F(phone_cli, pull_without_a_decision_shows_and_discard_leaves_the_book) {
  register_line("a.vcf", "carrier-a", "+8613800100002", "PHONE100002");
  register_line("b.vcf", "carrier-b", "+8618600100002", "PHONE100002");
  write_text(dir / "b.vcf", card("mine", "Only On B", "+8613000000000"));
  write_text(dir / "a.vcf", card("u-1", "Wang Fang", "+8613911112222"));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  ASSERT_TRUE(pending("b.vcf", "pending  1 added, 0 changed, 0 removed"));

  // Not a terminal and no flag: shown, not acknowledged.
  auto shown = phone({"pull", "--book", "b.vcf"});
  EXPECT_EQ(shown.code, 0) << shown;
  EXPECT_NE(shown.output.find("+ Wang Fang"), std::string::npos) << shown;
  EXPECT_NE(shown.output.find("--discard"), std::string::npos) << shown;
  ASSERT_TRUE(pending("b.vcf", "pending  1 added, 0 changed, 0 removed"));

  auto before = read_text(dir / "b.vcf");
  auto discarded = phone({"pull", "--book", "b.vcf", "--discard"});
  EXPECT_EQ(discarded.code, 0) << discarded;
  EXPECT_EQ(read_text(dir / "b.vcf"), before);
  EXPECT_TRUE(pending("b.vcf", "pending  0 added, 0 changed, 0 removed"));
  auto again = phone({"pull", "--book", "b.vcf"});
  EXPECT_NE(again.output.find("nothing new"), std::string::npos) << again;
}

TEST_F(phone_cli, private_push_does_not_travel_and_restores) {
  register_line("a.vcf", "carrier-a", "+8613800100003", "PHONE100003");
  register_line("b.vcf", "carrier-b", "+8618600100003", "PHONE100003");
  auto book =
      card("p-1", "张医生", "+8613811110000") + card("p-2", "Dr. Brown", "+14155550100");
  write_text(dir / "a.vcf", book);
  auto pushed = phone({"push", "--book", "a.vcf", "--private"});
  ASSERT_EQ(pushed.code, 0) << pushed;
  EXPECT_NE(pushed.output.find("private backup"), std::string::npos) << pushed;
  // A private push is no sync: line a still has 2 local additions to share.
  EXPECT_NE(phone({"status", "--book", "a.vcf"}).output.find("local    2 added"),
            std::string::npos);

  // A non-empty book is not overwritten without --yes when nobody can be asked.
  auto refused = phone({"restore", "--book", "a.vcf"});
  EXPECT_EQ(refused.code, 2) << refused;
  EXPECT_NE(refused.output.find("--yes"), std::string::npos) << refused;

  fs::remove(dir / "a.vcf");
  auto restored = phone({"restore", "--book", "a.vcf"});
  ASSERT_EQ(restored.code, 0) << restored;
  EXPECT_EQ(meaning(read_text(dir / "a.vcf")), meaning(book));

  auto b = phone({"pull", "--book", "b.vcf"});
  EXPECT_NE(b.output.find("nothing new"), std::string::npos) << b;
}

TEST_F(phone_cli, errors_are_one_line_with_a_non_zero_exit) {
  register_line("a.vcf", "carrier-a", "+8613800100004", "PHONE100004");
  write_text(dir / "a.vcf", card("u-1", "Li Lei", "+8613911112222"));

  // Line a's token at carrier-b: unknown there, so refused as invalid.
  auto refused = phone({"push", "--book", "a.vcf", "--gateway", gateway("carrier-b")});
  EXPECT_EQ(refused.code, 1) << refused;
  EXPECT_EQ(refused.output.rfind("phone: push refused (401 Unauthorized): ", 0), 0u)
      << refused;
  EXPECT_EQ(std::count(refused.output.begin(), refused.output.end(), '\n'), 1) << refused;

  auto bad = phone({"register", "--book", "x.vcf", "--gateway", gateway("carrier-a"),
                    "--msisdn", "13800138000", "--iccid", "89860012345678901234"});
  EXPECT_EQ(bad.code, 1) << bad;
  EXPECT_EQ(bad.output.rfind("phone: register refused (400 Bad Request): ", 0), 0u)
      << bad;
  EXPECT_NE(bad.output.find("msisdn"), std::string::npos) << bad;
  EXPECT_EQ(std::count(bad.output.begin(), bad.output.end(), '\n'), 1) << bad;

  auto unreachable =
      phone({"pull", "--book", "a.vcf", "--gateway", "http://127.0.0.1:1"});
  EXPECT_EQ(unreachable.code, 1) << unreachable;
  EXPECT_EQ(unreachable.output,
            "phone: cannot reach carrier at http://127.0.0.1:1: connection refused\n");

  auto unregistered = phone({"push", "--book", "nobody.vcf"});
  EXPECT_EQ(unregistered.code, 1) << unregistered;
}

TEST_F(phone_cli, a_shed_push_is_retried_then_reported_and_stores_nothing) {
  register_line("a.vcf", "carrier-a", "+8613800100007", "PHONE100007");
  register_line("b.vcf", "carrier-b", "+8618600100007", "PHONE100007");
  write_text(dir / "a.vcf", card("u-1", "Li Lei", "+8613911112222"));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  ASSERT_TRUE(pending("b.vcf", "pending  1 added, 0 changed, 0 removed"));

  // carrier-b's Redis stops: what carrier-a sends it is never acknowledged,
  // and once replication is 300 ms behind carrier-a sheds shared pushes.
  paused_process redis_b{d->redis("carrier-b").pid()};
  write_text(dir / "a.vcf", card("u-1", "Li Lei", "+8613911112222") +
                                card("u-2", "Han Meimei", "+8613933334444"));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0); // in the outbox
  write_text(dir / "a.vcf", card("u-1", "Li Lei", "+8613911112222") +
                                card("u-2", "Han Meimei", "+8613933334444") +
                                card("u-3", "Wang Fang", "+8613955556666"));
  std::this_thread::sleep_for(std::chrono::milliseconds{600});
  auto shed = phone({"push", "--book", "a.vcf"});
  redis_b.resume();
  EXPECT_EQ(shed.code, 1) << shed;
  EXPECT_NE(
      shed.output.find("phone: push: the carrier is busy (503 Service Unavailable): "),
      std::string::npos)
      << shed;
  // Says why, without naming the peer or its state (no internals to phones).
  EXPECT_NE(shed.output.find("while replication catches up"), std::string::npos) << shed;
  EXPECT_EQ(shed.output.find("carrier-b"), std::string::npos) << shed;
  // Each retry waits what the carrier says: the lag beyond its limit, which
  // grows while carrier-b stays stopped.
  std::smatch waits;
  EXPECT_TRUE(std::regex_search(
      shed.output, waits,
      std::regex{
          "retrying in ([0-9]+) s \\(1/3\\)[\\s\\S]*retrying in ([0-9]+) s \\(3/3\\)"}))
      << shed;
  if (waits.size() == 3) {
    EXPECT_GT(std::stoi(waits[2]), std::stoi(waits[1])) << shed;
  }
  EXPECT_NE(shed.output.find("phone: push refused (503 Service Unavailable)"),
            std::string::npos)
      << shed;

  // Only what was accepted travels; pushed again once b is back, u-3 follows.
  ASSERT_TRUE(pending("b.vcf", "pending  2 added, 0 changed, 0 removed"));
  ASSERT_TRUE(eventually([&] { return phone({"push", "--book", "a.vcf"}).code == 0; }));
  EXPECT_TRUE(pending("b.vcf", "pending  3 added, 0 changed, 0 removed"));
}

TEST_F(phone_cli, pull_asks_on_a_terminal) {
  register_line("a.vcf", "carrier-a", "+8613800100005", "PHONE100005");
  register_line("b.vcf", "carrier-b", "+8618600100005", "PHONE100005");
  auto book = (dir / "b.vcf").string();
  // In process, so that a stream can stand in for the person at the terminal.
  auto pull_answering = [&](const std::string& answer) {
    std::istringstream in(answer);
    std::ostringstream out, err;
    const char* argv[] = {"phone", "pull", "--book", book.c_str()};
    EXPECT_EQ(simsync::phone::run(4, argv, in, out, err, true), 0) << err.str();
    EXPECT_NE(out.str().find("apply these changes? [y/N]"), std::string::npos)
        << out.str();
    return out.str();
  };

  write_text(dir / "a.vcf", card("u-1", "Wang Fang", "+8613911112222"));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  ASSERT_TRUE(pending("b.vcf", "pending  1 added, 0 changed, 0 removed"));
  EXPECT_NE(pull_answering("n\n").find("discarded"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "b.vcf"));

  write_text(dir / "a.vcf", card("u-1", "Wang Fang", "+8613900000000"));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  // Whether the carrier counts it as added or changed for a line that refused it before.
  ASSERT_TRUE(eventually([&] {
    return phone({"status", "--book", "b.vcf"})
               .output.find("pending  0 added, 0 changed") == std::string::npos;
  }));
  EXPECT_NE(pull_answering("y\n").find("applied"), std::string::npos);
  EXPECT_EQ(meaning(read_text(dir / "b.vcf")), meaning(read_text(dir / "a.vcf")));
}

TEST_F(phone_cli, without_a_gateway_the_local_deployment_is_asked) {
  // A stand-in for tools/cluster that lists this test's carriers.
  auto script = dir / "cluster";
  write_text(script,
             "#!/bin/sh\necho \"$@\" >> " + (dir / "cluster-args").string() +
                 "\ncat <<'JSON'\n{\"carriers\":[{\"id\":\"carrier-a\",\"gateway\":\"" +
                 gateway("carrier-a") + "\"},{\"id\":\"carrier-b\",\"gateway\":\"" +
                 gateway("carrier-b") + "\"}]}\nJSON\n");
  fs::permissions(script, fs::perms::owner_all);
  ::setenv("SIMSYNC_CLUSTER", script.c_str(), 1);
  add_subscriber(*d, "carrier-a", "+8613800100006", "89860012345678901234", "Li",
                 "PHONE100006");
  add_subscriber(*d, "carrier-b", "+8618600100006", "89860012345678901234", "Li",
                 "PHONE100006");
  auto first =
      register_typing_the_code({"register", "--book", "a.vcf", "--msisdn",
                                "+8613800100006", "--iccid", "89860012345678901234"},
                               "carrier-a", "+8613800100006");
  auto chosen = register_typing_the_code({"register", "--book", "b.vcf", "--carrier",
                                          "carrier-b", "--msisdn", "+8618600100006",
                                          "--iccid", "89860012345678901234"},
                                         "carrier-b", "+8618600100006");
  auto unknown = phone({"status", "--book", "c.vcf", "--carrier", "carrier-z"});
  // --configs names the deployment's folder, as for tools/cluster itself.
  auto elsewhere =
      phone({"status", "--book", "d.vcf", "--configs", "/srv/other-deployment"});
  ::unsetenv("SIMSYNC_CLUSTER");
  EXPECT_EQ(elsewhere.code, 0) << elsewhere;
  EXPECT_NE(read_text(dir / "cluster-args")
                .find("status --json --configs /srv/other-deployment"),
            std::string::npos)
      << read_text(dir / "cluster-args");
  EXPECT_EQ(first.code, 0) << first;
  EXPECT_NE(first.output.find("at " + gateway("carrier-a")), std::string::npos) << first;
  EXPECT_EQ(chosen.code, 0) << chosen;
  EXPECT_NE(chosen.output.find("at " + gateway("carrier-b")), std::string::npos)
      << chosen;
  EXPECT_EQ(unknown.code, 2) << unknown;
  // Once registered, the line's own carrier is used.
  auto status = phone({"status", "--book", "b.vcf"});
  EXPECT_NE(status.output.find("carrier  " + gateway("carrier-b")), std::string::npos)
      << status;
}

namespace {

std::string numbered_cards(int count) {
  std::string book;
  for (int i = 0; i < count; ++i)
    book += card("n-" + std::to_string(i), "Person " + std::to_string(i),
                 "+86139000000" + std::to_string(10 + i));
  return book;
}

} // namespace

TEST_F(phone_cli, a_push_that_would_empty_the_book_says_so_and_asks) {
  register_line("a.vcf", "carrier-a", "+8613800100007", "PHONE100007");
  write_text(dir / "a.vcf", numbered_cards(12));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  write_text(dir / "a.vcf", numbered_cards(1));
  // No terminal and no --yes: refused, nothing stored.
  auto held = phone({"push", "--book", "a.vcf"});
  EXPECT_EQ(held.code, 1) << held;
  EXPECT_NE(held.output.find("would remove 11 of the 12 cards"), std::string::npos)
      << held;
  EXPECT_NE(held.output.find("--yes"), std::string::npos) << held;
  // At a terminal: the person says no, then the book at the carrier is whole.
  auto book = (dir / "a.vcf").string();
  auto push_answering = [&](const std::string& answer) {
    std::istringstream in(answer);
    std::ostringstream out, err;
    const char* argv[] = {"phone", "push", "--book", book.c_str()};
    EXPECT_EQ(simsync::phone::run(4, argv, in, out, err, true), 0) << err.str();
    EXPECT_NE(out.str().find("Remove them? [y/N]"), std::string::npos) << out.str();
    return out.str();
  };
  EXPECT_NE(push_answering("n\n").find("nothing was stored"), std::string::npos);
  auto status = phone({"status", "--book", "a.vcf"});
  EXPECT_NE(status.output.find("0 added, 0 changed, 11 removed since the last sync"),
            std::string::npos)
      << status;
  // --yes confirms.
  auto confirmed = phone({"push", "--book", "a.vcf", "--yes"});
  EXPECT_EQ(confirmed.code, 0) << confirmed;
  EXPECT_NE(confirmed.output.find("0 added, 0 changed, 11 removed"), std::string::npos)
      << confirmed;
}

TEST_F(phone_cli, history_lists_changes_and_restore_brings_the_book_back) {
  register_line("a.vcf", "carrier-a", "+8613800100008", "PHONE100008");
  auto first =
      card("h-1", "Zhao Li", "+8613911110001") + card("h-2", "Qian Mo", "+8613911110002");
  write_text(dir / "a.vcf", first);
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds{20});
  auto then = simsync::net::rfc3339_of(simsync::core::unix_now_ms());
  std::this_thread::sleep_for(std::chrono::milliseconds{20});
  write_text(dir / "a.vcf", card("h-1", "Zhao Li", "+8613900009999"));
  ASSERT_EQ(phone({"push", "--book", "a.vcf"}).code, 0);

  auto history = phone({"history", "--book", "a.vcf"});
  EXPECT_EQ(history.code, 0) << history;
  EXPECT_NE(history.output.find("changed  h-1  by +8613800100008 at carrier-a"),
            std::string::npos)
      << history;
  EXPECT_NE(history.output.find("removed  h-2"), std::string::npos) << history;
  auto paged = phone({"history", "--book", "a.vcf", "--limit", "1"});
  EXPECT_NE(paged.output.find("older changes: phone history --next "), std::string::npos)
      << paged;

  auto preview = phone({"restore", "--book", "a.vcf", "--at", then, "--preview"});
  EXPECT_EQ(preview.code, 0) << preview;
  EXPECT_NE(preview.output.find("would make 1 added, 1 changed, 0 removed"),
            std::string::npos)
      << preview;
  EXPECT_NE(read_text(dir / "a.vcf").find("+8613900009999"), std::string::npos);
  EXPECT_EQ(phone({"restore", "--book", "a.vcf", "--at", then}).code, 2); // no --yes
  auto restored = phone({"restore", "--book", "a.vcf", "--at", then, "--yes"});
  EXPECT_EQ(restored.code, 0) << restored;
  EXPECT_EQ(meaning(read_text(dir / "a.vcf")), meaning(first));
  auto bad = phone({"restore", "--book", "a.vcf", "--at", "yesterday", "--preview"});
  EXPECT_EQ(bad.code, 1) << bad;
  EXPECT_NE(bad.output.find("RFC 3339"), std::string::npos) << bad;
}

TEST_F(phone_cli, a_pull_larger_than_a_page_comes_whole_in_pages) {
  register_line("a.vcf", "carrier-a", "+8613800100091", "PHONE100091");
  register_line("b.vcf", "carrier-b", "+8618600100091", "PHONE100091");
  // 1,234 cards: three pages of the phone's 500.
  std::string book;
  for (int i = 0; i < 1234; ++i)
    book += card("p-" + std::to_string(i), "Person " + std::to_string(i),
                 "+86139" + std::to_string(10000000 + i));
  write_text(dir / "a.vcf", book);
  auto pushed = phone({"push", "--book", "a.vcf"});
  ASSERT_EQ(pushed.code, 0) << pushed;
  ASSERT_TRUE(pending("b.vcf", "pending  1234 added, 0 changed, 0 removed"));
  auto pulled = phone({"pull", "--book", "b.vcf", "--apply"});
  ASSERT_EQ(pulled.code, 0) << pulled;
  EXPECT_NE(pulled.output.find("1234 added"), std::string::npos)
      << pulled.output.substr(0, 300);
  EXPECT_EQ(meaning(read_text(dir / "b.vcf")), meaning(book));
  EXPECT_TRUE(pending("b.vcf", "pending  0 added, 0 changed, 0 removed"));
}
