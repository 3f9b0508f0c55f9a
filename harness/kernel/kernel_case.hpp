// KernelCase: what a kernel entry's property (ATOMSTRESS_KERNEL) works with.
// It draws the case from the trial's spec (sizes, key ranges, keys with
// contention, values with specials, buffer offsets: draws.hpp), allocates
// guarded device buffers (guarded.hpp), launches the user's kernel unchanged
// (launch.hpp) and checks the outputs with the oracles (oracles.hpp), each
// failure told in the buffer's own terms.  Host code only: the kernel is
// launched through cudaLaunchKernel, so this header needs no nvcc.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/kernel/case_table.hpp"
#include "harness/kernel/draws.hpp"
#include "harness/kernel/guarded.hpp"
#include "harness/kernel/launch.hpp"
#include "harness/kernel/oracles.hpp"

namespace atomstress {

using kernel::Geometry;
using kernel::SharedLimits;

// The value kind of an element type: the types the oracles print and the
// value draws know.  16-bit: __half (F16) and __nv_bfloat16 (BF16) compare
// and print as floats (cuda_fp16.h / cuda_bf16.h, through value_kind.hpp,
// are host-safe: a host compiler reads them, no arithmetic on the host is
// needed beyond their conversions); int16_t is I16, printed signed;
// uint16_t (any other 2-byte integer) U16.
template <class T>
constexpr VK value_kind_of() {
  if constexpr (std::is_same_v<T, float>) return VK::F32;
  else if constexpr (std::is_same_v<T, double>) return VK::F64;
  else if constexpr (std::is_same_v<T, __half>) return VK::F16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return VK::BF16;
  else {
    static_assert(std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "KernelCase buffers hold 16-, 32- or 64-bit integers, __half, __nv_bfloat16, float or double");
    if constexpr (sizeof(T) == 2) return std::is_signed_v<T> ? VK::I16 : VK::U16;
    else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? VK::I32 : VK::U32;
    else return std::is_signed_v<T> ? VK::I64 : VK::U64;
  }
}
// A float element type (the sums' oracles take these).
template <class T>
inline constexpr bool is_float_element_v =
    std::is_floating_point_v<T> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
uint64_t to_bits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T from_bits(uint64_t b) {
  T v;
  std::memcpy(static_cast<void*>(&v), &b, sizeof(T));  // (void*: __half's bits are its whole state)
  return v;
}
template <class T>
std::vector<uint64_t> bits_of(std::span<const T> v) {
  std::vector<uint64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = to_bits(v[i]);
  return out;
}

// A guarded device buffer of n elements; converts to T* for a launch.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  T* data() const { return ptr_; }
  operator T*() const { return ptr_; }
  size_t size() const { return n_; }
  size_t slot() const { return slot_; }

 private:
  friend class KernelCase;
  Buffer(T* p, size_t n, size_t slot) : ptr_(p), n_(n), slot_(slot) {}
  T* ptr_ = nullptr;
  size_t n_ = 0, slot_ = 0;
};

namespace kernel {
// A kernel's parameters from a launch's arguments, each converted to its
// parameter's type (a Buffer<T> to T* or const T*), and pointers to them as
// cudaLaunchKernel takes them (one spare slot: a kernel may take none).
template <class... P>
struct KernelParams {
  std::tuple<P...> values;
  void* pointers[sizeof...(P) + 1] = {};
  template <class... A>
  explicit KernelParams(A&&... args) : values(static_cast<P>(std::forward<A>(args))...) {
    std::apply([&](auto&... v) {
      size_t i = 0;
      ((pointers[i++] = static_cast<void*>(&v)), ...);
    }, values);
  }
  KernelParams(const KernelParams&) = delete;  // the pointers point into this object
  KernelParams& operator=(const KernelParams&) = delete;
};

// Thrown through the user's property to end the case (a fault, a hang, a
// write outside a buffer, a CUDA error): the first failure decides.
struct CaseStopped {};
struct CaseOptions {
  uint64_t watchdog_ms = 1000;
  bool sequential = false;  // the diagnosis replay: one block of one thread
  // --sanitize: each buffer its own exact allocation, no guard zones
  // (guarded.hpp GuardedBuffer::guards says why).
  bool exact_buffers = false;
  // profile's timing (RunOptions::timing): with bench_reps > 0 each launch
  // the property makes is run from a snapshot of the buffers: a warm-up,
  // then bench_reps timed launches, each after the buffers are restored
  // (outside its timed interval; with flush_l2 the L2 is flushed there
  // too); the buffers end as one launch from the snapshot left them, for
  // the property's oracle.  kernel_ms() is then the mean time of one launch
  // (summed over the property's launches).
  uint32_t bench_reps = 0;
  bool flush_l2 = false;
  // Every size(name) is the spec's whole op count (whole_size): a profile
  // times the problem size its geometry axes set, not an edge size; and
  // shared_bytes() adds no generated extra (class none).
  bool whole_sizes = false;
  std::string entry;  // the kernel entry, for the phase notes (case_phase.hpp)
  // The device's shared memory limits as given (tests); none: read from the device.
  std::optional<SharedLimits> shared_limits;
};
}  // namespace kernel

