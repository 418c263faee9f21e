// docs/openapi.json, the description of the terminal API, against the code:
// it is a well-formed OpenAPI 3.1 document of this version of simsync (every
// operation named, every $ref and path parameter resolved), and its
// "METHOD /path" pairs are exactly the routes the gateway's table serves.
// Each check lists what it finds wrong; the last tests break a copy of the
// document to show that each one does find it.
#include "net/terminal_gateway.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace simsync::net {
namespace {

using nlohmann::json;
using findings = std::vector<std::string>;

/// The operations a path item may hold (OpenAPI 3.1 §4.8.9).
const char* const http_methods[] = {"get",     "put",  "post",  "delete",
                                    "options", "head", "patch", "trace"};

json load_document() {
  std::ifstream in(SIMSYNC_OPENAPI_FILE);
  return json::parse(in, nullptr, false);
}

const json& document() {
  static const json doc = load_document();
  return doc;
}

std::string upper(std::string text) {
  for (auto& c : text)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string listed(const findings& found) {
  std::string out;
  for (const auto& f : found)
    out += "\n  " + f;
  return out;
}

/// Calls f(path, method, operation) for every operation of the document.
template <class F> void for_each_operation(const json& doc, F f) {
  if (!doc.contains("paths") || !doc["paths"].is_object())
    return;
  for (const auto& [path, item] : doc["paths"].items())
    for (const char* method : http_methods)
      if (item.contains(method))
        f(path, std::string(method), item[method]);
}

/// Every operation has an operationId of its own, a summary and a response.
findings unnamed_operations(const json& doc) {
  findings found;
  std::set<std::string> ids;
  for_each_operation(
      doc, [&](const std::string& path, const std::string& method, const json& op) {
        auto where = upper(method) + " " + path;
        auto id = op.value("operationId", json());
        if (!id.is_string() || id.get<std::string>().empty())
          found.push_back(where + ": no operationId");
        else if (!ids.insert(id.get<std::string>()).second)
          found.push_back(where + ": operationId " + id.get<std::string>() +
                          " is another operation's too");
        auto summary = op.value("summary", json());
        if (!summary.is_string() || summary.get<std::string>().empty())
          found.push_back(where + ": no summary");
        auto responses = op.value("responses", json());
        if (!responses.is_object() || responses.empty())
          found.push_back(where + ": no response");
      });
  return found;
}

/// Every "$ref" is a JSON pointer ("#/...") to a value of this document:
/// nothing outside the repository is referred to.
void collect_unresolved(const json& doc, const json& node, const std::string& at,
                        findings& found) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "$ref") {
        auto target = value.is_string() ? value.get<std::string>() : std::string();
        bool resolves = false;
        if (target.rfind("#/", 0) == 0) {
          try {
            resolves = doc.contains(json::json_pointer(target.substr(1)));
          } catch (const json::exception&) {
          }
        }
        if (!resolves)
          found.push_back(at + ": $ref " + value.dump() + " resolves to nothing here");
      } else {
        collect_unresolved(doc, value, at + "/" + key, found);
      }
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      collect_unresolved(doc, node[i], at + "/" + std::to_string(i), found);
  }
}

findings unresolved_refs(const json& doc) {
  findings found;
  collect_unresolved(doc, doc, "#", found);
  return found;
}

/// A parameter as written, or what its $ref points to.
json resolved(const json& doc, const json& parameter) {
  if (!parameter.contains("$ref") || !parameter["$ref"].is_string())
    return parameter;
  auto target = parameter["$ref"].get<std::string>();
  try {
    if (target.rfind("#/", 0) == 0)
      return doc.value(json::json_pointer(target.substr(1)), json::object());
  } catch (const json::exception&) {
  }
  return json::object();
}

/// Each {name} of a path template is a required path parameter of every
/// operation on it (declared on the path item or the operation), and each
/// path parameter declared names one of them.
findings undeclared_path_parameters(const json& doc) {
  findings found;
  static const std::regex template_name{R"(\{([^}/]+)\})"};
  for_each_operation(doc, [&](const std::string& path, const std::string& method,
                              const json& op) {
    auto where = upper(method) + " " + path;
    std::set<std::string> in_template;
    for (std::sregex_iterator it(path.begin(), path.end(), template_name), end; it != end;
         ++it)
      in_template.insert((*it)[1]);
    std::set<std::string> declared;
    for (const json* list : {&doc["paths"][path], &op}) {
      if (!list->contains("parameters") || !(*list)["parameters"].is_array())
        continue;
      for (const auto& raw : (*list)["parameters"]) {
        auto p = resolved(doc, raw);
        if (p.value("in", "") != "path")
          continue;
        auto name = p.value("name", "");
        if (!in_template.count(name))
          found.push_back(where + ": path parameter '" + name + "' is not in the path");
        else if (p.value("required", false) != true)
          found.push_back(where + ": path parameter '" + name + "' is not required");
        declared.insert(name);
      }
    }
    for (const auto& name : in_template)
      if (!declared.count(name))
        found.push_back(where + ": {" + name + "} is not declared as a path parameter");
  });
  return found;
}

std::set<std::string> documented_routes(const json& doc) {
  std::set<std::string> routes;
  for_each_operation(doc,
                     [&](const std::string& path, const std::string& method,
                         const json&) { routes.insert(upper(method) + " " + path); });
  return routes;
}

