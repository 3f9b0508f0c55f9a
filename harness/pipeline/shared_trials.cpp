#include "harness/pipeline/shared_trials.hpp"

namespace atomstress {

// A client's view: its tickets are its own; the shared runner's are not.
class SharedTrials::Client final : public ConcurrentTrials {
 public:
  Client(SharedTrials& shared, size_t id, size_t capacity) : shared_(shared), id_(id), capacity_(capacity) {}
  size_t capacity() const override { return capacity_; }
  void start(size_t ticket, const TrialSpec& spec) override { shared_.start(id_, ticket, spec); }
  std::vector<Ended> collect() override { return shared_.collect(id_); }
  void cancel(size_t ticket) override { shared_.cancel(id_, ticket); }

 private:
  SharedTrials& shared_;
  size_t id_, capacity_;
};

SharedTrials::SharedTrials(ConcurrentTrials& inner, GpuTurns& turns) : inner_(inner), turns_(turns) {
  thread_ = std::thread([this] { serve(); });
}

SharedTrials::~SharedTrials() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  inner_.wake();
  thread_.join();
}

std::unique_ptr<ConcurrentTrials> SharedTrials::client(size_t capacity) {
  std::lock_guard lock(mu_);
  return std::make_unique<Client>(*this, clients_++, std::max<size_t>(1, capacity));
}

void SharedTrials::start(size_t client, size_t ticket, const TrialSpec& spec) {
  turns_.share_begin();  // held until the trial ends (serve): a run alone elsewhere waits for it
  {
    std::lock_guard lock(mu_);
    const size_t t = next_ticket_++;
    routes_[t] = {client, ticket};
    requests_.push_back({t, spec});
    ++in_flight_;
  }
  changed_.notify_all();
  inner_.wake();  // a collect waiting in serve() returns to start it
}

void SharedTrials::cancel(size_t client, size_t ticket) {
  {
    std::lock_guard lock(mu_);
    for (const auto& [t, route] : routes_)
      if (route.client == client && route.ticket == ticket) requests_.push_back({t, std::nullopt});
  }
  changed_.notify_all();
  inner_.wake();
}

std::vector<ConcurrentTrials::Ended> SharedTrials::collect(size_t client) {
  std::unique_lock lock(mu_);
  // Called only with trials of the client's own in flight: one comes back.
  changed_.wait(lock, [&] { return !ended_[client].empty(); });
  return std::exchange(ended_[client], {});
}

void SharedTrials::serve() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !requests_.empty() || in_flight_ > 0; });
    if (stopping_ && requests_.empty() && in_flight_ == 0) return;
    std::deque<Request> asked = std::exchange(requests_, {});
    lock.unlock();
    for (const Request& r : asked) {
      if (r.spec) inner_.start(r.ticket, *r.spec);
      else inner_.cancel(r.ticket);
    }
    // Returns when one of them ends, or when a client's start() or cancel()
    // wakes it (then possibly with none).
    std::vector<Ended> ended = inner_.collect();
    lock.lock();
    for (Ended& e : ended) {
      const auto it = routes_.find(e.ticket);
      if (it == routes_.end()) continue;  // answered twice: the runner's own rule
      ended_[it->second.client].push_back({it->second.ticket, std::move(e.outcome)});
      routes_.erase(it);
      --in_flight_;
      turns_.share_end();
    }
    if (!ended.empty()) changed_.notify_all();
  }
}

}  // namespace atomstress
