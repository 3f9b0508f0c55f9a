#include "harness/cli/options.hpp"

#include <optional>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace po = boost::program_options;

namespace atomstress {

std::istream& operator>>(std::istream& in, CheckerKind& c) {
  std::string word;
  in >> word;
  if (const auto parsed = parse_checker(word)) c = *parsed;
  else in.setstate(std::ios::failbit);
  return in;
}
std::ostream& operator<<(std::ostream& out, CheckerKind c) { return out << to_string(c); }

}  // namespace atomstress

namespace atomstress::cli {

std::optional<double> parse_seconds(std::string_view text, double max, std::string& why) {
  char range[64];
  std::snprintf(range, sizeof range, "(more than 0, at most %g)", max);
  if (text.empty()) {
    why = std::string("is empty: give a number of seconds ") + range;
    return std::nullopt;
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    why = std::string("is not a number of seconds ") + range;
    return std::nullopt;
  }
  if (!std::isfinite(v) || v <= 0 || v > max) {
    why = std::string("is out of range ") + range;
    return std::nullopt;
  }
  return v;
}

bad_number::bad_number(const std::string& token, const std::string& why)
    : po::validation_error(po::validation_error::invalid_option_value) {
  // Boost fills in %canonical_option% when the error passes its parser.  The
  // token goes through %value% so that a '%' in it stays literal.
  m_error_template = "option '%canonical_option%': '%value%' " + why;
  set_substitute("value", token);
}

void SecondsValue::xparse(boost::any& out, const std::vector<std::string>& tokens) const {
  po::validators::check_first_occurrence(out);
  const std::string& token = po::validators::get_single_string(tokens);
  std::string why;
  const auto v = parse_seconds(token, max_, why);
  if (!v) throw bad_number(token, why);
  out = *v;
}

namespace {
class NonEmptyString : public po::typed_value<std::string> {
 public:
  using po::typed_value<std::string>::typed_value;
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    if (token.empty()) throw bad_number(token, "is empty");
    out = token;
  }
};
}  // namespace

po::typed_value<std::string>* non_empty(std::string* store) { return new NonEmptyString(store); }

namespace {
// on or off (and, where `auto_means` is set, auto: that value).
class SwitchValue : public po::typed_value<bool> {
 public:
  SwitchValue(bool* store, std::optional<bool> auto_means) : po::typed_value<bool>(store), auto_(auto_means) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    if (token == "on" || token == "off") out = token == "on";
    else if (token == "auto" && auto_) out = *auto_;
    else throw bad_number(token, auto_ ? "is not on, off or auto" : "is not on or off");
  }

 private:
  std::optional<bool> auto_;
};
}  // namespace

po::typed_value<bool>* isolation(bool* store) {
  auto* v = new SwitchValue(store, true);
  v->default_value(true, "auto");
  return v;
}

po::typed_value<bool>* on_off(bool* store, bool default_on) {
  auto* v = new SwitchValue(store, std::nullopt);
  v->default_value(default_on, default_on ? "on" : "off");
  return v;
}

namespace {
class CheckerValue : public po::typed_value<CheckerKind> {
 public:
  using po::typed_value<CheckerKind>::typed_value;
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    const auto c = parse_checker(token);
    if (!c) throw bad_number(token, "is not auto, cpu, gpu or both");
    out = *c;
  }
};
}  // namespace

po::typed_value<CheckerKind>* checker_kind(CheckerKind* store) {
  auto* v = new CheckerValue(store);
  v->default_value(CheckerKind::Auto, "auto");
  return v;
}

po::variables_map parse_command(const std::vector<std::string>& args, const po::options_description& desc,
                                const po::positional_options_description* positional) {
  // Boost guesses "--trial" means "--trials" by default: a typo would run
  // something the user did not ask for.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  po::command_line_parser parser(args);
  parser.options(desc).style(style);
  // Without a positional description every positional token is an error.
  po::positional_options_description none;
  parser.positional(positional ? *positional : none);
  po::variables_map vm;
  po::store(parser.run(), vm);
  po::notify(vm);
  return vm;
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "atomstress: error: %s\n", msg.c_str());
  return 2;
}

}  // namespace atomstress::cli
