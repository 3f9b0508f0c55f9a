#include "reports/jsonl_printer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "harness/support/atomic_file.hpp"
#include "harness/support/timestamp.hpp"
#include "reports/records_json.hpp"

namespace atomstress::reports {

JsonlPrinter::JsonlPrinter(const std::string& path, bool fuzz_log) : path_(path), fuzz_log_(fuzz_log) {
  // Write-only, never O_RDWR: on a pipe or FIFO a read end of our own would
  // keep it open, so a reader that left would block the run, not end it.
  // Opened without blocking: a FIFO nobody reads would block open() itself
  // (ENXIO instead, refused); then writes block again, as on any pipe.
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
  if (fd_ < 0) {
    error_ = errno == ENXIO ? "cannot open '" + path_ + "' for appending: a FIFO that nothing reads"
                            : "cannot open '" + path_ + "' for appending: " + std::strerror(errno);
    return;
  }
  if (const int flags = ::fcntl(fd_, F_GETFL); flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  struct stat st{};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  if (regular_ && st.st_size > 0) {
    // The last byte, read apart: appending after a line without its newline
    // would glue the first record onto it.
    const int reader = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    char last = '\n';
    if (reader >= 0 && ::pread(reader, &last, 1, st.st_size - 1) == 1) fresh_line_needed_ = last != '\n';
    if (reader >= 0) ::close(reader);
  }
}

JsonlPrinter::~JsonlPrinter() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonlPrinter::write_line(std::string line) {
  if (fd_ < 0 || !error_.empty()) return;
  line = (fresh_line_needed_ ? "\n" : "") + line + "\n";
  // Where the line starts: a write that fails part-way is cut back to it, so
  // the file stays whole up to its last complete line.
  const off_t start = regular_ ? ::lseek(fd_, 0, SEEK_END) : 0;
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n == 0 ? EIO : errno;
      if (regular_ && start >= 0 && done > 0) (void)::ftruncate(fd_, start);
      error_ = "cannot write '" + path_ + "': " + std::strerror(e);
      return;
    }
    done += size_t(n);
  }
  fresh_line_needed_ = false;
}

