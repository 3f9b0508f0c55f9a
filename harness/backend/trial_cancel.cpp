#include "harness/backend/trial_cancel.hpp"

#include <utility>

namespace atomstress {

namespace {
thread_local TrialCancel* current_cancel = nullptr;
}  // namespace

void TrialCancel::cancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  if (stop_) stop_();
}

bool TrialCancel::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

void set_thread_trial_cancel(TrialCancel* cancel) { current_cancel = cancel; }
TrialCancel* thread_trial_cancel() { return current_cancel; }

CancelWhileRunning::CancelWhileRunning(std::function<void()> stop) : cancel_(current_cancel) {
  if (cancel_ == nullptr) return;
  std::lock_guard lock(cancel_->mu_);
  cancel_->stop_ = std::move(stop);
  if (cancel_->cancelled_) cancel_->stop_();
}

CancelWhileRunning::~CancelWhileRunning() {
  if (cancel_ == nullptr) return;
  std::lock_guard lock(cancel_->mu_);
  cancel_->stop_ = nullptr;
}

}  // namespace atomstress
