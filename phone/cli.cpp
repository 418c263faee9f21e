#include "phone/cli.hpp"

#include "phone/error.hpp"
#include "phone/verbs.hpp"
#include "simsync_version.hpp"

#include <ostream>
#include <vector>

namespace simsync::phone {

namespace {

struct verb {
  const char* name;
  const char* summary;
  const char* usage; ///< the verb's own options, shown by --help
  std::vector<std::string> values;
  std::vector<std::string> flags;
  void (*run)(phone_context&);
};

const char* const common_options = R"(
Common options:
  --book FILE      the address book (default ./book.vcf); the phone's state
                   (token, base, cursor) is kept in FILE.state.json
  --gateway URL    the carrier's gateway, e.g. http://127.0.0.1:18080; without it,
                   the gateway the line registered at, else the local deployment
                   that tools/cluster runs
  --carrier ID     the carrier of the local deployment (tools/cluster status)
  --configs DIR    the local deployment's folder of node configs, as for
                   tools/cluster (default: the one tools/cluster uses)
  --help           this text
)";

const std::vector<verb>& verbs() {
  static const std::vector<verb> all{
      {"register",
       "register this phone's line with a code the carrier texts to it",
       R"(usage: phone register --msisdn +86... --iccid 8986...
       phone register --msisdn +86... --code CODE

Registers the line of this phone's SIM: its number (msisdn) and the SIM
card's ICCID. The carrier must have the SIM in its subscriber records (your
name and ID number come from there, never from the phone); it texts a
one-time code to the number, and the phone asks for it ("code sent by SMS
to +86...: ", one line read from standard input). With the code the
carrier answers with a SIM token, kept in the state file; a second line of
the same person joins the same account. Registering again (a new phone)
needs a new code and ends the old phone's token.

--code CODE  a code already texted (by an earlier phone register that was
             not answered): only checks it, sends no new one
)",
       {"--msisdn", "--iccid", "--code"},
       {},
       register_verb},
      {"push",
       "upload the whole book (shared, or --private)",
       R"(usage: phone push [--private] [--yes]

Uploads the whole book as a snapshot. Shared (the default): the carrier
stores it and replicates the changes to your other lines, at every carrier.
--private: a backup at this carrier only; it goes nowhere (see restore).
Shows what the carrier took, any card it rejected, and any card it kept
because another line changed it since this phone saw it.
A push that would remove much of the book (by default more than 10 cards
and more than 30% of it) is held by the carrier: the phone says how many
cards would go and asks; --yes removes them without asking.
)",
       {},
       {"--private", "--yes"},
       push_verb},
      {"pull",
       "fetch the changes from your other lines, then apply or discard them",
       R"(usage: phone pull [--apply | --discard]

Asks the carrier for updates, shows a summary and the contacts added (+),
changed (~) and removed (-), then:
  --apply     merges them into the book and acknowledges them
  --discard   refuses them: the book stays as it is
Without either, asks on a terminal; otherwise only shows them.
Either way, what was acknowledged leaves the pending mailbox.
)",
       {},
       {"--apply", "--discard"},
       pull_verb},
      {"restore",
       "bring back the private backup, or the book as it was at a time",
       R"(usage: phone restore [--yes]
       phone restore --at TIME [--preview] [--private] [--yes]

Without --at: fetches this carrier's private backup of the line (phone push
--private) and writes it to the book. Asks before overwriting a book that
holds cards, unless --yes.

--at TIME (RFC 3339, e.g. 2026-12-01T09:30:00Z): the carrier brings the
shared book (or, with --private, the private backup) back to what it held
then, from its history. Shows what that changes; --preview stops there.
Otherwise asks (or --yes), restores, and writes the restored shared book to
the book file. A shared restore reaches your other lines like a push.
)",
       {"--at"},
       {"--yes", "--preview", "--private"},
       restore_verb},
      {"history",
       "list the changes the carrier keeps, newest first",
       R"(usage: phone history [--private] [--limit N] [--next CURSOR]

Lists the changes of the shared book (or, with --private, the private
backup): when, added / changed / removed (lost: an edit that lost to a
concurrent one), the contact's UID, and the line and carrier that made it.
--limit N changes per page (default 20); --next continues where a page ended.
)",
       {"--limit", "--next"},
       {"--private"},
       history_verb},
      {"status",
       "show the line, the book, local changes and pending changes",
       R"(usage: phone status

Shows the line, its carrier, the cards in the book, the changes made to the
book since the last sync, and the changes waiting at the carrier.
)",
       {},
       {},
       status_verb},
  };
  return all;
}

void overview(std::ostream& out) {
  out << "usage: phone <verb> [options]   (phone <verb> --help for details)\n\n"
         "A phone in a terminal: keeps an address book file and syncs it with\n"
         "the carrier, like the phone on one of your lines.\n\nVerbs:\n";
  for (const auto& v : verbs())
    out << "  " << v.name << std::string(10 - std::string(v.name).size(), ' ')
        << v.summary << "\n";
  out << "\nphone --version prints the version.\n";
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  for (const auto& x : list)
    if (x == item)
      return true;
  return false;
}

arguments parse(const verb& v, int argc, const char* const* argv) {
  static const std::vector<std::string> common_values{"--book", "--gateway", "--carrier",
                                                      "--configs"};
  arguments args;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    if (contains(v.values, name) || contains(common_values, name)) {
      if (eq != std::string::npos)
        args.values[name] = arg.substr(eq + 1);
      else if (i + 1 < argc)
        args.values[name] = argv[++i];
      else
        throw usage_error(name + " needs a value");
    } else if (eq == std::string::npos && (contains(v.flags, arg) || arg == "--help")) {
      args.flags.insert(arg);
    } else if (std::string(v.name) == "register" &&
               (name == "--name" || name == "--id-number")) {
      throw usage_error(name +
                        " is not sent any more: the carrier knows your name and ID "
                        "number from its subscriber records");
    } else {
      throw usage_error("unknown option " + arg + " for " + v.name);
    }
  }
  return args;
}

} // namespace

int run(int argc, const char* const* argv, std::istream& in, std::ostream& out,
        std::ostream& err, bool interactive) {
  std::string name = argc > 1 ? argv[1] : "";
  if (name == "--help" || name == "-h" || name == "help") {
    overview(out);
    return exit_ok;
  }
  if (name == "--version") {
    out << "phone (simsync) " << version << "\n";
    return exit_ok;
  }
  const verb* chosen = nullptr;
  for (const auto& v : verbs())
    if (name == v.name)
      chosen = &v;
  if (!chosen) {
    err << "phone: " << (name.empty() ? "no verb given" : "unknown verb " + name) << "\n";
    overview(err);
    return exit_usage;
  }
  try {
    phone_context ctx{parse(*chosen, argc, argv), "", in, out, interactive};
    if (ctx.args.has("--help")) {
      out << chosen->usage << common_options;
      return exit_ok;
    }
    ctx.book_path = ctx.args.value("--book");
    if (ctx.book_path.empty())
      ctx.book_path = "book.vcf";
    chosen->run(ctx);
    return exit_ok;
  } catch (const phone_error& e) {
    err << "phone: " << e.what() << "\n";
    if (e.code == exit_usage)
      err << "(see phone " << name << " --help)\n";
    return e.code;
  }
}

} // namespace simsync::phone
