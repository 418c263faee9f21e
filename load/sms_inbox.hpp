#pragma once
// The registration codes a carrier's development SMS gateway ([sms] kind =
// "file") texts, read from its nodes' <data_dir>/sms.ndjson files as they
// grow: each refresh reads only what was appended since the last, so
// registering thousands of lines never reads a file twice.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace simsync::load {

class sms_inbox {
public:
  /// Watches `files` (they may not exist yet); what they already hold is
  /// old news and never read.
  explicit sms_inbox(std::vector<std::string> files);

  /// Reads the messages appended since the last refresh.
  void refresh();
  /// The code of the newest message to `msisdn` read so far, which it
  /// forgets; empty when none has come in since it was last taken.
  std::string take(const std::string& msisdn);

  std::uint64_t messages() const { return messages_; }

private:
  struct file {
    std::string path;
    std::uint64_t offset = 0;
    std::string partial; ///< the start of a line still being written
  };
  void read_line(const std::string& line);

  std::vector<file> files_;
  std::unordered_map<std::string, std::string> codes_;
  std::uint64_t messages_ = 0;
};

/// The code in a message's text: its first run of exactly 6 digits that is a
/// word of its own (regex \b(\d{6})\b); empty when there is none.
std::string code_in(const std::string& text);

} // namespace simsync::load