namespace {
// The finding as data (kind, address, ops, values as bits and in words),
// beside the explanation in "why".
nlohmann::json finding_json(const Finding& f) {
  nlohmann::json j;
  j["kind"] = to_string(f.kind);
  if (f.cls != FailureClass::None) j["class"] = to_string(f.cls);
  if (!f.operands.empty()) j["operands"] = f.operands;
  if (!f.trace.empty()) j["trace"] = f.trace;
  if (!f.inference.empty()) j["inference"] = f.inference;
  if (f.address >= 0) j["address"] = f.address;
  if (!f.ops.empty()) j["ops"] = f.ops;
  j["value_kind"] = vk_name(f.value_kind);
  if (f.expected) j["expected"] = {{"bits", *f.expected}, {"value", format_value(f.value_kind, *f.expected)}};
  if (f.observed) j["observed"] = {{"bits", *f.observed}, {"value", format_value(f.value_kind, *f.observed)}};
  return j;
}

nlohmann::json trial_json(const Outcome& t) {
  nlohmann::json j;
  j["impl"] = t.spec.impl;
  j["backend"] = to_string(t.backend);
  j["verdict"] = to_string(t.verdict);
  j["why"] = t.why();
  if (t.finding.cls != FailureClass::None) j["class"] = to_string(t.finding.cls);
  if (!t.finding.ok()) j["finding"] = finding_json(t.finding);
  j["spec"] = describe(t.spec);
  j["token"] = encode_token(t.spec, t.knobs);
  j["ops"] = t.ops;
  j["run_ms"] = t.run_ms;
  j["check_ms"] = t.check_ms;
  j["checker"] = t.checked_on_gpu ? "gpu" : "cpu";
  j["total_retries"] = t.total_retries;
  j["max_retries"] = t.max_retries;
  if (t.finding.first_op() >= 0) j["bad_op"] = t.finding.first_op();
  auto hs = nlohmann::json::array();
  for (const auto& h : t.hotspots)
    hs.push_back({{"addr", h.addr}, {"ops", h.ops}, {"retries", h.retries}, {"cycles", h.cycles}});
  j["hotspots"] = hs;
  return j;
}

nlohmann::json campaign_json(const CampaignRecord& c) {
  nlohmann::json j;
  j["impl"] = c.impl->name;
  j["backend"] = to_string(c.backend);
  j["verdict"] = to_string(c.verdict);
  j["why"] = c.why;
  j["spec"] = describe(c.shrunk);
  j["token"] = encode_token(c.shrunk, c.knobs);
  j["ops"] = c.shrunk.ops();
  j["class"] = to_string(c.cls);
  j["time_to_catch_s"] = c.time_to_catch_s;
  j["specs"] = c.specs;
  j["rate_failures"] = c.rate_failures;
  j["rate_runs"] = c.rate_runs;
  j["flaky"] = c.flaky;
  return j;
}

// A shrunk case's record: check's reported case ("shrunk") or a second,
// distinct failure of the entry ("distinct", ImplSummary::distinct).
nlohmann::json case_json(const char* record, const ImplSummary& s, const ShrunkCase& c, Verdict verdict) {
  nlohmann::json j;
  j["record"] = record;
  j["impl"] = s.impl->name;
  j["backend"] = to_string(s.backend);
  j["verdict"] = to_string(verdict);
  j["why"] = c.why;
  j["class"] = to_string(c.diagnosis.cls);
  if (!c.diagnosis.trace.empty()) j["trace"] = c.diagnosis.trace;
  if (!c.diagnosis.inference.empty()) j["inference"] = c.diagnosis.inference;
  j["spec"] = describe(c.spec);
  j["token"] = encode_token(c.spec, c.knobs);
  j["ops"] = c.spec.ops();
  j["rate_failures"] = c.rate_failures;
  j["rate_runs"] = c.rate_runs;
  return j;
}

nlohmann::json shrunk_json(const ImplSummary& s) {
  const ShrunkCase& c = *s.shrunk;
  nlohmann::json j = case_json("shrunk", s, c, s.verdict);
  j["first_token"] = encode_token(s.first_failure.spec, s.first_failure.knobs);
  j["candidates"] = c.candidates;
  j["repeats_skipped"] = c.repeats_skipped;
  j["shrink_s"] = c.seconds;
  return j;
}

// A fuzz record's line: its kind and, unless it has one, the time.
std::string fuzz_line(const char* record, nlohmann::json j) {
  j["record"] = record;
  if (!j.contains("timestamp")) j["timestamp"] = utc_timestamp();
  return j.dump();
}

}  // namespace

void JsonlPrinter::do_begin(const RunHeader& h) {
  if (fuzz_log_) write_line(fuzz_line("run", to_json(h)));
}

void JsonlPrinter::do_record(const Record& r) {
  if (const auto* t = as<Outcome>(r)) {
    if (t->verdict != Verdict::Error) write_line(trial_json(*t).dump());  // bad input goes to stderr, not here
  } else if (const auto* c = as<CampaignRecord>(r)) {
    if (c->found) write_line(campaign_json(*c).dump());  // one line per caught bug
  } else if (const auto* s = as<ImplSummary>(r)) {
    if (s->shrunk) write_line(shrunk_json(*s).dump());  // the trials' own lines say the rest
    if (s->distinct) write_line(case_json("distinct", *s, *s->distinct, Verdict::Fail).dump());
  } else if (const auto* p = as<ReplayRecord>(r)) {
    write_line(fuzz_line("replay", to_json(*p)));
  } else if (const auto* l = as<FuzzSliceRecord>(r)) {
    write_line(fuzz_line("slice", to_json(*l)));
  } else if (const auto* e = as<FuzzEntryResult>(r)) {
    // An interrupted entry has no result yet: `merge` must see its run unfinished.
    if (e->origin != "interrupted") write_line(fuzz_line("entry", to_json(*e)));
  }
}

}  // namespace atomstress::reports
