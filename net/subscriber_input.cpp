#include "net/subscriber_input.hpp"

#include <algorithm>

namespace simsync::net {

namespace {

/// A string member, or an error naming it.
std::optional<std::string> text_of(const nlohmann::json& record, const char* name,
                                   std::string& error) {
  auto it = record.find(name);
  if (it == record.end() || !it->is_string()) {
    error =
        std::string(name) + ": " + (it == record.end() ? "missing" : "must be a string");
    return std::nullopt;
  }
  return it->get<std::string>();
}

/// The lines of a body, without their line ends.
std::vector<std::string_view> lines_of(std::string_view body) {
  std::vector<std::string_view> out;
  while (!body.empty()) {
    auto end = body.find('\n');
    auto line = body.substr(0, end);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    out.push_back(line);
    if (end == std::string_view::npos)
      break;
    body.remove_prefix(end + 1);
  }
  return out;
}

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t'; });
}

/// The fields of one CSV line; nullopt if a quote is left open. Quoted
/// fields spanning lines are not supported: no subscriber field has a line end.
std::optional<std::vector<std::string>> csv_fields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"' && out.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (quoted)
    return std::nullopt;
  return out;
}

/// Files one record's outcome under its line of the body.
void file_under(parsed_subscribers& out, std::size_t line, parsed_subscriber parsed) {
  if (parsed.input)
    out.inputs.push_back(std::move(*parsed.input));
  else
    out.errors.emplace_back(line, std::move(parsed.error));
}

/// A body with no record at all is an error too: an empty import is a mistake.
parsed_subscribers& not_empty(parsed_subscribers& out) {
  if (out.inputs.empty() && out.errors.empty())
    out.errors.emplace_back(1, "no subscriber records");
  return out;
}

} // namespace

parsed_subscriber parse_subscriber(const nlohmann::json& record,
                                   std::optional<std::string> path_msisdn) {
  parsed_subscriber out;
  if (!record.is_object()) {
    out.error = "a subscriber record must be a JSON object";
    return out;
  }
  subscriber_input in;
  if (path_msisdn) {
    in.msisdn = *path_msisdn;
    auto body_msisdn = record.find("msisdn");
    if (body_msisdn != record.end() && *body_msisdn != in.msisdn) {
      out.error = "msisdn: differs from the path's";
      return out;
    }
  } else if (auto m = text_of(record, "msisdn", out.error)) {
    in.msisdn = *m;
  } else {
    return out;
  }
  if (auto check = core::validate_msisdn(in.msisdn); !check.ok()) {
    out.error = "msisdn: " + check.reason;
    return out;
  }
  auto iccid = text_of(record, "iccid", out.error);
  if (!iccid)
    return out;
  if (auto check = core::validate_iccid(*iccid); !check.ok()) {
    out.error = "iccid: " + check.reason;
    return out;
  }
  in.iccid = *iccid;
  auto name = text_of(record, "name", out.error);
  if (!name)
    return out;
  auto id_number = text_of(record, "id_number", out.error);
  if (!id_number)
    return out;
  auto person = core::normalize_user_info(*name, *id_number);
  if (!person.info) {
    auto field = core::normalize_user_info(*name, "X").info ? "id_number" : "name";
    out.error = std::string(field) + ": " + person.error;
    return out;
  }
  if (auto check = core::validate_id_number(person.info->id_number); !check.ok()) {
    out.error = "id_number: " + check.reason;
    return out;
  }
  in.person = *person.info;
  if (auto active = record.find("active"); active != record.end()) {
    if (!active->is_boolean()) {
      out.error = "active: must be true or false";
      return out;
    }
    in.active = active->get<bool>();
  }
  out.input = std::move(in);
  return out;
}

parsed_subscribers parse_subscriber_ndjson(std::string_view body) {
  parsed_subscribers out;
  auto lines = lines_of(body);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (blank(lines[i]))
      continue;
    auto record = nlohmann::json::parse(lines[i], nullptr, false);
    if (record.is_discarded()) {
      out.errors.emplace_back(i + 1, "not a JSON object");
      continue;
    }
    file_under(out, i + 1, parse_subscriber(record));
  }
  return not_empty(out);
}

parsed_subscribers parse_subscriber_csv(std::string_view body) {
  parsed_subscribers out;
  auto lines = lines_of(body);
  auto header = lines.empty() ? std::nullopt : csv_fields(lines[0]);
  if (!header) {
    out.errors.emplace_back(
        1, "a header row naming msisdn,iccid,name,id_number is required");
    return out;
  }
  for (const char* needed : {"msisdn", "iccid", "name", "id_number"})
    if (std::find(header->begin(), header->end(), needed) == header->end()) {
      out.errors.emplace_back(1,
                              std::string("the header row has no ") + needed + " column");
      return out;
    }
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (blank(lines[i]))
      continue;
    auto fields = csv_fields(lines[i]);
    if (!fields || fields->size() != header->size()) {
      out.errors.emplace_back(
          i + 1, fields ? "has " + std::to_string(fields->size()) +
                              " fields; the header has " + std::to_string(header->size())
                        : std::string("a quoted field is not closed"));
      continue;
    }
    nlohmann::json record = nlohmann::json::object();
    std::string error;
    for (std::size_t k = 0; k < header->size(); ++k) {
      const auto& column = (*header)[k];
      const auto& value = (*fields)[k];
      if (column != "active") {
        record[column] = value;
      } else if (value == "true" || value == "1") {
        record[column] = true;
      } else if (value == "false" || value == "0") {
        record[column] = false;
      } else if (!value.empty()) {
        error = "active: must be true, false, 1 or 0";
      }
    }
    file_under(out, i + 1,
               error.empty() ? parse_subscriber(record) : parsed_subscriber{{}, error});
  }
  return not_empty(out);
}

} // namespace simsync::net
