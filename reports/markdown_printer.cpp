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
  const auto order = ordered();
  std::ostringstream m;
  m << "# atomstress fuzz: " << failed << " of " << entries_.size() << " entries failing\n\n";
  m << "- run: " << header_.timestamp << ", atomstress " << header_.version
    << (header_.git_revision.empty() ? "" : " (" + header_.git_revision + ")") << "\n";
  m << "- backend: " << to_string(header_.backend) << ", device: " << header_.device
    << (header_.driver.empty() ? "" : ", driver " + header_.driver) << "\n";
  m << "- " << busy() << "\n\n";
  // The summary: what failed first (each a link to its failure below), then
  // the passes, then the skips.
  m << "| entry | verdict | class | trials | ops | fuzzed (s) | time to catch (s) | shrunk case |\n";
  m << "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const FuzzEntryResult* p : order) {
    const auto& e = *p;
    const bool fail = e.failed() && !e.skipped;
    const std::string verdict = e.skipped ? "SKIP" : to_string(e.verdict);
    m << "| " << (fail ? "[`" + cell(e.impl) + "`](#" + anchor(e.impl) + ")" : "`" + cell(e.impl) + "`") << " | "
      << verdict << " | " << (e.cls != FailureClass::None ? to_string(e.cls) : "") << " | " << e.trials << " | "
      << e.ops << " | " << fixed(e.seconds) << " | " << (e.failed() ? fixed(e.time_to_catch_s) : "") << " | "
      << (e.failed() ? cell(e.spec) : e.skipped ? cell(e.skip_why) : "") << " |\n";
  }
  // Each failure, grouped by the user's function (an atomic with its pairings).
  std::string group;
  for (const FuzzEntryResult* p : order) {
    const auto& e = *p;
    if (!e.failed() || e.skipped) continue;
    if (function_of(e.impl) != group || group.empty()) {
      group = function_of(e.impl);
      m << "\n## function `" << group << "`: " << group_note(group) << "\n";
    }
    m << "\n<a id=\"" << anchor(e.impl) << "\"></a>\n\n### " << e.impl << ": " << to_string(e.verdict)
      << (e.cls != FailureClass::None ? std::string(", ") + to_string(e.cls) : "") << " (" << e.origin << ")\n\n";
    if (e.cls != FailureClass::None) m << "- class: **" << to_string(e.cls) << "**: " << describe(e.cls) << "\n";
    m << "- cause: " << cell(cause(e).empty() ? headline(e) : cause(e)) << "\n";
    if (!e.spec.empty()) m << "- shrunk case: `" << cell(e.spec) << "`; it " << shrunk_rate(e) << "\n";
    if (!e.token.empty()) m << "\n```sh\n" << repro_command(e.token, e.backend) << "\n```\n";
  }
  return m.str();
}

}  // namespace atomstress::reports
