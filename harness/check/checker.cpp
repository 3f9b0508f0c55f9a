#include "harness/check/checker.hpp"
#include "harness/check/finding.hpp"
#include "harness/check/value_bins.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace atomstress {

namespace {

// One operation as the checker sees it: an edge old -> new at an address.
// 32-bit kinds use 32-bit states, so an edge is 12 bytes and the sort moves
// half the memory.
#pragma pack(push, 4)
template <class S>
struct Edge {
  S old;
  S nw;
  uint32_t addr;
};
#pragma pack(pop)

// The sort key of an edge: address first, then old value.
template <class S>
inline unsigned key_byte(const Edge<S>& e, unsigned d) {
  if constexpr (sizeof(S) == 4) {
    return unsigned(((uint64_t(e.addr) << 32 | e.old) >> (8 * d)) & 0xff);
  } else {
    return d < 8 ? unsigned((e.old >> (8 * d)) & 0xff) : (e.addr >> (8 * (d - 8))) & 0xff;
  }
}

// LSD radix sort by (addr, old), 8-bit digits.  Digits that are equal across
// all edges are skipped: one hot address skips the address bytes, sums of
// small integers skip the high bytes.
template <class S>
void radix_sort(std::vector<Edge<S>>& v, std::vector<Edge<S>>& tmp) {
  const size_t n = v.size();
  if (n <= 64) {
    std::sort(v.begin(), v.end(), [](const Edge<S>& x, const Edge<S>& y) {
      return x.addr != y.addr ? x.addr < y.addr : x.old < y.old;
    });
    return;
  }
  constexpr unsigned digits = sizeof(S) + 4;
  static thread_local std::vector<uint32_t> hist;
  hist.assign(size_t(digits) * 256, 0);
  for (const auto& e : v) {
#pragma GCC unroll 12
    for (unsigned d = 0; d < digits; ++d) ++hist[d * 256 + key_byte(e, d)];
  }
  tmp.resize(n);
  for (unsigned d = 0; d < digits; ++d) {
    uint32_t* h = &hist[d * 256];
    if (h[key_byte(v[0], d)] == n) continue;
    uint32_t sum = 0;
    for (int i = 0; i < 256; ++i) {
      const uint32_t c = h[i];
      h[i] = sum;
      sum += c;
    }
    Edge<S>* out = tmp.data();
    for (const auto& e : v) out[h[key_byte(e, d)]++] = e;
    v.swap(tmp);
  }
}

// Galloping search in e[b, t), sorted by key(e), starting from pos: the
// index of the first element whose key is x (pos moves there), or t.  What
// an op produces is usually close to what the last one found.
template <class Elem, class X, class Key>
size_t gallop(const Elem* e, size_t b, size_t t, size_t& pos, X x, Key key) {
  if (t == b) return t;
  if (pos < b || pos >= t) pos = b;
  size_t lo, hi, step = 1;
  if (key(e[pos]) < x) {
    lo = pos + 1;
    hi = lo;
    while (hi < t && key(e[hi]) < x) {
      lo = hi + 1;
      step <<= 1;
      hi = pos + step;
    }
    hi = std::min(hi + 1, t);
  } else {
    hi = pos + 1;
    lo = pos;
    while (lo > b && key(e[lo - 1]) >= x) {
      hi = lo;
      step <<= 1;
      lo = pos >= b + step ? pos - step : b;
    }
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (key(e[mid]) < x) lo = mid + 1;
    else hi = mid;
  }
  if (lo < t && key(e[lo]) == x) {
    pos = lo;
    return lo;
  }
  return t;
}

uint32_t uf_find(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

template <class S>
class Checker {
 public:
  Checker(const CheckInput& in, CheckResult& res) : in_(in), res_(res), impl_(*in.impl) {}

  bool run() {
    const size_t n = in_.old.size();
    edges_.resize(n);
    for (size_t o = 0; o < n; ++o) {
      const uint64_t old = in_.old[o];
      edges_[o] = Edge<S>{S(impl_.canon(old)), S(impl_.canon(impl_.phi_in(in_.shared)(old, in_.a[o], in_.b[o]))), in_.addr[o]};
    }
    radix_sort(edges_, tmp_);
    // Vertex ids: the index of the first edge of the run of equal (addr, old).
    indeg_.assign(n, 0);
    parent_.resize(n);
    size_t i = 0;
    uint32_t next_addr = 0;
    while (i < n) {
      const uint32_t addr = edges_[i].addr;
      for (; next_addr < addr; ++next_addr)
        if (!untouched(next_addr)) return false;
      size_t j = i;
      while (j < n && edges_[j].addr == addr) ++j;
      if (!segment(addr, i, j)) return false;
      next_addr = addr + 1;
      i = j;
    }
    for (; next_addr < in_.init.size(); ++next_addr)
      if (!untouched(next_addr)) return false;
    return true;
  }

 private:
  std::string val(uint64_t bits) const { return format_value(impl_.kind, bits); }
  std::string op_name(uint64_t op) const {
    std::string s = "op #" + std::to_string(op);
    if (in_.threads) s += " (thread " + std::to_string(op % in_.threads) + ")";
    return s;
  }
  // `cause`: the concurrent cause the facts suggest (finding.hpp's
  // k*Cause), said after them; settle_cause replaces it where the replay
  // alone shows the op itself wrong.
  bool fail(uint64_t addr, int64_t op, std::string why, std::string_view cause = {}) {
    res_.ok = false;
    res_.bad_addr = int64_t(addr);
    res_.bad_op = op;
    res_.explanation = "address " + std::to_string(addr) + ": " + std::move(why);
    if (!cause.empty()) res_.explanation += ": " + std::string(cause);
    return false;
  }
  // Slow path, for messages only: the first op at addr that read (or wrote) v.
  int64_t first_op(uint32_t addr, S v, bool writer) const {
    for (size_t o = 0; o < in_.old.size(); ++o) {
      if (in_.addr[o] != addr) continue;
      const uint64_t old = in_.old[o];
      const uint64_t x = writer ? impl_.phi_in(in_.shared)(old, in_.a[o], in_.b[o]) : old;
      if (S(impl_.canon(x)) == v) return int64_t(o);
    }
    return -1;
  }

  bool untouched(uint32_t e) {
    if (impl_.canon(in_.final_mem[e]) == impl_.canon(in_.init[e])) return true;
    return fail(e, -1,
                "no operation targeted it, but it changed from " + val(in_.init[e]) + " to " + val(in_.final_mem[e]));
  }

  // Galloping search for x among edges_[b, t) (sorted by old) from pos;
  // returns the first index of x's run, or t.
  size_t find(S x, size_t b, size_t t, size_t& pos) const {
    return gallop(edges_.data(), b, t, pos, x, [](const Edge<S>& e) { return e.old; });
  }

  // An address's initial and final values, canonical.
  struct Ends {
    S init, fin;
  };

  // What the first pass over an address's edges learns about the edges
  // whose new value is no edge's old.
  struct SegmentScan {
    uint32_t fin_writes = 0;  // edges that wrote the final value
    int64_t fin_writer = -1;  // the first of them
    int64_t dangling = -1;    // the first edge whose new value is neither a vertex nor the final value
  };

  // The edges [b, t) of one address, sorted by old.
  bool segment(uint32_t addr, size_t b, size_t t) {
    const Ends ends{S(impl_.canon(in_.init[addr])), S(impl_.canon(in_.final_mem[addr]))};
    const SegmentScan scan = count_in_degrees(b, t, ends.fin);
    // Strongest evidence first: a returned value that nothing produced.
    return every_return_produced(addr, b, t, ends) && no_dangling_write(addr, scan, ends) &&
           final_value_balanced(addr, b, t, scan, ends) && degrees_balanced(addr, b, t, ends) &&
           connected(addr, b, t, ends);
  }

  // Vertex of each edge's new value; the final value may be no edge's old.
  SegmentScan count_in_degrees(size_t b, size_t t, S fin) {
    SegmentScan scan;
    size_t pos = b, head = b;
    for (size_t i = b; i < t; ++i) {
      if (edges_[i].old != edges_[head].old) head = i;
      parent_[i] = uint32_t(head);
      const S x = edges_[i].nw;
      const size_t v = find(x, b, t, pos);
      if (v < t) {
        ++indeg_[v];
        continue;
      }
      if (x == fin) {
        ++scan.fin_writes;
        if (scan.fin_writer < 0) scan.fin_writer = int64_t(i);
        continue;
      }
      if (scan.dangling < 0) scan.dangling = int64_t(i);  // reported below, after stronger evidence
    }
    return scan;
  }

  bool every_return_produced(uint32_t addr, size_t b, size_t t, const Ends& ends) {
    for (size_t i = b; i < t;) {
      size_t j = i + 1;
      while (j < t && edges_[j].old == edges_[i].old) ++j;
      const S value = edges_[i].old;
      if (indeg_[i] == 0 && value != ends.init) {
        const int64_t o = first_op(addr, value, false);
        return fail(addr, o,
                    op_name(o) + " returned " + val(value) +
                        ", but no operation produced that value and it is not the initial value " + val(ends.init));
      }
      i = j;
    }
    return true;
  }

  bool no_dangling_write(uint32_t addr, const SegmentScan& scan, const Ends& ends) {
    if (scan.dangling < 0) return true;
    const S x = edges_[size_t(scan.dangling)].nw;
    const int64_t o = first_op(addr, edges_[size_t(scan.dangling)].old, false);
    return fail(addr, o,
                op_name(o) + " returned " + val(edges_[size_t(scan.dangling)].old) + " and so, by its spec, wrote " +
                    val(x) + ", but no operation ever read " + val(x) + " and the final value is " + val(ends.fin),
                kLostUpdateCause);
  }

  // Degree balance at the final value when it is no vertex: written once
  // (or never, when it is the initial value).
  bool final_value_balanced(uint32_t addr, size_t b, size_t t, const SegmentScan& scan, const Ends& ends) {
    const S init = ends.init, fin = ends.fin;
    const bool fin_is_vertex = scan.fin_writer < 0 && [&] {
      size_t p = b;
      return find(fin, b, t, p) < t;
    }();
    if (fin_is_vertex || scan.fin_writes == 1 || (scan.fin_writes == 0 && fin == init)) return true;
    if (scan.fin_writes == 0)
      return fail(addr, -1,
                  "the final value " + val(fin) + " was never written by any operation and is not the initial value " +
                      val(init));
    const int64_t o = first_op(addr, fin, true);
    return fail(addr, o,
                val(fin) + " was written " + std::to_string(scan.fin_writes) + " times (first by " + op_name(o) +
                    ") but never read",
                kUnreadWriteCause);
  }

  // Degree balance at every vertex: out - in = [v == init] - [v == final].
  bool degrees_balanced(uint32_t addr, size_t b, size_t t, const Ends& ends) {
    const S init = ends.init, fin = ends.fin;
    bool init_seen = false;
    for (size_t i = b; i < t;) {
      size_t j = i + 1;
      while (j < t && edges_[j].old == edges_[i].old) ++j;
      const S value = edges_[i].old;
      const int64_t out = int64_t(j - i), in = indeg_[i];
      const int64_t is_init = value == init, is_final = value == fin;
      init_seen |= bool(is_init);
      const int64_t balance = out - in - is_init + is_final;
      if (balance != 0) return unbalanced(addr, value, out, in, is_init, is_final, init);
      i = j;
    }
    if (!init_seen)
      return fail(addr, -1,
                  "no operation returned the initial value " + val(init) + ", yet some operation must have been first");
    return true;
  }

  // The failure at a vertex whose degrees do not balance.
  bool unbalanced(uint32_t addr, S value, int64_t out, int64_t in, int64_t is_init, int64_t is_final, S init) {
    const int64_t balance = out - in - is_init + is_final;
    const std::string init_note = is_init ? " and was the initial value" : "";
    if (in + is_init == 0) {
      const int64_t o = first_op(addr, value, false);
      return fail(addr, o,
                  op_name(o) + " returned " + val(value) +
                      ", but no operation produced that value and it is not the initial value " + val(init));
    }
    if (balance > 0) {
      const int64_t o = first_op(addr, value, false);
      return fail(addr, o,
                  std::to_string(out) + " operations (first " + op_name(o) + ") returned " + val(value) +
                      ", but it was written only " + std::to_string(in) + " time(s)" + init_note,
                  kDoubleReadCause);
    }
    const int64_t o = first_op(addr, value, true);
    return fail(addr, o,
                val(value) + " was written " + std::to_string(in) + " time(s) (first by " + op_name(o) + ")" +
                    init_note + " but only " + std::to_string(out) + " operation(s) read it" +
                    (is_final ? " and it is the final value" : ""),
                kUnreadWriteCause);
  }

  // Connectivity: every edge reachable from the initial state.  parent_[i]
  // starts as the head of i's run; an edge joins its run to its target's.
  bool connected(uint32_t addr, size_t b, size_t t, const Ends& ends) {
    size_t pos = b;
    for (size_t i = b; i < t; ++i) {
      const size_t v = find(edges_[i].nw, b, t, pos);
      if (v == t) continue;  // the final value, read by no one: a leaf
      const uint32_t x = uf_find(parent_, uint32_t(i)), y = uf_find(parent_, uint32_t(v));
      if (x != y) parent_[std::max(x, y)] = std::min(x, y);
    }
    size_t p = b;
    const size_t init_v = find(ends.init, b, t, p);
    const uint32_t root = uf_find(parent_, uint32_t(init_v));
    for (size_t i = b; i < t; ++i) {
      if (uf_find(parent_, uint32_t(i)) != root) {
        const int64_t o = first_op(addr, edges_[i].old, false);
        return fail(addr, o,
                    op_name(o) + " returned " + val(edges_[i].old) + ", which lies on a cycle of values that the initial value " +
                        val(ends.init) + " never reaches: no sequential order explains it");
      }
    }
    return true;
  }

  const CheckInput& in_;
  CheckResult& res_;
  const Entry& impl_;
  // Scratch kept per thread across checks: no page faults per trial.
  static inline thread_local std::vector<Edge<S>> edges_, tmp_;
  static inline thread_local std::vector<uint32_t> indeg_, parent_;
};

// ---------------------------------------------------------------- fast path
// Decides pass/fail exactly, without messages.  An edge is its sort key
// k = (addr - amin) << bo | (old - omin) plus its target: where they fit in
// 64 bits, one word k << tb | target field (the target's offset, or its
// delta from old), else a 12-byte struct.  One MSD pass (fused with building
// the edges) splits them into cache-sized buckets by the key's top bits.
// Buckets are then finished one at a time: bucket b is radix sorted in cache
// while bucket b - 1, whose targets lie almost always in buckets <= b, is
// scanned, so every edge comes back from memory once after it is scattered.
// A target in a bucket not yet sorted is deferred to the end.  On any
// failure, or a shape it does not cover, check_history reruns the
// message-producing Checker above.  The fast path is compiled twice
// (checker_fast.inc): portable, and for x86-64-v3 where the CPU has it.

// Scratch kept per thread across checks (no page faults per trial), shared
// by both copies of the fast path.
struct Buf {
  void* p = nullptr;
  size_t bytes = 0;
  ~Buf() { std::free(p); }
  void* get(size_t b) {
#if defined(__SANITIZE_ADDRESS__)
    // Exactly what is asked for, every time, so that AddressSanitizer sees
    // a write past it (the rounding and reuse below would hide it).
    if (b != bytes) {
      std::free(p);
      p = nullptr;
      if (posix_memalign(&p, 64, b) != 0) throw std::bad_alloc();
      bytes = b;
    }
    return p;
#else
    if (b > bytes) {
      std::free(p);
      constexpr size_t huge = size_t(2) << 20;
      const size_t r = (b + huge - 1) & ~(huge - 1);
      p = std::aligned_alloc(huge, r);
      if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
      madvise(p, r, MADV_HUGEPAGE);  // far fewer page faults on first use
#endif
      bytes = r;
    }
    return p;
#endif
  }
};
inline thread_local Buf edge_buf, aux_buf, big_buf, small_buf;

// Counts of ops per bin of keys, taken in the fast path's first pass: where
// they are fine enough they stand in for its fine histogram, whose own pass
// would read addr and old again.  From kBinsFrom ops:
//  - address bins (addr >> shift) where the memory has more than kAddrBins
//    words, counted kAddrCopies times over so that runs of one address do
//    not wait on their own increments;
//  - value bins (old >> shift) where it has one word (n / 256 bins, at most
//    ValueBins::kMaxBins, the values in half of them: as fine as the count pass's).
// cnt == nullptr: none.
constexpr size_t kAddrBins = 2048, kAddrCopies = 4, kBinsFrom = size_t(1) << 16;
struct KeyBins {
  bool by_addr = false;
  unsigned shift = 0;
  uint64_t lo = 0;  // the bin (addr or old >> shift) that cnt[0] counts
  size_t bins = 0;
  const uint32_t* cnt = nullptr;
};

inline thread_local ValueBins value_bins;

#define AS_FAST_TARGET
#define AS_FAST_NS fast_portable
#include "checker_fast.inc"
#undef AS_FAST_NS
#undef AS_FAST_TARGET

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AS_FAST_V3 1
#define AS_FAST_TARGET [[gnu::target("arch=x86-64-v3")]]
#define AS_FAST_NS fast_v3
#include "checker_fast.inc"
#undef AS_FAST_NS
#undef AS_FAST_TARGET
#else
#define AS_FAST_V3 0
#endif

}  // namespace

namespace {
std::atomic<bool> pin_portable{false};
}

void checker_pin_portable(bool pin) { pin_portable = pin; }

bool checker_fast_path_v3() {
#if AS_FAST_V3
  static const bool cpu = __builtin_cpu_supports("x86-64-v3");
  return cpu && !pin_portable;
#else
  return false;
#endif
}

namespace {
// The fast path's copy for this CPU.
template <class S>
bool fast_check(const CheckInput& in) {
#if AS_FAST_V3
  if (checker_fast_path_v3()) return fast_v3::check<S>(in);
#endif
  return fast_portable::check<S>(in);
}
}  // namespace

namespace {
// Do the arrays agree?  Else the result says why.
bool sizes_agree(const CheckInput& in, CheckResult& res) {
  const size_t nops = in.old.size();
  res.ops_checked = nops;
  if (in.final_mem.size() != in.init.size() || in.addr.size() != nops || in.a.size() != nops || in.b.size() != nops ||
      nops >= (size_t(1) << 32)) {
    res.ok = false;
    res.explanation = "internal error: history arrays have inconsistent sizes";
    return false;
  }
  return true;
}

// Does every op target the trial's memory?  Else the result names the first
// that does not.  (The fast path finds the address range in its first pass.)
bool addresses_in_memory(const CheckInput& in, CheckResult& res) {
  for (size_t o = 0; o < in.addr.size(); ++o) {
    if (in.addr[o] >= in.init.size()) {
      res.ok = false;
      res.bad_op = int64_t(o);
      res.explanation =
          "op #" + std::to_string(o) + " targets element " + std::to_string(in.addr[o]) + " outside the trial's memory";
      return false;
    }
  }
  return true;
}

bool fast_path(const CheckInput& in) {
  return vk_bytes(in.impl->kind) <= 4 ? fast_check<uint32_t>(in) : fast_check<uint64_t>(in);
}

void reference_path(const CheckInput& in, CheckResult& res) {
  if (vk_bytes(in.impl->kind) <= 4) Checker<uint32_t>(in, res).run();
  else Checker<uint64_t>(in, res).run();
}
}  // namespace

CheckResult check_history(const CheckInput& in) {
  CheckResult res;
  if (!sizes_agree(in, res) || fast_path(in) || !addresses_in_memory(in, res)) return res;
  reference_path(in, res);
  return res;
}

bool check_history_fast(const CheckInput& in) {
  CheckResult res;
  return sizes_agree(in, res) && fast_path(in);
}

CheckResult check_history_reference(const CheckInput& in) {
  CheckResult res;
  if (sizes_agree(in, res) && addresses_in_memory(in, res)) reference_path(in, res);
  return res;
}

}  // namespace atomstress
