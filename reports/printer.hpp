// The reporting seam: a command hands every printer the run's header once,
// then notes and records as they happen, then finishes them; each printer
// shows the records it knows (terminal lines, JSON lines, JUnit, HTML, ...)
// and ignores the rest.  The public front is fixed; a printer implements the
// few do_* hooks it needs (nvbench's printer_base).  Multiplex forwards to
// several, so a command talks to one printer.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "reports/results.hpp"

namespace atomstress {
struct ProfilePoint;  // harness/pipeline/profile.hpp: only `profile` sends them
}  // namespace atomstress

namespace atomstress::reports {

// One record of a run, by address: it is read during the call only.
using Record = std::variant<const Outcome*, const ImplSummary*, const SkippedEntry*, const ReproSummary*,
                            const CampaignRecord*, const ReplayRecord*, const FuzzSliceRecord*,
                            const FuzzEntryResult*, const ProfilePoint*>;

// The record if it is a T, else null.
template <class T>
const T* as(const Record& r) {
  const auto* p = std::get_if<const T*>(&r);
  return p ? *p : nullptr;
}

class Printer {
 public:
  virtual ~Printer() = default;
  // Once, before anything runs: where the run comes from.
  void begin(const RunHeader& h) { do_begin(h); }
  // A line of context ("backend auto: cuda on ...", the time split).
  void note(const std::string& n) { do_note(n); }
  template <class R>
  void record(const R& r) {
    do_record(Record(&r));
  }
  // Flushes; false (and error() says why, in one line) when anything the
  // printer was given could not be written.
  bool finish() { return do_finish(); }
  // A printer that could not open its file says so here from the start
  // (the command refuses to run); one whose write failed, at once.
  virtual std::string error() const { return {}; }

 protected:
  virtual void do_begin(const RunHeader&) {}
  virtual void do_note(const std::string&) {}
  virtual void do_record(const Record&) {}
  virtual bool do_finish() { return true; }
};

class Multiplex final : public Printer {
 public:
  void add(std::unique_ptr<Printer> p) { printers_.push_back(std::move(p)); }
  bool empty() const { return printers_.empty(); }
  // finish()'s error, or before it the first printer that already failed
  // (a log that could not be appended to: the run stops at once).
  std::string error() const override {
    if (!error_.empty()) return error_;
    for (const auto& p : printers_)
      if (auto e = p->error(); !e.empty()) return e;
    return {};
  }

 protected:
  void do_begin(const RunHeader& h) override {
    for (auto& p : printers_) p->begin(h);
  }
  void do_note(const std::string& n) override {
    for (auto& p : printers_) p->note(n);
  }
  void do_record(const Record& r) override {
    for (auto& p : printers_) std::visit([&](const auto* x) { p->record(*x); }, r);
  }
  // Finishes every printer (one failing must not stop the others flushing).
  bool do_finish() override {
    bool ok = true;
    for (auto& p : printers_)
      if (!p->finish()) {
        if (ok) error_ = p->error();
        ok = false;
      }
    return ok;
  }

 private:
  std::vector<std::unique_ptr<Printer>> printers_;
  std::string error_;
};

}  // namespace atomstress::reports