class KernelCase {
 public:
  KernelCase(const TrialSpec& spec, kernel::CaseOptions opt);
  ~KernelCase();
  KernelCase(const KernelCase&) = delete;
  KernelCase& operator=(const KernelCase&) = delete;

  // ------------------------------------------------------------- drawing
  // A size: 0, 1, small odd, 32±1, block±1, grid*block±1 or the case's
  // whole op count ±1 (draws.hpp); shrinks with the geometry.  In a profile
  // (CaseOptions::whole_sizes) the whole op count.
  size_t size(std::string_view name) {
    return note(name, opt_.whole_sizes ? kernel::whole_size(spec_) : kernel::draw_size(spec_, name));
  }
  // A key range (bins, capacity): the spec's k, at least 1.
  size_t range(std::string_view name) { return note(name, kernel::draw_range(spec_, name)); }
  // The generated geometry (launch() uses it); in the diagnosis replay 1 x 1.
  uint32_t grid() const { return spec_.grid; }
  uint32_t block() const { return spec_.block; }
  // The generated block and enough blocks for n elements, one per thread.
  Geometry cover(size_t n, uint32_t shared_bytes = 0) const {
    return Geometry{uint32_t(n == 0 ? 1 : (n + spec_.block - 1) / spec_.block), spec_.block, shared_bytes};
  }
  // Dynamic shared memory for a launch: `at_least` bytes (what the kernel
  // needs) plus the case's generated extra (draws.hpp SharedClass: none, a
  // little, a few blocks per SM, the most a block may opt into), never more
  // than the device allows.  Give the kernel when it also has static
  // __shared__ arrays: the limit counts both.  Drawn as name=bytes.
  uint32_t shared_bytes(std::string_view name, uint32_t at_least = 0) { return draw_shared(name, at_least, nullptr, true); }
  template <class... P>
  uint32_t shared_bytes(std::string_view name, uint32_t at_least, void (*kernel)(P...)) {
    return draw_shared(name, at_least, reinterpret_cast<const void*>(kernel), true);
  }
  const TrialSpec& spec() const { return spec_; }
  // Buffers allocated from here on start 256-byte aligned (by default each
  // starts 0, 1 or 3 elements past that: draw_offset_elems).
  void keep_aligned(bool on = true) { keep_aligned_ = on; }

  // Keys in [0, range) with the spec's contention shape (all equal, few
  // hot, zipf, uniform, sorted, reversed, per warp, per block).
  template <class T>
  Buffer<T> keys(std::string_view name, size_t n, uint64_t range) {
    return upload_bits<T>(name, kernel::draw_keys(spec_, name, n, range));
  }
  // Values with the spec's distribution and its share of special values.
  template <class T>
  Buffer<T> values(std::string_view name, size_t n) {
    return upload_bits<T>(name, kernel::draw_value_bits(spec_, name, n, value_kind_of<T>()));
  }
  // The user's own data.
  template <class T>
  Buffer<T> input(std::string_view name, const std::vector<T>& host) {
    return upload_bits<T>(name, bits_of<T>(host));
  }
  // A buffer of n elements, each `init`.
  template <class T>
  Buffer<T> output(std::string_view name, size_t n, T init) {
    return upload_bits<T>(name, std::vector<uint64_t>(n, to_bits(init)));
  }

