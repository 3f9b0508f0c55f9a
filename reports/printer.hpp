// The reporting seam: a command tells a Printer what happened and each
// printer decides what to show (terminal lines, JSON lines, ...).  Multiplex
// forwards to several, so a command talks to one printer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "reports/results.hpp"

namespace atomstress {
struct ProfilePoint;  // harness/pipeline/profile.hpp: only `profile` sends them
}  // namespace atomstress

namespace atomstress::reports {

class Printer {
 public:
  virtual ~Printer() = default;
  virtual void run_started(const RunInfo&) {}
  virtual void note(const std::string&) {}
  virtual void trial(const TrialOutcome&) {}
  virtual void impl_summary(const ImplSummary&) {}
  // An implementation that ran nothing: why.
  virtual void impl_skipped(const ImplInfo&, BackendKind, const std::string& why) {}
  virtual void repro(const ReproSummary&) {}
  virtual void campaign(const CampaignRecord&) {}
  // `fuzz`: the run's header, each corpus replay and time slice as they
  // happen, and each entry's result at the end.
  virtual void fuzz_started(const FuzzHeader&) {}
  virtual void fuzz_replay(const ReplayRecord&) {}
  virtual void fuzz_slice(const FuzzSliceRecord&) {}
  virtual void fuzz_entry(const FuzzEntryResult&) {}
  // `profile`: one measured point of the sweep.
  virtual void profile_point(const ProfilePoint&) {}
  // Flushes; false (and `error()` says why, in one line) when anything the
  // printer was given could not be written.
  virtual bool finish() { return true; }
  virtual std::string error() const { return {}; }
};

class Multiplex final : public Printer {
 public:
  void add(std::unique_ptr<Printer> p) { printers_.push_back(std::move(p)); }

  void run_started(const RunInfo& r) override { for (auto& p : printers_) p->run_started(r); }
  void note(const std::string& n) override { for (auto& p : printers_) p->note(n); }
  void trial(const TrialOutcome& t) override { for (auto& p : printers_) p->trial(t); }
  void impl_summary(const ImplSummary& s) override { for (auto& p : printers_) p->impl_summary(s); }
  void impl_skipped(const ImplInfo& i, BackendKind b, const std::string& why) override {
    for (auto& p : printers_) p->impl_skipped(i, b, why);
  }
  void repro(const ReproSummary& r) override { for (auto& p : printers_) p->repro(r); }
  void campaign(const CampaignRecord& c) override { for (auto& p : printers_) p->campaign(c); }
  void fuzz_started(const FuzzHeader& h) override { for (auto& p : printers_) p->fuzz_started(h); }
  void fuzz_replay(const ReplayRecord& r) override { for (auto& p : printers_) p->fuzz_replay(r); }
  void fuzz_slice(const FuzzSliceRecord& s) override { for (auto& p : printers_) p->fuzz_slice(s); }
  void fuzz_entry(const FuzzEntryResult& e) override { for (auto& p : printers_) p->fuzz_entry(e); }
  void profile_point(const ProfilePoint& pt) override { for (auto& p : printers_) p->profile_point(pt); }
  // Finishes every printer (one failing must not stop the others flushing).
  bool finish() override {
    bool ok = true;
    for (auto& p : printers_)
      if (!p->finish()) {
        if (ok) error_ = p->error();
        ok = false;
      }
    return ok;
  }
  // finish()'s error, or before it the first printer that already failed
  // (a log that could not be appended to: the run stops at once).
  std::string error() const override {
    if (!error_.empty()) return error_;
    for (const auto& p : printers_)
      if (auto e = p->error(); !e.empty()) return e;
    return {};
  }

 private:
  std::vector<std::unique_ptr<Printer>> printers_;
  std::string error_;
};

}  // namespace atomstress::reports