/// The routes served and not documented, and those documented and not served.
findings route_differences(const json& doc, const std::vector<std::string>& served) {
  findings found;
  auto documented = documented_routes(doc);
  std::set<std::string> serving(served.begin(), served.end());
  for (const auto& route : serving)
    if (!documented.count(route))
      found.push_back("missing from docs/openapi.json: " + route);
  for (const auto& route : documented)
    if (!serving.count(route))
      found.push_back("documented but not served by the gateway: " + route);
  return found;
}

// -- the document -------------------------------------------------------------

/// A document that cannot be read fails every test rather than passing the
/// checks that would find nothing in it.
struct openapi : ::testing::Test {
  void SetUp() override {
    ASSERT_TRUE(document().is_object())
        << SIMSYNC_OPENAPI_FILE << " is missing or not a JSON object";
  }
};

TEST_F(openapi, is_an_openapi_3_1_0_document) {
  EXPECT_EQ(document().value("openapi", json()), "3.1.0");
}

TEST_F(openapi, names_the_api_and_the_project_version) {
  auto info = document().value("info", json::object());
  auto title = info.value("title", json());
  EXPECT_TRUE(title.is_string() && !title.get<std::string>().empty())
      << "info.title: " << title;
  EXPECT_EQ(info.value("version", json()), std::string(SIMSYNC_PROJECT_VERSION))
      << "info.version must be the version of the top CMakeLists.txt";
}

TEST_F(openapi, every_operation_has_an_id_of_its_own_a_summary_and_a_response) {
  ASSERT_FALSE(documented_routes(document()).empty()) << "no operation at all";
  auto found = unnamed_operations(document());
  EXPECT_TRUE(found.empty()) << listed(found);
}

TEST_F(openapi, every_ref_resolves_inside_the_document) {
  auto found = unresolved_refs(document());
  EXPECT_TRUE(found.empty()) << listed(found);
}

TEST_F(openapi, every_path_template_parameter_is_declared) {
  auto found = undeclared_path_parameters(document());
  EXPECT_TRUE(found.empty()) << listed(found);
}

TEST_F(openapi, describes_exactly_the_routes_the_gateway_serves) {
  auto served = terminal_route_names();
  ASSERT_FALSE(served.empty());
  EXPECT_EQ(std::set<std::string>(served.begin(), served.end()).size(), served.size())
      << "the gateway's table names a route twice";
  auto found = route_differences(document(), served);
  EXPECT_TRUE(found.empty()) << listed(found);
}

// -- the checks find what they look for ----------------------------------------

using openapi_checks = openapi;

bool mentions(const findings& found, const std::string& text) {
  return std::any_of(found.begin(), found.end(), [&](const std::string& f) {
    return f.find(text) != std::string::npos;
  });
}

TEST_F(openapi_checks, find_a_route_left_out_and_one_not_served) {
  auto doc = document();
  ASSERT_TRUE(doc["paths"]["/v1/register"].contains("post"));
  doc["paths"]["/v1/register"].erase("post");
  doc["paths"]["/v1/lines/{msisdn}/history"]["patch"] = {
      {"operationId", "patchHistory"}, {"summary", "x"}, {"responses", {{"200", {}}}}};
  auto found = route_differences(doc, terminal_route_names());
  EXPECT_TRUE(mentions(found, "missing from docs/openapi.json: POST /v1/register"))
      << listed(found);
  EXPECT_TRUE(mentions(found, "not served by the gateway: PATCH "
                              "/v1/lines/{msisdn}/history"))
      << listed(found);
}

TEST_F(openapi_checks, find_an_operation_without_id_summary_or_response) {
  auto doc = document();
  auto& get = doc["paths"]["/v1/lines/{msisdn}/contacts"]["get"];
  auto& put = doc["paths"]["/v1/lines/{msisdn}/contacts"]["put"];
  put["operationId"] = get["operationId"];
  get.erase("summary");
  put["responses"] = json::object();
  auto found = unnamed_operations(doc);
  EXPECT_TRUE(mentions(found, "is another operation's too")) << listed(found);
  EXPECT_TRUE(mentions(found, "GET /v1/lines/{msisdn}/contacts: no summary"))
      << listed(found);
  EXPECT_TRUE(mentions(found, "PUT /v1/lines/{msisdn}/contacts: no response"))
      << listed(found);
}

TEST_F(openapi_checks, find_a_ref_to_nothing_or_outside_the_document) {
  auto doc = document();
  doc["components"]["schemas"]["Extra"] = {{"$ref", "#/components/schemas/Nowhere"}};
  doc["components"]["schemas"]["Remote"] = {{"$ref", "https://example.org/x.json"}};
  auto found = unresolved_refs(doc);
  EXPECT_TRUE(mentions(found, "Nowhere")) << listed(found);
  EXPECT_TRUE(mentions(found, "example.org")) << listed(found);
}

TEST_F(openapi_checks, find_a_path_parameter_not_declared_or_not_in_the_path) {
  auto doc = document();
  auto& del = doc["paths"]["/v1/lines/{msisdn}/contacts/{uid}"]["delete"];
  auto& params = del["parameters"];
  params.erase(std::remove_if(params.begin(), params.end(),
                              [&](const json& p) {
                                return resolved(doc, p).value("name", "") == "uid";
                              }),
               params.end());
  params.push_back({{"name", "id"}, {"in", "path"}, {"required", true}});
  auto found = undeclared_path_parameters(doc);
  EXPECT_TRUE(mentions(found, "{uid} is not declared")) << listed(found);
  EXPECT_TRUE(mentions(found, "'id' is not in the path")) << listed(found);
}

} // namespace
} // namespace simsync::net
