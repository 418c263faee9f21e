#pragma once

// HTTP reason phrases (RFC 9110) of the statuses the terminal API answers.
// Header-only and dependency-free: the gateway writes them, and the phone
// shows them next to a refusal without linking the server.

namespace simsync::net {

inline const char* reason_phrase(int status) {
  switch (status) {
  case 200:
    return "OK";
  case 201:
    return "Created";
  case 202:
    return "Accepted";
  case 204:
    return "No Content";
  case 304:
    return "Not Modified";
  case 400:
    return "Bad Request";
  case 401:
    return "Unauthorized";
  case 403:
    return "Forbidden";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 409:
    return "Conflict";
  case 410:
    return "Gone";
  case 412:
    return "Precondition Failed";
  case 413:
    return "Content Too Large";
  case 415:
    return "Unsupported Media Type";
  case 422:
    return "Unprocessable Content";
  case 429:
    return "Too Many Requests";
  case 500:
    return "Internal Server Error";
  case 501:
    return "Not Implemented";
  case 503:
    return "Service Unavailable";
  case 504:
    return "Gateway Timeout";
  default:
    return status < 300   ? "Success"
           : status < 400 ? "Redirection"
           : status < 500 ? "Client Error"
                          : "Server Error";
  }
}

} // namespace simsync::net
