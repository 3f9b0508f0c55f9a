#include "reports/html_printer.hpp"

#include <cstdio>
#include <sstream>

#include "reports/markup.hpp"
#include "reports/repro_command.hpp"

namespace atomstress::reports {

namespace {
constexpr const char* kStyle = R"(body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.PASS{color:#070}.FAIL,.HANG,.CRASH,.ERROR{color:#b00;font-weight:bold}
.SKIP{color:#777}code,pre{background:#f4f4f4;padding:2px 4px}pre{white-space:pre-wrap;margin:0}
.failure{border-left:4px solid #b00;padding:0 1em;margin:1em 0}.failure:target{background:#fff4f4}
dl{display:grid;grid-template-columns:max-content auto;gap:4px 1em}dt{font-weight:bold}dd{margin:0}
h2.fn{margin-top:1.5em;border-bottom:1px solid #ccc})";

}  // namespace

std::string HtmlPrinter::render() const {
  const auto esc = [](const std::string& s) { return escape_markup(s); };
  const size_t failed = failing();
  const auto order = ordered();
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>atomstress fuzz</title>\n<style>"
    << kStyle << "</style></head><body>\n";
  h << "<h1>atomstress fuzz: " << failed << " of " << entries_.size() << " entries failing</h1>\n";
  h << "<p>" << esc(header_.timestamp) << ", atomstress " << esc(header_.version)
    << (header_.git_revision.empty() ? "" : " (" + esc(header_.git_revision) + ")") << ", backend "
    << to_string(header_.backend) << ", device " << esc(header_.device)
    << (header_.driver.empty() ? "" : ", driver " + esc(header_.driver)) << "</p>\n";
  h << "<p>" << esc(busy()) << "</p>\n";
  // The summary: what failed first (each row a link to its failure below),
  // then the passes, then the skips.
  h << "<table><tr><th>entry</th><th>verdict</th><th>class</th><th>trials</th><th>ops</th><th>fuzzed (s)</th>"
       "<th>time to catch (s)</th><th>shrunk case</th></tr>\n";
  for (const FuzzEntryResult* p : order) {
    const auto& e = *p;
    const bool fail = e.failed() && !e.skipped;
    const std::string verdict = e.skipped ? "SKIP" : to_string(e.verdict);
    h << "<tr><td>" << (fail ? "<a href=\"#" + esc(anchor(e.impl)) + "\">" : "") << "<code>" << esc(e.impl)
      << "</code>" << (fail ? "</a>" : "") << "</td><td class=\"" << verdict << "\">" << verdict << "</td><td>"
      << (e.cls != FailureClass::None ? to_string(e.cls) : "") << "</td><td class=\"n\">" << e.trials
      << "</td><td class=\"n\">" << e.ops << "</td><td class=\"n\">" << fixed(e.seconds) << "</td><td class=\"n\">"
      << (e.failed() ? fixed(e.time_to_catch_s) : "") << "</td><td>"
      << esc(e.failed() ? e.spec : e.skipped ? e.skip_why : "") << "</td></tr>\n";
  }
  h << "</table>\n";
  // Each failure, grouped by the user's function (an atomic with its pairings).
  std::string group;
  for (const FuzzEntryResult* p : order) {
    const auto& e = *p;
    if (!e.failed() || e.skipped) continue;
    if (function_of(e.impl) != group || group.empty()) {
      group = function_of(e.impl);
      h << "<h2 class=\"fn\">function <code>" << esc(group) << "</code>: " << esc(group_note(group)) << "</h2>\n";
    }
    h << "<div class=\"failure\" id=\"" << esc(anchor(e.impl)) << "\">\n<h3><code>" << esc(e.impl)
      << "</code>: <span class=\"" << to_string(e.verdict) << "\">" << to_string(e.verdict) << "</span>"
      << (e.cls != FailureClass::None ? std::string(", ") + to_string(e.cls) : "") << " (" << esc(e.origin)
      << ")</h3>\n<dl>\n";
    if (e.cls != FailureClass::None)
      h << "<dt>class</dt><dd><b>" << to_string(e.cls) << "</b>: " << esc(describe(e.cls)) << "</dd>\n";
    h << "<dt>cause</dt><dd>" << esc(cause(e).empty() ? headline(e) : cause(e)) << "</dd>\n";
    if (!e.spec.empty())
      h << "<dt>shrunk case</dt><dd><code>" << esc(e.spec) << "</code>; it " << esc(shrunk_rate(e)) << "</dd>\n";
    if (!e.token.empty())
      h << "<dt>repro</dt><dd><pre>" << esc(repro_command(e.token, e.backend)) << "</pre></dd>\n";
    h << "</dl>\n</div>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace atomstress::reports