  // ------------------------------------------------------------- running
  // Launches `kernel` with the generated geometry (1 x 1 in the diagnosis
  // replay) and the case's generated dynamic shared memory (shared_bytes
  // "smem", beside the kernel's static arrays; drawn when not 0), or with
  // the user's geometry.  Buffers pass as T*; other arguments convert to
  // the kernel's parameter types.  A fault, a hang or a write into a guard
  // zone ends the case.
  template <class... P, class... A>
  void launch(void (*kernel)(P...), A&&... args) {
    const uint32_t shared = draw_shared("smem", 0, reinterpret_cast<const void*>(kernel), false);
    launch(Geometry{spec_.grid, spec_.block, shared}, kernel, std::forward<A>(args)...);
  }
  template <class... P, class... A>
  void launch(Geometry g, void (*kernel)(P...), A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "launch: give the kernel exactly its arguments");
    kernel::KernelParams<P...> params(std::forward<A>(args)...);
    launch_erased(reinterpret_cast<const void*>(kernel), params.pointers, g);
  }

  // ------------------------------------------------------------- checking
  template <class T>
  std::vector<T> read(const Buffer<T>& b) {
    std::vector<T> out(b.size());
    download(b.slot(), out.data());
    return out;
  }
  // What the case wrote into a buffer before any launch.
  template <class T>
  std::vector<T> initial(const Buffer<T>& b) const {
    std::vector<T> out;
    for (uint64_t bits : slots_[b.slot()].initial) out.push_back(from_bits<T>(bits));
    return out;
  }
  template <class T>
  void expect_equal(const Buffer<T>& b, const std::vector<T>& reference) {
    judge(kernel::check_equal(name_of(b), value_kind_of<T>(), bits_of<T>(read(b)), bits_of<T>(reference)));
  }
  // The same on host data the property computed (a prefix read back, say).
  template <class T>
  void expect_equal(std::string_view name, const std::vector<T>& got, const std::vector<T>& reference) {
    judge(kernel::check_equal(name, value_kind_of<T>(), bits_of<T>(got), bits_of<T>(reference)));
  }
  template <class T>
  void expect_permutation(std::string_view name, const std::vector<T>& got, const std::vector<T>& expected) {
    judge(kernel::check_permutation(name, value_kind_of<T>(), bits_of<T>(got), bits_of<T>(expected)));
  }
  template <class T>
  void expect_permutation(const Buffer<T>& b, const std::vector<T>& expected) {
    judge(kernel::check_permutation(name_of(b), value_kind_of<T>(), bits_of<T>(read(b)), bits_of<T>(expected)));
  }
  // A histogram over the keys of `keys` (a buffer of this case): each bin
  // its initial value plus the number of its keys.
  template <class B, class K>
  void expect_counts(const Buffer<B>& bins, const Buffer<K>& keys) {
    judge(kernel::check_counts(name_of(bins), value_kind_of<B>(), bits_of<B>(read(bins)), slots_[keys.slot()].initial,
                               slots_[bins.slot()].initial));
  }
  // A float reduction into result[0]: its initial value plus the sum of
  // `values` (a buffer of this case), within an order-independent bound.
  // `adds`: FloatAdds::AsTheGpu (the default) accepts the subnormals the
  // GPU's float atomicAdd flushes; FloatAdds::StrictIeee, for code that must
  // keep them, does not.
  template <class T>
  void expect_sum(const Buffer<T>& result, const Buffer<T>& values, std::optional<double> bound = std::nullopt,
                  FloatAdds adds = FloatAdds::AsTheGpu) {
    static_assert(is_float_element_v<T>, "expect_sum is for float reductions (use expect_equal for integers)");
    const std::vector<T> got = read(result);
    if (got.empty()) return fail("expect_sum: " + name_of(result) + " has no element");
    judge(kernel::check_sum(name_of(result), value_kind_of<T>(), to_bits(got[0]), slots_[result.slot()].initial[0],
                            slots_[values.slot()].initial, bound, adds));
  }
  template <class T>
  void expect_sum(const Buffer<T>& result, const Buffer<T>& values, FloatAdds adds) {
    expect_sum(result, values, std::nullopt, adds);
  }
  // A scatter-add (index_add, scatter_add, a float histogram): each
  // out[j] is its initial value plus the sum of the values[i] whose key is
  // j (both buffers of this case), each element within the bound of its own
  // sum (in T's precision: __half's 11 bits, bfloat16's 8), or `bound`.
  // `adds` as for expect_sum.
  template <class T, class K>
  void expect_scatter_sum(const Buffer<T>& out, const Buffer<K>& keys, const Buffer<T>& values,
                          std::optional<double> bound = std::nullopt, FloatAdds adds = FloatAdds::AsTheGpu) {
    static_assert(is_float_element_v<T>, "expect_scatter_sum is for float sums (expect_counts counts integers)");
    const std::string values_name = name_of(values);
    const kernel::Scattered in{values_name, value_kind_of<K>(), slots_[keys.slot()].initial,
                               slots_[values.slot()].initial};
    judge(kernel::check_scatter_sums(name_of(out), value_kind_of<T>(), bits_of<T>(read(out)),
                                     slots_[out.slot()].initial, in, bound, adds));
  }
  template <class T, class K>
  void expect_scatter_sum(const Buffer<T>& out, const Buffer<K>& keys, const Buffer<T>& values, FloatAdds adds) {
    expect_scatter_sum(out, keys, values, std::nullopt, adds);
  }
  // A map: the slots (table_keys[i], table_values[i]), or a lookup's
  // answers, against what was inserted; empty_key marks a free slot.
  template <class T>
  void expect_map(const Buffer<T>& table_keys, const Buffer<T>& table_values, const std::vector<T>& inserted_keys,
                  const std::vector<T>& inserted_values, std::optional<T> empty_key, bool each_key_once = true) {
    std::optional<uint64_t> empty;
    if (empty_key) empty = to_bits(*empty_key);
    judge(kernel::check_map(name_of(table_keys), value_kind_of<T>(), bits_of<T>(read(table_keys)),
                            bits_of<T>(read(table_values)), bits_of<T>(inserted_keys), bits_of<T>(inserted_values),
                            empty, each_key_once));
  }
  // The same on host data the property computed (slots of a packed table
  // split into keys and values, say), named `name`.
  template <class T>
  void expect_map(std::string_view name, const std::vector<T>& table_keys, const std::vector<T>& table_values,
                  const std::vector<T>& inserted_keys, const std::vector<T>& inserted_values,
                  std::optional<T> empty_key, bool each_key_once = true) {
    std::optional<uint64_t> empty;
    if (empty_key) empty = to_bits(*empty_key);
    judge(kernel::check_map(name, value_kind_of<T>(), bits_of<T>(table_keys), bits_of<T>(table_values),
                            bits_of<T>(inserted_keys), bits_of<T>(inserted_values), empty, each_key_once));
  }
  void expect(bool ok, std::string_view message) {
    if (!ok) fail(message);
  }
  void fail(std::string_view message);

  // ------------------------------------------------------------- results
  const std::optional<kernel::KernelFailure>& failure() const { return failure_; }
  RunFault fault() const { return fault_; }
  const std::string& error() const { return error_; }  // a CUDA error that is no fault of the kernel
  double kernel_ms() const { return kernel_ms_; }
  // The launches so far.
  size_t launch_count() const { return launches_.size(); }
  // The most threads one launch of this case ran (grid x block).
  uint64_t most_threads() const { return most_threads_; }
  // What the case drew, for the explanation: "n=33 bins=4".
  const std::string& drawn() const { return drawn_; }
  // The buffers' device extents (--sanitize places addresses in them).
  std::vector<BufferExtent> buffers() const;
  // The case as data, for repro --trace (case_table.hpp).
  kernel::CaseRecord record() const;
  // Stops the case with a CUDA error that is no fault of the kernel.
  [[noreturn]] void stop_with_error(std::string why);

 private:
  struct Slot {
    kernel::GuardedBuffer mem;
    std::vector<uint64_t> initial;  // bit patterns written before any launch
    unsigned elem_bytes = 4;
    VK kind = VK::U32;
  };
  template <class T>
  Buffer<T> upload_bits(std::string_view name, const std::vector<uint64_t>& bits) {
    std::vector<T> host(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) host[i] = from_bits<T>(bits[i]);
    const size_t slot = allocate(name, host.size(), sizeof(T), value_kind_of<T>(), host.data());
    slots_[slot].initial = bits;
    return Buffer<T>(static_cast<T*>(slots_[slot].mem.data), host.size(), slot);
  }
  template <class T>
  std::string name_of(const Buffer<T>& b) const { return slots_[b.slot()].mem.name; }
  size_t allocate(std::string_view name, size_t n, unsigned elem_bytes, VK kind, const void* host);
  void download(size_t slot, void* host);
  void launch_erased(const void* fn, void** args, Geometry g);
  // One launch, its guards checked; its time in ms.  Stops the case on a
  // fault, a hang, a CUDA error or a write outside a buffer.
  double launch_checked(const void* fn, void** args, Geometry g, bool flush_l2);
  // profile's timing of one launch (CaseOptions::bench_reps): the mean ms.
  double launch_timed(const void* fn, void** args, Geometry g);
  void judge(std::optional<kernel::KernelFailure> f);
  size_t note(std::string_view name, uint64_t v);
  // shared_bytes(); `note_zero` false: 0 is not drawn (a default launch's).
  uint32_t draw_shared(std::string_view name, uint32_t at_least, const void* kernel, bool note_zero);

  TrialSpec spec_;
  kernel::CaseOptions opt_;
  std::deque<Slot> slots_;
  std::optional<kernel::KernelFailure> failure_;
  RunFault fault_ = RunFault::None;
  std::string error_, drawn_;
  double kernel_ms_ = 0;
  uint64_t most_threads_ = 0;
  bool keep_aligned_ = false;
  std::vector<kernel::Drawn> draws_;
  std::vector<Geometry> launches_;
};

}  // namespace atomstress
