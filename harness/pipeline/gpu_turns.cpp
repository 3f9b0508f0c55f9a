#include "harness/pipeline/gpu_turns.hpp"

namespace atomstress {

void GpuTurns::share_begin() {
  std::unique_lock lock(mu_);
  // The thread that holds the GPU alone may run its own trials at once.  A
  // waiting run alone goes first: otherwise a steady stream of trials
  // beside each other would keep it waiting for ever.
  const auto me = std::this_thread::get_id();
  changed_.wait(lock, [&] { return alone_depth_ == 0 ? alone_waiting_ == 0 : alone_owner_ == me; });
  ++shares_;
}

void GpuTurns::share_end() {
  std::lock_guard lock(mu_);
  --shares_;
  changed_.notify_all();
}

void GpuTurns::alone_begin() {
  std::unique_lock lock(mu_);
  const auto me = std::this_thread::get_id();
  if (alone_depth_ > 0 && alone_owner_ == me) {
    ++alone_depth_;
    return;
  }
  ++alone_waiting_;
  changed_.wait(lock, [&] { return alone_depth_ == 0 && shares_ == 0; });
  --alone_waiting_;
  alone_depth_ = 1;
  alone_owner_ = me;
}

void GpuTurns::alone_end() {
  std::lock_guard lock(mu_);
  if (--alone_depth_ == 0) {
    alone_owner_ = {};
    changed_.notify_all();
  }
}

size_t GpuTurns::shares() const {
  std::lock_guard lock(mu_);
  return shares_;
}

}  // namespace atomstress
