#include "harness/cli/options.hpp"

#include <fmt/format.h>

#include "reports/terminal.hpp"

#include "harness/pipeline/sanitizer.hpp"
#include "harness/support/one_line.hpp"
#include "harness/registry/registry.hpp"

#include <optional>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace po = boost::program_options;

namespace atomstress::cli {

std::optional<double> parse_seconds(std::string_view text, double max, std::string& why, double min) {
  const std::string range =
      min > 0 ? fmt::format("(at least {:g}, at most {:g})", min, max) : fmt::format("(more than 0, at most {:g})", max);
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
  if (!std::isfinite(v) || v <= 0 || v < min || v > max) {
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
  const auto v = parse_seconds(token, max_, why, min_);
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

// The one reading of on|off|auto: on is true, off false, and auto (where
// `auto_means` is set) that value; nullopt with `why` otherwise.
std::optional<bool> parse_switch(const std::string& token, std::optional<bool> auto_means, std::string& why) {
  if (token == "on" || token == "off") return token == "on";
  if (token == "auto" && auto_means) return *auto_means;
  why = auto_means ? "is not on, off or auto" : "is not on or off";
  return std::nullopt;
}

// A switch spelled on|off.
class SwitchValue : public po::typed_value<bool> {
 public:
  explicit SwitchValue(bool* store) : po::typed_value<bool>(store) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    std::string why;
    const auto on = parse_switch(token, std::nullopt, why);
    if (!on) throw bad_number(token, why);
    out = *on;
  }
};

}  // namespace

po::typed_value<bool>* on_off(bool* store, bool default_on) {
  auto* v = new SwitchValue(store);
  v->default_value(default_on, default_on ? "on" : "off");
  return v;
}

namespace {

// A run setting's value: parsed by the table's form, stored through its setter.
class SettingValue : public po::typed_value<uint64_t> {
 public:
  explicit SettingValue(const RunSetting& s) : po::typed_value<uint64_t>(nullptr), setting_(s) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    std::string why;
    std::optional<uint64_t> v;
    switch (setting_.form) {
      case SettingForm::Count: v = parse_unsigned(token, setting_.lo, setting_.hi, why); break;
      case SettingForm::OnOffAuto:
        if (const auto on = parse_switch(token, true, why)) v = *on;  // auto is on
        break;
      case SettingForm::Checker:
        if (const auto c = parse_checker(token)) v = uint64_t(*c);
        else why = "is not auto, cpu, gpu or both";
        break;
    }
    if (!v) throw bad_number(token, why);
    out = *v;
  }

 private:
  const RunSetting& setting_;
};

}  // namespace

void add_run_settings(po::options_description& desc, RunCommand command, RunOptions& run) {
  for (const RunSetting& s : run_settings()) {
    if (!(s.commands & command)) continue;
    auto* value = new SettingValue(s);
    // An on|off|auto setting defaults to auto (which is on); the others to `run`'s value.
    if (s.form == SettingForm::OnOffAuto) value->default_value(1, "auto");
    else value->default_value(s.get(run), setting_text(s, s.get(run)));
    value->notifier([&run, &s](uint64_t v) { s.set(run, v); });
    desc.add_options()(s.option, value, s.help);
  }
}

void keep_given_settings(const po::variables_map& vm, const RunOptions& given, RunOptions& run) {
  for (const RunSetting& s : run_settings())
    if (vm.count(s.option) && !vm[s.option].defaulted()) s.set(run, s.get(given));
}

void add_sanitize_option(po::options_description& desc, std::string& tool) {
  desc.add_options()(
      "sanitize", po::value<std::string>(&tool),
      "memcheck, racecheck or synccheck: run each trial's worker under NVIDIA compute-sanitizer with that tool "
      "(cuda only, one worker per trial, 10-100x slower) and make its report the failure's explanation: reads and "
      "writes past a buffer (bounds), shared-memory races and barrier misuse (atomicity). Not part of a token");
}

bool apply_sanitize_option(const std::string& tool, BackendKind backend, RunOptions& run, std::string& error) {
  if (tool.empty() || tool == "none") return true;
  const auto t = parse_sanitize_tool(tool);
  if (!t) {
    error = "--sanitize '" + tool + "' is not memcheck, racecheck or synccheck";
    return false;
  }
  if (backend != BackendKind::Cuda) {
    error = "--sanitize runs compute-sanitizer on CUDA kernels: it needs --backend cuda";
    return false;
  }
  if (!run.policy.isolate) {
    error = "--sanitize runs each trial's worker under the tool: it needs --isolate on";
    return false;
  }
  if (sanitizer::locate(error).empty()) return false;
  run.policy.sanitize = *t;
  return true;
}

