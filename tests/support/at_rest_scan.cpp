#include "tests/support/at_rest_scan.hpp"

#include "core/digest.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace simsync::testing {

namespace {

/// ASCII letters folded to lower case; other bytes (UTF-8 included) as they are.
std::string folded(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// `text` with every byte that is not printable ASCII as \xNN.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out += c;
    else
      out += "\\x" + core::hex({&c, 1});
  }
  return out;
}

/// The bytes around [at, at + size) of `text`.
std::string around(std::string_view text, std::size_t at, std::size_t size) {
  constexpr std::size_t margin = 32;
  auto from = at > margin ? at - margin : 0;
  return printable(text.substr(from, size + (at - from) + margin));
}

bool is_ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// Whether no letter or digit touches [at, at + size) of `text`.
bool stands_alone(std::string_view text, std::size_t at, std::size_t size) {
  return (at == 0 || !is_ascii_alnum(text[at - 1])) &&
         (at + size == text.size() || !is_ascii_alnum(text[at + size]));
}

/// Finds needles in texts, each text named by where it is.
class matcher {
public:
  explicit matcher(const std::vector<needle>& needles) : needles_(needles) {
    for (const auto& n : needles)
      folded_.push_back(folded(n.text));
  }

  void check(std::string_view text, const std::string& where) {
    auto haystack = folded(text);
    for (std::size_t i = 0; i < needles_.size(); ++i) {
      if (folded_[i].empty())
        continue;
      std::size_t at = std::string::npos;
      std::size_t count = 0;
      for (auto next = haystack.find(folded_[i]); next != std::string::npos;
           next = haystack.find(folded_[i], next + 1)) {
        if (needles_[i].whole && !stands_alone(haystack, next, folded_[i].size()))
          continue;
        at = std::min(at, next);
        ++count;
      }
      if (count == 0)
        continue;
      found_.push_back(
          {needles_[i].category, needles_[i].text,
           count > 1 ? where + " (" + std::to_string(count) + " times)" : where,
           around(text, at, folded_[i].size())});
    }
  }

  std::vector<finding> take() { return std::move(found_); }

private:
  const std::vector<needle>& needles_;
  std::vector<std::string> folded_;
  std::vector<finding> found_;
};

store::reply call(store::redis_client& client, const store::command& cmd) {
  auto r = client.call(cmd);
  if (!r)
    throw std::runtime_error("Redis at " + client.endpoint().to_string() +
                             " failed: " + describe(r.error()));
  if (r->view().is_error())
    throw std::runtime_error("Redis at " + client.endpoint().to_string() + " refused " +
                             std::string(cmd.front()) + ": " +
                             std::string(r->view().str()));
  return std::move(*r);
}

/// Checks each element of a flat array reply: `label(i)` names element i.
template <class Label>
void check_elements(matcher& m, store::reply_view items, const std::string& key_where,
                    Label label) {
  for (std::size_t i = 0; i < items.size(); ++i)
    m.check(items[i].str(), key_where + " " + label(i, items));
}

/// Checks the value of `key` by its type.
void check_value(matcher& m, store::redis_client& client, const std::string& key,
                 const std::string& key_where) {
  auto type = std::string(call(client, {"TYPE", key}).view().str());
  auto field_or_value = [](std::size_t i, store::reply_view items) {
    return i % 2 == 0 ? "field name" : "field '" + printable(items[i - 1].str()) + "'";
  };
  if (type == "string") {
    m.check(call(client, {"GET", key}).view().str(), key_where + " value");
  } else if (type == "hash") {
    check_elements(m, call(client, {"HGETALL", key}).view(), key_where, field_or_value);
  } else if (type == "set") {
    check_elements(m, call(client, {"SMEMBERS", key}).view(), key_where,
                   [](std::size_t, store::reply_view) { return "member"; });
  } else if (type == "zset") {
    check_elements(m, call(client, {"ZRANGE", key, "0", "-1"}).view(), key_where,
                   [](std::size_t, store::reply_view) { return "member"; });
  } else if (type == "list") {
    check_elements(
        m, call(client, {"LRANGE", key, "0", "-1"}).view(), key_where,
        [](std::size_t i, store::reply_view) { return "element " + std::to_string(i); });
  } else if (type == "stream") {
    auto entries = call(client, {"XRANGE", key, "-", "+"});
    for (std::size_t e = 0; e < entries.view().size(); ++e) {
      auto entry = entries.view()[e];
      check_elements(m, entry[1], key_where + " entry " + std::string(entry[0].str()),
                     field_or_value);
    }
  } else if (type != "none") { // "none": gone since SCAN named it
    throw std::runtime_error("at_rest_scan cannot read " + key_where + " of type " +
                             type);
  }
}

/// CONFIG GET `name`'s value; empty when this Redis has no such setting.
std::string config_value(store::redis_client& client, const char* name) {
  auto r = call(client, {"CONFIG", "GET", name});
  return r.view().size() == 2 ? std::string(r.view()[1].str()) : std::string();
}

} // namespace

std::ostream& operator<<(std::ostream& os, const finding& f) {
  return os << f.category << " '" << f.needle << "' in " << f.where << ": ..."
            << f.context << "...";
}

std::vector<finding> scan_keyspace(store::redis_client& client, const std::string& server,
                                   const std::vector<needle>& needles) {
  matcher m{needles};
  std::string cursor = "0";
  do {
    auto page = call(client, {"SCAN", cursor, "COUNT", "1000"});
    cursor = std::string(page.view()[0].str());
    auto keys = page.view()[1];
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto key = std::string(keys[i].str());
      auto key_where = server + " key '" + printable(key) + "'";
      m.check(key, key_where + " name");
      check_value(m, client, key, key_where);
    }
  } while (cursor != "0");
  return m.take();
}

std::vector<std::filesystem::path> persistence_files(store::redis_client& client) {
  namespace fs = std::filesystem;
  fs::path dir = config_value(client, "dir");
  std::vector<fs::path> out;
  auto aof_dir = config_value(client, "appenddirname");
  if (!aof_dir.empty() && fs::is_directory(dir / aof_dir)) {
    for (const auto& entry : fs::directory_iterator(dir / aof_dir))
      if (entry.is_regular_file())
        out.push_back(entry.path());
  } else if (auto aof = dir / config_value(client, "appendfilename");
             fs::is_regular_file(aof)) {
    out.push_back(aof);
  }
  if (auto rdb = dir / config_value(client, "dbfilename"); fs::is_regular_file(rdb))
    out.push_back(rdb);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<finding> scan_file(const std::filesystem::path& file,
                               const std::vector<needle>& needles) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + file.string());
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  matcher m{needles};
  m.check(bytes, "file " + file.string());
  return m.take();
}

std::vector<finding> scan_at_rest(store::redis_client& client, const std::string& server,
                                  const std::vector<needle>& needles) {
  auto out = scan_keyspace(client, server, needles);
  for (const auto& file : persistence_files(client)) {
    auto in_file = scan_file(file, needles);
    for (auto& f : in_file)
      f.where = server + " " + f.where;
    out.insert(out.end(), in_file.begin(), in_file.end());
  }
  return out;
}

} // namespace simsync::testing
