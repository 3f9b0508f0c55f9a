#include "harness/pipeline/ordered_trials.hpp"

#include <map>

namespace atomstress {

bool needs_alone_run(const std::optional<Outcome>& ended) {
  return !ended || ended->verdict != Verdict::Pass;
}

namespace {

// The scheduler's state: what was started, what ended, what was reported.
class OrderedRun {
 public:
  OrderedRun(std::span<const std::vector<TrialSpec>> groups, ConcurrentTrials& runner, const RunAlone& alone,
             const OrderedSink& sink)
      : groups_(groups),
        runner_(runner),
        alone_(alone),
        sink_(sink),
        progress_(groups.size()),
        limit_(groups.size()) {}

  void run() {
    for (;;) {
      // Refilled before the reports, so that the GPU is not idle while they
      // are made; but not when a trial they reach must run alone: it would
      // wait for the new trials too, beside those in flight when it ended.
      if (!alone_run_ahead()) fill();
      report_ready();
      fill();  // after a report that ran a trial alone
      if (cursor_ == limit_ || stopped_) break;
      if (!in_flight_.empty()) store(runner_.collect());
    }
    drain();  // trials of failed groups may still be in flight
  }

 private:
  struct Progress {
    size_t started = 0, reported = 0;
    bool failed = false;
  };
  struct Slot {
    size_t group = 0, trial = 0;
  };

  // Starts trials in plan order while the runner has room: the earliest
  // unstarted trial of the first groups still open.
  void fill() {
    for (size_t g = cursor_; !stopped_ && g < limit_ && in_flight_.size() < runner_.capacity(); ++g) {
      Progress& p = progress_[g];
      while (!p.failed && p.started < groups_[g].size() && in_flight_.size() < runner_.capacity()) {
        const size_t ticket = next_ticket_++;
        in_flight_[ticket] = {g, p.started};
        runner_.start(ticket, groups_[g][p.started]);
        ++p.started;
      }
    }
  }

  void store(std::vector<ConcurrentTrials::Ended> ended) {
    for (auto& e : ended) {
      const auto it = in_flight_.find(e.ticket);
      if (it == in_flight_.end()) continue;  // not ours, or answered twice
      const Slot s = it->second;
      in_flight_.erase(it);
      if (!progress_[s.group].failed) ended_[{s.group, s.trial}] = std::move(e.outcome);
    }
  }

  // Whether the reports that can be made now reach a trial that must run
  // alone.
  bool alone_run_ahead() const {
    for (size_t g = cursor_; g < limit_; ++g)
      for (size_t t = progress_[g].reported; t < groups_[g].size(); ++t) {
        const auto it = ended_.find({g, t});
        if (it == ended_.end()) return false;  // the reports stop here
        if (needs_alone_run(it->second)) return true;
      }
    return false;
  }

  // The trials of group g after trial t that are in flight: asked to end.
  void cancel_later_trials(size_t g, size_t t) {
    for (const auto& [ticket, slot] : in_flight_)
      if (slot.group == g && slot.trial > t) runner_.cancel(ticket);
  }

  void drain() {
    while (!in_flight_.empty()) store(runner_.collect());
  }

  // Reports, in plan order, every trial whose outcome is known, closing
  // each group after its last one or its first failure.
  void report_ready() {
    while (cursor_ < limit_ && !stopped_) {
      const size_t g = cursor_;
      Progress& p = progress_[g];
      if (p.reported == groups_[g].size()) {
        close(g, false);
        continue;
      }
      const auto it = ended_.find({g, p.reported});
      if (it == ended_.end()) return;  // still running
      std::optional<Outcome> outcome = std::move(it->second);
      ended_.erase(it);
      if (needs_alone_run(outcome)) {
        cancel_later_trials(g, p.reported);
        drain();  // alone: nothing else in flight
        outcome = alone_(groups_[g][p.reported]);
      }
      const bool failed = outcome->verdict != Verdict::Pass;
      ++p.reported;
      sink_.trial(g, std::move(*outcome));
      if (failed) {
        p.failed = true;
        drain();
        std::erase_if(ended_, [g](const auto& kv) { return kv.first.first == g; });
        close(g, true);
      }
    }
  }

  void close(size_t g, bool failed) {
    ++cursor_;
    if (!sink_.closed || sink_.closed(g, failed)) return;
    if (!sink_.finish_started || failed) {
      stopped_ = true;
      return;
    }
    // Only the groups already started go on.
    while (limit_ > cursor_ && progress_[limit_ - 1].started == 0) --limit_;
  }

  std::span<const std::vector<TrialSpec>> groups_;
  ConcurrentTrials& runner_;
  const RunAlone& alone_;
  const OrderedSink& sink_;
  std::vector<Progress> progress_;
  std::map<size_t, Slot> in_flight_;  // by ticket
  std::map<std::pair<size_t, size_t>, std::optional<Outcome>> ended_;  // by (group, trial), not yet reported
  size_t limit_;       // the groups before it may run (a stop that finishes what was started lowers it)
  size_t cursor_ = 0;  // the first group not yet closed
  size_t next_ticket_ = 0;
  bool stopped_ = false;
};

}  // namespace

void run_ordered(std::span<const std::vector<TrialSpec>> groups, ConcurrentTrials& runner, const RunAlone& alone,
                 const OrderedSink& sink) {
  OrderedRun(groups, runner, alone, sink).run();
}

}  // namespace atomstress
