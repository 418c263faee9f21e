#pragma once

// Reading a request's body and fields in a handler. Each reader answers the
// request itself (400, 415) when the input is not what it asks for, and
// returns nothing: the handler then just returns.

#include "net/exchange.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace simsync::net {

/// The request's media type: Content-Type without parameters, lower-cased.
std::string media_type(const exchange& ex);

/// A JSON object body, or nullopt after answering 415, 413 (larger than
/// limits().max_json_bytes, not parsed) or 400. A JSON body may come without
/// a Content-Type; with one, it must be JSON.
std::optional<nlohmann::json> json_body(const exchange_ptr& ex);

/// The query parameters, or nullopt after answering 400.
std::optional<restinio::query_string_params_t> query_of(const exchange_ptr& ex);

/// Query parameter `name`, or nullopt when absent.
std::optional<std::string_view> query_value(const restinio::query_string_params_t& q,
                                            std::string_view name);

/// An optional whole-number query parameter from `min` to `max` (absent:
/// `fallback`), or nullopt after answering 400.
std::optional<std::uint64_t> count_param(const exchange_ptr& ex,
                                         const restinio::query_string_params_t& q,
                                         std::string_view name, std::uint64_t fallback,
                                         std::uint64_t min, std::uint64_t max);

/// A string member, or nullopt after answering 400 naming it.
std::optional<std::string>
string_field(const exchange_ptr& ex, const nlohmann::json& body, const std::string& name);

} // namespace simsync::net
