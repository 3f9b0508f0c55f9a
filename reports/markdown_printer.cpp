#include "reports/markdown_printer.hpp"
#include "reports/repro_command.hpp"

#include <cstdio>
#include <sstream>


namespace atomstress::reports {

namespace {
// A table cell: pipes and newlines would break the row.
std::string cell(std::string s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return o;
}
}  // namespace

std::string MarkdownPrinter::render() const {
  const size_t failed = failing();
  std::ostringstream m;
  m << "# atomstress fuzz: " << failed << " of " << entries_.size() << " entries failing\n\n";
  m << "- run: " << header_.timestamp << ", atomstress " << header_.version
    << (header_.git_revision.empty() ? "" : " (" + header_.git_revision + ")") << "\n";
  m << "- backend: " << to_string(header_.backend) << ", device: " << header_.device
    << (header_.driver.empty() ? "" : ", driver " + header_.driver) << "\n";
  m << "- " << busy() << "\n\n";
  m << "| entry | verdict | trials | ops | fuzzed (s) | time to catch (s) | shrunk case |\n";
  m << "| --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& e : entries_) {
    const std::string verdict = e.skipped ? "SKIP" : to_string(e.verdict);
    m << "| `" << cell(e.impl) << "` | " << verdict << " | " << e.trials << " | " << e.ops << " | "
      << fixed(e.seconds) << " | " << (e.failed() ? fixed(e.time_to_catch_s) : "") << " | "
      << (e.failed() ? cell(e.spec) : e.skipped ? cell(e.skip_why) : "") << " |\n";
  }
  for (const auto& e : entries_) {
    if (!e.failed() || e.skipped) continue;
    m << "\n## " << e.impl << ": " << to_string(e.verdict) << " (" << e.origin << ")\n\n";
    m << cell(e.why) << "\n\n";
    m << "The shrunk case " << shrunk_rate(e) << ".\n\n";
    m << "```sh\n" << repro_command(e.token, e.backend) << "\n```\n";
  }
  return m.str();
}

}  // namespace atomstress::reports
