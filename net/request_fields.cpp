#include "net/request_fields.hpp"

#include "net/whole_number.hpp"

#include <cctype>

namespace simsync::net {

std::optional<restinio::query_string_params_t> query_of(const exchange_ptr& ex) {
  auto parsed =
      restinio::try_parse_query<restinio::parse_query_traits::javascript_compatible>(
          ex->request().header().query());
  if (!parsed) {
    ex->fail(problem{400, "invalid-query", "The query string is malformed",
                     parsed.error().description()});
    return std::nullopt;
  }
  return std::move(*parsed);
}

std::optional<std::string_view> query_value(const restinio::query_string_params_t& q,
                                            std::string_view name) {
  if (!q.has(name))
    return std::nullopt;
  auto v = q[name];
  return std::string_view(v.data(), v.size());
}

std::optional<std::uint64_t> count_param(const exchange_ptr& ex,
                                         const restinio::query_string_params_t& q,
                                         std::string_view name, std::uint64_t fallback,
                                         std::uint64_t min, std::uint64_t max) {
  auto value = query_value(q, name);
  if (!value)
    return fallback;
  auto n = whole_number_in(*value, min, max);
  if (!n)
    ex->fail(bad_field(std::string(name), "must be a whole number from " +
                                              std::to_string(min) + " to " +
                                              std::to_string(max)));
  return n;
}

std::string media_type(const exchange& ex) {
  auto value = ex.request().header().get_field_or(restinio::http_field::content_type, "");
  auto type = value.substr(0, value.find(';'));
  while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back())))
    type.pop_back();
  for (auto& c : type)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return type;
}

std::optional<nlohmann::json> json_body(const exchange_ptr& ex) {
  auto type = media_type(*ex);
  if (!type.empty() && type != "application/json" &&
      (type.size() < 5 || type.compare(type.size() - 5, 5, "+json") != 0)) {
    ex->fail(problem{415, "unsupported-media-type", "The body must be JSON",
                     "Content-Type " + type + " is not application/json"});
    return std::nullopt;
  }
  auto limit = ex->ctx().limits.max_json_bytes;
  if (ex->body().size() > limit) {
    ex->fail(problem{413, "body-too-large", "The body is too large",
                     std::to_string(ex->body().size()) + " bytes of JSON; at most " +
                         std::to_string(limit)});
    return std::nullopt;
  }
  auto body = nlohmann::json::parse(ex->body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    ex->fail(problem{400, "malformed-json", "The body is not a JSON object",
                     "the request body must be a JSON object"});
    return std::nullopt;
  }
  return body;
}

std::optional<std::string> string_field(const exchange_ptr& ex,
                                        const nlohmann::json& body,
                                        const std::string& name) {
  auto it = body.find(name);
  if (it == body.end()) {
    ex->fail(bad_field(name, "missing"));
    return std::nullopt;
  }
  if (!it->is_string()) {
    ex->fail(bad_field(name, "must be a string"));
    return std::nullopt;
  }
  return it->get<std::string>();
}

} // namespace simsync::net
