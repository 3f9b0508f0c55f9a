#include "reports/junit_printer.hpp"

#include <fmt/format.h>
#include "reports/repro_command.hpp"

#include <cstdio>
#include <sstream>


namespace atomstress::reports {


namespace {
std::string seconds(double s) { return fmt::format("{:.3f}", s); }
}  // namespace

std::string JunitPrinter::render() const {
  size_t failures = 0, errors = 0, skipped = 0;
  double time = 0;
  for (const auto& e : entries_) {
    skipped += e.skipped;
    errors += !e.skipped && e.verdict == Verdict::Error;
    failures += !e.skipped && e.failed() && e.verdict != Verdict::Error;
    time += e.seconds;
  }
  std::ostringstream counts;
  counts << "tests=\"" << entries_.size() << "\" failures=\"" << failures << "\" errors=\"" << errors
         << "\" skipped=\"" << skipped << "\" time=\"" << seconds(time) << "\"";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"atomstress\" " << counts.str() << ">\n";
  x << "  <testsuite name=\"atomstress.fuzz\" " << counts.str();
  if (!header_.timestamp.empty()) x << " timestamp=\"" << escape_markup(header_.timestamp.substr(0, 19)) << "\"";
  x << " hostname=\"" << escape_markup(header_.device.empty() ? "host" : header_.device) << "\">\n";
  x << "    <properties>\n";
  auto prop = [&](const std::string& k, const std::string& v) {
    x << "      <property name=\"" << escape_markup(k) << "\" value=\"" << escape_markup(v) << "\"/>\n";
  };
  prop("version", header_.version);
  prop("git_revision", header_.git_revision);
  prop("backend", to_string(header_.backend));
  prop("device", header_.device);
  if (!header_.driver.empty()) prop("driver", header_.driver);
  for (const auto& [k, v] : header_.options) prop("option." + k, v);
  x << "    </properties>\n";
  for (const auto& e : entries_) {
    x << "    <testcase name=\"" << escape_markup(e.impl) << "\" classname=\"atomstress.fuzz."
      << escape_markup(to_string(e.backend)) << "\" time=\"" << seconds(e.seconds) << "\"";
    if (!e.skipped && !e.failed()) {
      x << "/>\n";
      continue;
    }
    x << ">\n";
    if (e.skipped) {
      x << "      <skipped message=\"" << escape_markup(FuzzCollector::headline(e)) << "\"/>\n";
    } else if (e.verdict == Verdict::Error && (e.origin == "incomplete" || e.origin == "interrupted")) {
      // Not run to its end (a shard that died, a run ended by a signal): an
      // error, never a pass.
      std::ostringstream body;
      body << e.why << "\n" << e.trials << " trials, " << e.ops << " ops recorded in " << seconds(e.seconds) << " s\n";
      x << "      <error message=\"" << escape_markup(FuzzCollector::headline(e)) << "\" type=\""
        << (e.origin == "incomplete" ? "INCOMPLETE" : "INTERRUPTED") << "\">" << escape_markup(body.str())
        << "</error>\n";
    } else {
      const char* tag = e.verdict == Verdict::Error ? "error" : "failure";
      std::ostringstream body;
      body << "shrunk case: " << e.spec << "\n"
           << "caught after " << seconds(e.time_to_catch_s) << " s (" << e.origin << "), " << e.trials
           << " trials, " << e.ops << " ops; the shrunk case " << FuzzCollector::shrunk_rate(e) << "\n"
           << "repro: " << repro_command(e.token, e.backend) << "\n";
      // The message is what failed: the class and cause (never empty).
      x << "      <" << tag << " message=\"" << escape_markup(FuzzCollector::headline(e)) << "\" type=\""
        << to_string(e.verdict)
        << "\">" << escape_markup(body.str()) << "</" << tag << ">\n";
    }
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}


}  // namespace atomstress::reports
