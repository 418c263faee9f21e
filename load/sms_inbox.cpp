#include "load/sms_inbox.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>

namespace simsync::load {

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

} // namespace

std::string code_in(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!word_char(text[i])) {
      ++i;
      continue;
    }
    auto start = i;
    bool digits = true;
    for (; i < text.size() && word_char(text[i]); ++i)
      digits = digits && std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (digits && i - start == 6)
      return text.substr(start, 6);
  }
  return "";
}

sms_inbox::sms_inbox(std::vector<std::string> files) {
  for (auto& path : files) {
    std::error_code error;
    auto size = std::filesystem::file_size(path, error);
    files_.push_back({std::move(path), error ? 0 : size, ""});
  }
}

void sms_inbox::refresh() {
  for (auto& f : files_) {
    std::error_code error;
    auto size = std::filesystem::file_size(f.path, error);
    if (error)
      continue;
    if (size < f.offset) { // a new file (the deployment's data was removed)
      f.offset = 0;
      f.partial.clear();
    }
    if (size == f.offset)
      continue;
    std::ifstream in(f.path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(f.offset));
    std::string chunk(size - f.offset, '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<std::size_t>(in.gcount()));
    f.offset += chunk.size();
    f.partial += chunk;
    std::size_t start = 0;
    for (auto end = f.partial.find('\n'); end != std::string::npos;
         end = f.partial.find('\n', start)) {
      read_line(f.partial.substr(start, end - start));
      start = end + 1;
    }
    f.partial.erase(0, start);
  }
}

void sms_inbox::read_line(const std::string& line) {
  auto message = nlohmann::json::parse(line, nullptr, false);
  if (!message.is_object() || !message.contains("to") || !message["to"].is_string() ||
      !message.contains("text") || !message["text"].is_string())
    return;
  auto code = code_in(message["text"].get<std::string>());
  if (code.empty())
    return;
  ++messages_;
  codes_[message["to"].get<std::string>()] = code; // a newer code replaces an older
}

std::string sms_inbox::take(const std::string& msisdn) {
  auto it = codes_.find(msisdn);
  if (it == codes_.end())
    return "";
  auto code = std::move(it->second);
  codes_.erase(it);
  return code;
}

} // namespace simsync::load
