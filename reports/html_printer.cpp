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
.SKIP{color:#777}code,pre{background:#f4f4f4;padding:2px 4px}pre{white-space:pre-wrap})";

}  // namespace

std::string HtmlPrinter::render() const {
  const auto esc = [](const std::string& s) { return escape_markup(s); };
  const size_t failed = failing();
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>atomstress fuzz</title>\n<style>"
    << kStyle << "</style></head><body>\n";
  h << "<h1>atomstress fuzz: " << failed << " of " << entries_.size() << " entries failing</h1>\n";
  h << "<p>" << esc(header_.timestamp) << ", atomstress " << esc(header_.version)
    << (header_.git_revision.empty() ? "" : " (" + esc(header_.git_revision) + ")") << ", backend "
    << to_string(header_.backend) << ", device " << esc(header_.device)
    << (header_.driver.empty() ? "" : ", driver " + esc(header_.driver)) << "</p>\n";
  h << "<table><tr><th>entry</th><th>verdict</th><th>trials</th><th>ops</th><th>fuzzed (s)</th>"
       "<th>time to catch (s)</th><th>shrunk case</th></tr>\n";
  for (const auto& e : entries_) {
    const std::string verdict = e.skipped ? "SKIP" : to_string(e.verdict);
    h << "<tr><td><code>" << esc(e.impl) << "</code></td><td class=\"" << verdict << "\">" << verdict
      << "</td><td class=\"n\">" << e.trials << "</td><td class=\"n\">" << e.ops << "</td><td class=\"n\">"
      << fixed(e.seconds) << "</td><td class=\"n\">" << (e.failed() ? fixed(e.time_to_catch_s) : "")
      << "</td><td>" << esc(e.failed() ? e.spec : e.skipped ? e.skip_why : "") << "</td></tr>\n";
  }
  h << "</table>\n";
  for (const auto& e : entries_) {
    if (!e.failed() || e.skipped) continue;
    h << "<h2><code>" << esc(e.impl) << "</code>: <span class=\"" << to_string(e.verdict) << "\">"
      << to_string(e.verdict) << "</span> (" << esc(e.origin) << ")</h2>\n";
    h << "<p>" << esc(e.why) << "</p>\n<p>The shrunk case " << esc(shrunk_rate(e)) << ".</p>\n";
    h << "<pre>" << esc(repro_command(e.token, e.backend)) << "</pre>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace atomstress::reports