ReportOptions::ReportOptions(reports::ReportCommand c) : command(c), values(reports::report_formats().size()) {}

reports::ReportRequest ReportOptions::request() const {
  reports::ReportRequest r;
  const auto formats = reports::report_formats();
  for (size_t i = 0; i < formats.size(); ++i)
    if (!values[i].empty()) r.emplace_back(&formats[i], values[i]);
  return r;
}

void add_report_options(po::options_description& desc, ReportOptions& o) {
  const auto formats = reports::report_formats();
  for (size_t i = 0; i < formats.size(); ++i)
    if (formats[i].commands & o.command) desc.add_options()(formats[i].option, non_empty(&o.values[i]), formats[i].help);
}

reports::RunHeader run_header(const std::string& command_line, BackendKind backend) {
  reports::RunHeader h;
  h.command_line = command_line;
  h.backend = backend;
  h.device = backend == BackendKind::Cuda ? cuda_device_name() : "host";
  return h;
}

void add_backend_options(po::options_description& desc, std::string& backend, bool& skip_without_gpu) {
  desc.add_options()("backend", po::value<std::string>(&backend)->default_value(backend), "cuda, cpu or auto")(
      "skip-without-gpu", po::bool_switch(&skip_without_gpu),
      "exit 77 when no GPU is usable (with --backend cuda or auto)");
}

bool skip_for_missing_gpu(const std::string& backend, bool skip_without_gpu, std::string& note) {
  if (!skip_without_gpu || (backend != "cuda" && backend != "auto")) return false;
  std::string why;
  if (cuda_available(why)) return false;
  note = "no usable GPU (" + why + "): skipped";
  return true;
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> v;
  if (s.empty()) return v;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    v.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return v;
}

bool refuse_empty_items(const std::vector<std::string>& items, const std::string& option, const std::string& list,
                        const char* what, std::string& error) {
  const size_t empty = size_t(std::count(items.begin(), items.end(), std::string()));
  if (empty == 0) return false;
  error = empty == items.size() ? "--" + option + " '" + list + "' names no " + what
                                : "--" + option + " '" + list + "' has an empty item (a stray comma?)";
  return true;
}

bool select_entries(const std::string& list, const char* option, std::vector<const Entry*>& out, std::string& error) {
  const auto names = split_commas(list);
  if (names.empty()) {
    error = std::string("--") + option + " '" + list + "' names no implementation";
    return false;
  }
  if (refuse_empty_items(names, option, list, "implementation", error)) return false;
  for (const auto& name : names) {
    const auto matched = match_impls(name);
    if (matched.empty()) {
      error = "unknown implementation '" + name + "' (see 'atomstress list')";
      return false;
    }
    for (const Entry* e : matched)
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return true;
}

namespace {
// "--trials -1" joined as "--trials=-1" where --trials takes a value: Boost
// reads "-1" as an option ("unrecognised option '-1'"), and the number's
// own parser should say why a negative value is refused.
std::vector<std::string> joined_negative_values(const std::vector<std::string>& args, const po::options_description& desc) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takes_value = [&] {
      if (a.size() < 3 || a.rfind("--", 0) != 0 || a.find('=') != std::string::npos) return false;
      const po::option_description* d = desc.find_nothrow(a.substr(2), false);
      return d != nullptr && d->semantic()->max_tokens() > 0;
    }();
    const bool negative_next = i + 1 < args.size() && args[i + 1].size() > 1 && args[i + 1][0] == '-' &&
                               (std::isdigit(static_cast<unsigned char>(args[i + 1][1])) || args[i + 1][1] == '.');
    if (takes_value && negative_next) {
      out.push_back(a + "=" + args[++i]);
      continue;
    }
    out.push_back(a);
  }
  return out;
}
}  // namespace

po::variables_map parse_command(const std::vector<std::string>& args, const po::options_description& desc,
                                const po::positional_options_description* positional) {
  // Boost guesses "--trial" means "--trials" by default: a typo would run
  // something the user did not ask for.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  po::command_line_parser parser(joined_negative_values(args, desc));
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
  reports::print_to(stderr, "atomstress: error: {}\n", one_line(msg));  // one line, whatever the input held
  return 2;
}

}  // namespace atomstress::cli
