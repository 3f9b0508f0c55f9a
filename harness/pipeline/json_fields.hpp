// Reading JSON records back (the worker protocol, fuzz's records): a field
// into its C++ type, or an enumerator through the parse of its to_string,
// keeping the first problem in `error` so that a run of reads checks once.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace atomstress::json_fields {

template <class T>
void read(const nlohmann::json& j, const char* key, T& out, std::string& error) {
  if (!error.empty()) return;
  try {
    j.at(key).get_to(out);
  } catch (const nlohmann::json::exception&) {
    error = std::string("missing or mistyped field '") + key + "'";
  }
}

template <class E, class Parse>
void read_enum(const nlohmann::json& j, const char* key, E& out, Parse parse, std::string& error) {
  std::string text;
  read(j, key, text, error);
  if (!error.empty()) return;
  if (const auto v = parse(text)) out = *v;
  else error = std::string("unknown ") + key + " '" + text + "'";
}

}  // namespace atomstress::json_fields
