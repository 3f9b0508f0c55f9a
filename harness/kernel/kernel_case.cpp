#include "harness/kernel/kernel_case.hpp"

#include <algorithm>

#include "harness/kernel/case_phase.hpp"
#include "harness/kernel/snapshot.hpp"

namespace atomstress {

namespace {
TrialSpec case_spec(const TrialSpec& spec, const kernel::CaseOptions& opt) {
  TrialSpec s = spec;
  if (opt.sequential) {  // the diagnosis replay: the case of one block of one thread, unstressed
    s.grid = 1;
    s.block = 1;
    s.stress = {};
  }
  return s;
}
}  // namespace

KernelCase::KernelCase(const TrialSpec& spec, kernel::CaseOptions opt) : spec_(case_spec(spec, opt)), opt_(opt) {}

KernelCase::~KernelCase() {
  if (fault_ != RunFault::None) return;  // the context is lost: nothing to free
  for (Slot& s : slots_) kernel::guarded_free(s.mem);
}

size_t KernelCase::note(std::string_view name, uint64_t v) {
  if (draws_.size() < 64) draws_.push_back({std::string(name), v});
  if (drawn_.size() < 200) drawn_ += (drawn_.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(v);
  return size_t(v);
}

uint32_t KernelCase::draw_shared(std::string_view name, uint32_t at_least, const void* kernel, bool note_zero) {
  std::string error;
  kernel::SharedLimits limits;
  if (opt_.shared_limits) limits = *opt_.shared_limits;
  else if (!kernel::device_shared_limits(limits, error)) stop_with_error(error);
  uint32_t static_bytes = 0;
  if (kernel && !kernel::static_shared_bytes(kernel, static_bytes, error)) stop_with_error(error);
  // A profile times the kernel with what it needs: the extra is a stress axis.
  const kernel::SharedClass cls = opt_.whole_sizes ? kernel::SharedClass::None : kernel::shared_class(spec_);
  const auto bytes = kernel::shared_bytes_of(cls, at_least, static_bytes, limits, error);
  if (!bytes) stop_with_error(std::string(name) + ": " + error);
  // One value per name and case: a second launch does not draw it again.
  const bool drawn = std::any_of(draws_.begin(), draws_.end(), [&](const kernel::Drawn& d) { return d.name == name; });
  if (!drawn && (*bytes != 0 || note_zero)) note(name, *bytes);
  return *bytes;
}

void KernelCase::stop_with_error(std::string why) {
  error_ = std::move(why);
  throw kernel::CaseStopped{};
}

size_t KernelCase::allocate(std::string_view name, size_t n, unsigned elem_bytes, VK kind, const void* host) {
  Slot& s = slots_.emplace_back();
  s.elem_bytes = elem_bytes;
  s.kind = kind;
  s.mem.guards = !opt_.exact_buffers;
  s.mem.name = std::string(name);
  s.mem.bytes = n * elem_bytes;
  s.mem.offset_bytes = keep_aligned_ ? 0 : size_t(kernel::draw_offset_elems(spec_, name)) * elem_bytes;
  s.mem.salt = kernel::name_stream(name) ^ slots_.size();
  std::string error;
  if (!kernel::guarded_alloc(s.mem, error) || !kernel::guarded_upload(s.mem, host, error))
    stop_with_error("buffer '" + s.mem.name + "': " + error);
  return slots_.size() - 1;
}

void KernelCase::download(size_t slot, void* host) {
  std::string error;
  if (!kernel::guarded_download(slots_[slot].mem, host, error))
    stop_with_error("reading buffer '" + slots_[slot].mem.name + "': " + error);
}

void KernelCase::launch_erased(const void* fn, void** args, Geometry g) {
  most_threads_ = std::max(most_threads_, uint64_t(g.grid) * g.block);
  launches_.push_back(g);
  kernel_ms_ += opt_.bench_reps > 0 ? launch_timed(fn, args, g) : launch_checked(fn, args, g, false);
}

double KernelCase::launch_checked(const void* fn, void** args, Geometry g, bool flush_l2) {
  // Told around the launch (case_phase.hpp): what runs after it, up to the
  // next, is the property's host code.
  const uint32_t number = uint32_t(launches_.size());
  kernel::note_case_phase({opt_.entry, kernel::CasePhase::Launch, number});
  const kernel::LaunchResult r =
      kernel::launch_kernel(fn, args, g, spec_.stress, spec_.seed, opt_.watchdog_ms, flush_l2);
  kernel::note_case_phase({opt_.entry, kernel::CasePhase::HostCode, number});
  if (!r.ok) {
    fault_ = r.fault;
    if (fault_ == RunFault::None) stop_with_error(r.error);
    error_ = r.error;
    throw kernel::CaseStopped{};
  }
  // A write outside a buffer is the first thing to tell: what the oracles
  // would see next may only be its consequence.
  for (const Slot& s : slots_) {
    std::string violation, error;
    if (!kernel::guarded_check(s.mem, violation, error)) stop_with_error(error);
    if (violation.empty()) continue;
    kernel::KernelFailure f;
    f.buffer = s.mem.name;
    f.message = violation;
    f.cls = FailureClass::Bounds;
    failure_ = std::move(f);
    throw kernel::CaseStopped{};
  }
  return r.ms;
}

// Each timed launch starts from the state the property left before the
// launch (a histogram's zeroed bins, an empty hash table), restored outside
// its timed interval; the last one leaves the buffers as one launch from
// that state, so the oracle judges a real run.  Every launch keeps its
// watchdog, its stress and its guard check.
double KernelCase::launch_timed(const void* fn, void** args, Geometry g) {
  std::vector<const kernel::GuardedBuffer*> buffers;
  for (const Slot& s : slots_) buffers.push_back(&s.mem);
  std::string error;
  if (!kernel::snapshot_buffers(buffers, error)) stop_with_error("snapshot of the buffers: " + error);
  launch_checked(fn, args, g, false);  // the warm-up, untimed
  double total_ms = 0;
  for (uint32_t rep = 0; rep < opt_.bench_reps; ++rep) {
    if (!kernel::restore_buffers(buffers, error)) stop_with_error("restoring the buffers: " + error);
    total_ms += launch_checked(fn, args, g, opt_.flush_l2);
  }
  return total_ms / opt_.bench_reps;
}

std::vector<BufferExtent> KernelCase::buffers() const {
  std::vector<BufferExtent> out;
  for (const Slot& s : slots_)
    out.push_back({s.mem.name, uint64_t(reinterpret_cast<uintptr_t>(s.mem.data)), s.mem.bytes,
                   uint64_t(reinterpret_cast<uintptr_t>(s.mem.base)), s.mem.alloc_bytes(), s.elem_bytes});
  return out;
}

kernel::CaseRecord KernelCase::record() const {
  kernel::CaseRecord r;
  r.draws = draws_;
  r.launches = launches_;
  for (const Slot& s : slots_) r.buffers.push_back({s.mem.name, s.kind, s.initial});
  r.failure = failure_;
  return r;
}

void KernelCase::judge(std::optional<kernel::KernelFailure> f) {
  if (f && !failure_) failure_ = std::move(f);
}

void KernelCase::fail(std::string_view message) {
  kernel::KernelFailure f;
  f.message = std::string(message);
  judge(std::move(f));
}

}  // namespace atomstress
