#include "checker.hpp"

#include <algorithm>
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
  bool fail(uint64_t addr, int64_t op, std::string why) {
    res_.ok = false;
    res_.bad_addr = int64_t(addr);
    res_.bad_op = op;
    res_.explanation = "address " + std::to_string(addr) + ": " + std::move(why);
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

  // The edges [b, t) of one address, sorted by old.
  bool segment(uint32_t addr, size_t b, size_t t) {
    const S init = S(impl_.canon(in_.init[addr]));
    const S fin = S(impl_.canon(in_.final_mem[addr]));
    // Vertex of each edge's new value; the final value may be no edge's old.
    size_t pos = b, head = b;
    uint32_t fin_writes = 0;
    int64_t fin_writer = -1, dangling = -1;
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
        ++fin_writes;
        if (fin_writer < 0) fin_writer = int64_t(i);
        continue;
      }
      if (dangling < 0) dangling = int64_t(i);  // reported below, after stronger evidence
    }
    // Strongest evidence first: a returned value that nothing produced.
    for (size_t i = b; i < t;) {
      size_t j = i + 1;
      while (j < t && edges_[j].old == edges_[i].old) ++j;
      const S value = edges_[i].old;
      if (indeg_[i] == 0 && value != init) {
        const int64_t o = first_op(addr, value, false);
        return fail(addr, o,
                    op_name(o) + " returned " + val(value) +
                        ", but no operation produced that value and it is not the initial value " + val(init));
      }
      i = j;
    }
    if (dangling >= 0) {
      const S x = edges_[size_t(dangling)].nw;
      const int64_t o = first_op(addr, edges_[size_t(dangling)].old, false);
      return fail(addr, o,
                  op_name(o) + " returned " + val(edges_[size_t(dangling)].old) + " and so wrote " + val(x) +
                      ", but no operation ever read " + val(x) + " and the final value is " + val(fin) +
                      ": a later update was lost or read a stale value");
    }
    // Degree balance: out - in = [v == init] - [v == final].
    const bool fin_is_vertex = fin_writer < 0 && [&] {
      size_t p = b;
      return find(fin, b, t, p) < t;
    }();
    if (!fin_is_vertex && fin_writes != 1 && !(fin_writes == 0 && fin == init)) {
      if (fin_writes == 0)
        return fail(addr, -1,
                    "the final value " + val(fin) + " was never written by any operation and is not the initial value " +
                        val(init));
      const int64_t o = first_op(addr, fin, true);
      return fail(addr, o,
                  val(fin) + " was written " + std::to_string(fin_writes) + " times (first by " + op_name(o) +
                      ") but never read: an update was lost");
    }
    bool init_seen = false;
    for (size_t i = b; i < t;) {
      size_t j = i + 1;
      while (j < t && edges_[j].old == edges_[i].old) ++j;
      const S value = edges_[i].old;
      const int64_t out = int64_t(j - i), in = indeg_[i];
      const int64_t is_init = value == init, is_final = value == fin;
      init_seen |= bool(is_init);
      const int64_t balance = out - in - is_init + is_final;
      if (balance != 0) {
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
                          ", but it was written only " + std::to_string(in) + " time(s)" + init_note +
                          ": two operations read the same value, so an update was lost");
        }
        const int64_t o = first_op(addr, value, true);
        return fail(addr, o,
                    val(value) + " was written " + std::to_string(in) + " time(s) (first by " + op_name(o) + ")" +
                        init_note + " but only " + std::to_string(out) + " operation(s) read it" +
                        (is_final ? " and it is the final value" : "") + ": an update was lost");
      }
      i = j;
    }
    if (!init_seen)
      return fail(addr, -1,
                  "no operation returned the initial value " + val(init) + ", yet some operation must have been first");

    // Connectivity: every edge reachable from the initial state.  parent_[i]
    // starts as the head of i's run; an edge joins its run to its target's.
    pos = b;
    for (size_t i = b; i < t; ++i) {
      const size_t v = find(edges_[i].nw, b, t, pos);
      if (v == t) continue;  // the final value, read by no one: a leaf
      const uint32_t x = uf_find(parent_, uint32_t(i)), y = uf_find(parent_, uint32_t(v));
      if (x != y) parent_[std::max(x, y)] = std::min(x, y);
    }
    size_t p = b;
    const size_t init_v = find(init, b, t, p);
    const uint32_t root = uf_find(parent_, uint32_t(init_v));
    for (size_t i = b; i < t; ++i) {
      if (uf_find(parent_, uint32_t(i)) != root) {
        const int64_t o = first_op(addr, edges_[i].old, false);
        return fail(addr, o,
                    op_name(o) + " returned " + val(edges_[i].old) + ", which lies on a cycle of values that the initial value " +
                        val(init) + " never reaches: no sequential order explains it");
      }
    }
    return true;
  }

  const CheckInput& in_;
  CheckResult& res_;
  const ImplInfo& impl_;
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
// message-producing Checker above.
namespace fast {

struct Buf {
  void* p = nullptr;
  size_t bytes = 0;
  ~Buf() { std::free(p); }
  void* get(size_t b) {
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
  }
};
inline thread_local Buf edge_buf, aux_buf, big_buf, small_buf;

#pragma pack(push, 4)
template <class K>
struct E {
  K k;         // (addr - amin) << bo | (old - omin)
  uint32_t t;  // target's offset (bo <= 32) or its signed delta from old's
};
#pragma pack(pop)

// The word an edge sorts by: its key, shifted left by the target field's
// width in the packed layout.
template <class K>
inline K raw(const E<K>& e) { return e.k; }
inline uint64_t raw(uint64_t w) { return w; }


// Sorts a[0, n) by bits [lo, lo + bits) of raw() - sub (the bits above are
// equal).
template <class T>
void lsd(T* a, T* tmp, size_t n, uint64_t sub, unsigned lo, unsigned bits) {
  if (n < 2 || bits == 0) return;
  if (n <= 32) {
    for (size_t i = 1; i < n; ++i) {
      const T x = a[i];
      size_t j = i;
      for (; j > 0 && raw(a[j - 1]) > raw(x); --j) a[j] = a[j - 1];
      a[j] = x;
    }
    return;
  }
  const unsigned passes = (bits + 10) / 11, w = (bits + passes - 1) / passes;
  const size_t hs = size_t(1) << w;
  const size_t mask = hs - 1;
  uint32_t hist[6][2048];
  std::memset(hist, 0, sizeof(uint32_t) * 2048 * passes);
  if (passes == 2) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = (raw(a[i]) - sub) >> lo;
      ++hist[0][k & mask];
      ++hist[1][(k >> w) & mask];
    }
  } else if (passes == 3) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = (raw(a[i]) - sub) >> lo;
      ++hist[0][k & mask];
      ++hist[1][(k >> w) & mask];
      ++hist[2][(k >> 2 * w) & mask];
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = (raw(a[i]) - sub) >> lo;
      for (unsigned p = 0; p < passes; ++p) ++hist[p][(k >> (p * w)) & mask];
    }
  }
  T *src = a, *dst = tmp;
  for (unsigned p = 0; p < passes; ++p) {
    uint32_t* h = hist[p];
    const unsigned sh = lo + p * w;
    if (h[((raw(src[0]) - sub) >> sh) & mask] == n) continue;
    uint32_t sum = 0;
    for (size_t i = 0; i < hs; ++i) {
      const uint32_t c = h[i];
      h[i] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) {
      const T e = src[i];
      dst[h[((raw(e) - sub) >> sh) & mask]++] = e;
    }
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(a, src, n * sizeof(T));
}

template <class T>
void msd(T* a, size_t n, uint64_t sub, unsigned lo, unsigned bits, T* big, T* small, size_t cache_n) {
  if (n <= cache_n || bits == 0) return lsd(a, small, n, sub, lo, bits);
  const unsigned d = std::min(bits, 11u), shift = lo + bits - d;
  const size_t hs = size_t(1) << d;
  const size_t mask = hs - 1;
  std::vector<uint32_t> h(hs + 1, 0);
  for (size_t i = 0; i < n; ++i) ++h[(((raw(a[i]) - sub) >> shift) & mask) + 1];
  for (size_t i = 0; i < hs; ++i) h[i + 1] += h[i];
  std::vector<uint32_t> start(h.begin(), h.end());
  for (size_t i = 0; i < n; ++i) big[h[((raw(a[i]) - sub) >> shift) & mask]++] = a[i];
  std::memcpy(a, big, n * sizeof(T));
  for (size_t i = 0; i < hs; ++i) msd(a + start[i], start[i + 1] - start[i], sub, lo, bits - d, big, small, cache_n);
}

// How an edge's target is stored: its offset, or its signed delta from old;
// in the packed word (below the key) or in a 12-byte struct.
enum class Layout { Packed, PackedDelta, Struct, StructDelta };

template <class S, class K, Layout L, bool Nan>
class Fast {
  static constexpr bool kPacked = L == Layout::Packed || L == Layout::PackedDelta;
  static constexpr bool kDelta = L == Layout::PackedDelta || L == Layout::StructDelta;
  using T = std::conditional_t<kPacked, uint64_t, E<K>>;
  static_assert(!kPacked || sizeof(K) == 8);

 public:
  // tb: the packed target field's width (packed layouts only).
  Fast(const CheckInput& in, unsigned bo, unsigned bits, unsigned tb, uint32_t amin, S omin, S ospan)
      : in_(in), impl_(*in.impl), bo_(bo), bits_(bits), tb_(kPacked ? tb : 0), amin_(amin), omin_(omin),
        ospan_(ospan) {}

  bool run() {
    const size_t n = in_.old.size();
    // kW sentinels past the end: the window search may read them.
    e_ = static_cast<T*>(edge_buf.get((n + kW) * sizeof(T)));
    n_ = n;
    if (!partition()) return false;
    for (size_t j = 0; j < kW; ++j) {
      if constexpr (kPacked) e_[n + j] = ~uint64_t(0);
      else e_[n + j] = T{K(~K(0)), 0};
    }
    // Offset from the edges' 2 MiB alignment: no 4K aliasing between e[i]
    // and aux[i].
    char* ab = static_cast<char*>(aux_buf.get(2 * n * sizeof(uint32_t) + 8192));
    par_ = reinterpret_cast<uint32_t*>(ab + 2112);
    bal_ = reinterpret_cast<int32_t*>(ab + 4096 + ((n * sizeof(uint32_t) + 4095) & ~size_t(4095)) + 1088);
    deferred_.clear();
    // Bucket b is sorted while bucket b - 1 is scanned.
    for (size_t b = 0; b <= hs_; ++b) {
      if (b < hs_) sort_bucket(b);
      if (b > 0 && !scan_bucket(b - 1, std::min(b + 1, hs_))) return false;
    }
    return finish();
  }

 private:
  static constexpr size_t kW = 8;

  S canon(uint64_t x) const {
    if constexpr (Nan) {
      const uint64_t m = sizeof(S) == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;
      const uint64_t inf = sizeof(S) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
      if ((x & m) > inf) [[unlikely]]
        return S(impl_.canon(x));
    }
    return S(x);
  }
  K key_of(uint32_t ad, uint64_t old) const { return apart(ad) | K(S(canon(old) - omin_)); }
  // bo <= 63 (bits <= 63), and bo == 32 for a 32-bit K only with one address.
  K apart(uint32_t ad) const { return K(uint64_t(ad - amin_) << bo_); }
  uint32_t addr_of(K k) const { return uint32_t(uint64_t(k) >> bo_) + amin_; }
  size_t bucket_of(K k) const { return fb_ ? size_t(tab_[size_t(k >> fs_)]) : 0; }
  // How an edge decodes.  The hot loops copy it (and every other member they
  // read) into locals: their stores through the edge and vertex arrays could
  // alias the members, which the compiler would then reload on every edge.
  struct Codec {
    unsigned tb;  // the packed target field's width
    K omask;      // the old-value bits of a key
    uint64_t tmask, bias;
    K key(const T& e) const {
      if constexpr (kPacked) return e >> tb;
      else return e.k;
    }
    // Compares with raw words: key(e) < x iff raw(e) < rawkey(x).
    K rawkey(K x) const {
      if constexpr (kPacked) return x << tb;
      else return x;
    }
    K target(const T& e) const {
      if constexpr (L == Layout::Packed) return ((e >> tb) & ~omask) | (e & tmask);
      else if constexpr (L == Layout::PackedDelta) return K((e >> tb) + (e & tmask) - bias);
      else if constexpr (L == Layout::StructDelta) return (e.k & ~omask) | K((e.k & omask) + K(int64_t(int32_t(e.t))));
      else return (e.k & ~omask) | K(e.t);
    }
  };
  K key(const T& e) const { return cd_.key(e); }
  K rawkey(K x) const { return cd_.rawkey(x); }

  // Scatters every edge into its top-level bucket.
  // Map: 0 one bucket, 1 aligned groups (a shift), 2 the table.
  template <int Map>
  bool scatter(uint32_t* hp) {
    const size_t n = n_;
    const uint32_t* addr = in_.addr.data();
    const uint64_t *old = in_.old.data(), *a = in_.a.data(), *b = in_.b.data();
    const PhiFn phi = impl_.phi_in(in_.shared);
    bool bad = false;
    T* e = e_;
    const S omin = omin_, ospan = ospan_;
    const uint32_t amin = amin_;
    const unsigned bo = bo_, tb = tb_, gshift = gshift_, fs = fs_;
    const uint64_t tmask = tmask_, bias = bias_;
    const uint32_t* tab = tab_.data();
    // phi through its pointer in batches, apart from the scatter.
    constexpr size_t B = 256;
    uint64_t nv[B];
    for (size_t o0 = 0; o0 < n; o0 += B) {
      const size_t m = std::min(B, n - o0);
      for (size_t j = 0; j < m; ++j) nv[j] = phi(old[o0 + j], a[o0 + j], b[o0 + j]);
      for (size_t j = 0; j < m; ++j) {
        const size_t o = o0 + j;
        const S os = S(canon(old[o]) - omin);
        const S ns = S(canon(nv[j]) - omin);
        bad |= ns > ospan;
        const K k = K(uint64_t(addr[o] - amin) << bo) | K(os);
        T x;
        if constexpr (L == Layout::Packed) {
          x = k << tb | uint64_t(ns);
        } else if constexpr (L == Layout::PackedDelta) {
          const uint64_t f = uint64_t(ns) - uint64_t(os) + bias;
          bad |= f > tmask;
          x = k << tb | f;
        } else if constexpr (L == Layout::StructDelta) {
          const int64_t dl = int64_t(uint64_t(ns) - uint64_t(os));
          bad |= dl != int64_t(int32_t(dl));
          x = T{k, uint32_t(int32_t(dl))};
        } else {
          x = T{k, uint32_t(ns)};
        }
        const size_t bk = Map == 1 ? size_t(k >> gshift) : Map == 2 ? size_t(tab[size_t(k >> fs)]) : 0;
        e[hp[bk]++] = x;
      }
    }
    return bad;
  }

  [[gnu::noinline]] bool partition() {
    const size_t n = n_;
    const uint32_t* addr = in_.addr.data();
    const uint64_t* old = in_.old.data();
    cache_n_ = (size_t(512) << 10) / sizeof(T);
    unsigned d1 = 0;
    while (d1 < std::min(bits_, 11u) && (n >> d1) > cache_n_ / 4) ++d1;
    // Fine bins of the key's top fb bits, merged into buckets of about n >>
    // d1 edges: skewed keys (float sums) still give cache-sized buckets.
    fb_ = d1 ? std::min(bits_, d1 + 5) : 0;
    fs_ = bits_ - fb_;
    omask_ = bo_ == 0 ? K(0) : K(~K(0) >> (8 * sizeof(K) - bo_));
    if constexpr (kPacked) {
      tmask_ = tb_ == 0 ? 0 : ~uint64_t(0) >> (64 - tb_);
      bias_ = kDelta ? uint64_t(1) << (tb_ - 1) : 0;
    }
    cd_ = Codec{tb_, omask_, tmask_, bias_};
    std::vector<uint32_t> h;
    if (fb_ > 0) {
      const size_t nf = size_t(1) << fb_;
      cnt_.assign(nf, 0);
      uint32_t* cnt = cnt_.data();
      const S omin = omin_;
      const uint32_t amin = amin_;
      const unsigned bo = bo_, fs = fs_;
      for (size_t o = 0; o < n; ++o)
        ++cnt[size_t((K(uint64_t(addr[o] - amin) << bo) | K(S(canon(old[o]) - omin))) >> fs)];
      const size_t target = std::max<size_t>(1, n >> d1);
      tab_.resize(nf);
      start_.assign(1, 0);
      bfirst_.assign(1, 0);
      size_t acc = 0;
      for (size_t f = 0; f < nf; ++f) {
        if (acc > 0 && acc + cnt[f] > target) {
          start_.push_back(start_.back() + uint32_t(acc));
          bfirst_.push_back(uint32_t(f));
          acc = 0;
        }
        tab_[f] = uint32_t(bfirst_.size() - 1);
        acc += cnt[f];
      }
      start_.push_back(start_.back() + uint32_t(acc));
      bfirst_.push_back(uint32_t(nf));
    } else {
      start_ = {0, uint32_t(n)};
      bfirst_ = {0, 1};
    }
    hs_ = start_.size() - 1;
    h.assign(start_.begin(), start_.end());
    // Unskewed keys: aligned groups of 2^5 fine bins, a shift instead of a
    // table in the scatter.
    if (fb_ > 0) {
      const size_t nf = size_t(1) << fb_, g = std::min<size_t>(32, nf);
      size_t maxg = 0;
      std::vector<uint32_t> gs(nf / g + 1, 0);
      for (size_t f = 0; f < nf; ++f) gs[f / g + 1] += cnt_[f];
      for (size_t i = 1; i < gs.size(); ++i) maxg = std::max<size_t>(maxg, gs[i]);
      if (maxg <= 2 * std::max<size_t>(1, n >> d1)) {
        start_.assign(1, 0);
        bfirst_.assign(1, 0);
        for (size_t i = 1; i < gs.size(); ++i) {
          start_.push_back(start_.back() + gs[i]);
          bfirst_.push_back(uint32_t(std::min(i * g, nf)));
        }
        for (size_t f = 0; f < nf; ++f) tab_[f] = uint32_t(f / g);
        hs_ = start_.size() - 1;
        h.assign(start_.begin(), start_.end());
        gshift_ = unsigned(std::countr_zero(g)) + fs_;
        uniform_ = true;
      }
    }
    const bool bad = uniform_ ? scatter<1>(h.data()) : fb_ ? scatter<2>(h.data()) : scatter<0>(h.data());
    if (bad) return false;
    size_t maxb = 0;
    for (size_t i = 0; i < hs_; ++i) maxb = std::max<size_t>(maxb, start_[i + 1] - start_[i]);
    small_ = static_cast<T*>(small_buf.get(std::min(maxb, cache_n_) * sizeof(T) + 64));
    big_ = maxb > cache_n_ ? static_cast<T*>(big_buf.get(maxb * sizeof(T))) : nullptr;
    return true;
  }

  [[gnu::noinline]] void sort_bucket(size_t b) {
    const size_t s = start_[b], t = start_[b + 1];
    // Keys in [lo, hi) << fs: sort by their offset from lo.
    const K lo = K(K(bfirst_[b]) << fs_), span = K(K(bfirst_[b + 1] - bfirst_[b]) << fs_);
    const unsigned bits = fb_ ? unsigned(std::bit_width(K(span - 1))) : bits_;
    msd(e_ + s, t - s, uint64_t(rawkey(lo)), tb_, bits, big_, small_, cache_n_);
    std::memset(par_ + s, 0, (t - s) * sizeof(uint32_t));
    std::memset(bal_ + s, 0, (t - s) * sizeof(int32_t));
  }

  // The first index in [s, t) whose key is >= x (binary search).
  size_t lower_bound(K x, size_t s, size_t t) const {
    const T* e = e_;
    const K xr = rawkey(x);
    size_t len = t - s, lo = s;
    while (len > 0) {
      const size_t half = len / 2;
      if (raw(e[lo + half]) < xr) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    return lo;
  }

  // Where x is or would be, for x among the sorted keys: e[0, end) is sorted
  // and every key at or past end is greater than x.  Edge i (key k, first of
  // its run at head) is the hint: what an op produces is usually a few runs
  // past what it read.
  // xr: rawkey(x).
  size_t locate(const T* e, K x, K xr, K k, size_t i, size_t head, size_t end) const {
    if (x > k) [[likely]] {
      // Most targets are a run or two ahead: a window of 4 past i first, then
      // windows of kW.  A window is passed only if all its keys are < x, so
      // the kW sentinels past n stop them.
      {
        size_t c = 0;
        for (size_t j = 1; j <= 4; ++j) c += raw(e[i + j]) < xr;
        if (c < 4) return i + 1 + c;
      }
      for (size_t lo = i + 5, w = 0; w < 4; ++w, lo += kW) {
        size_t c = 0;
        for (size_t j = 0; j < kW; ++j) c += raw(e[lo + j]) < xr;
        if (c < kW) return lo + c;
      }
      const size_t tb = bucket_of(x);
      return lower_bound(x, std::max(i, size_t(start_[tb])), std::min(end, size_t(start_[tb + 1])));
    }
    if (x == k) return head;
    if (i >= kW) {
      const size_t lo = i - kW;
      size_t c = 0;
      for (size_t j = 0; j < kW; ++j) c += raw(e[lo + j]) < xr;
      if (c > 0) return lo + c;
    }
    const size_t tb = bucket_of(x);
    return lower_bound(x, start_[tb], std::min(i, size_t(start_[tb + 1])));
  }

  uint32_t root(uint32_t x) {
    uint32_t* u = par_;
    for (;;) {
      const uint32_t p = u[x];
      if (!p) return x;
      const uint32_t gp = u[p - 1];
      if (!gp) return p - 1;
      u[x] = gp;
      x = gp - 1;
    }
  }

  bool untouched_until(uint32_t a) {
    for (; next_addr_ < a; ++next_addr_)
      if (impl_.canon(in_.final_mem[next_addr_]) != impl_.canon(in_.init[next_addr_])) return false;
    next_addr_ = a + 1;
    return true;
  }

  // A new address begins at key k: close the last one, open this one.
  [[gnu::noinline]] bool address_change(K k) {
    if (any_) {
      if (!init_seen_) return false;
      ++A_;
    }
    any_ = true;
    const uint32_t abs = addr_of(k);
    if (!untouched_until(abs)) return false;
    cur_ad_ = k & ~omask_;
    init_key_ = key_of(abs, in_.init[abs]);
    fin_key_ = key_of(abs, in_.final_mem[abs]);
    init_seen_ = false;
    return true;
  }

  // Edges of bucket b; buckets below sorted_hi are sorted.
  [[gnu::noinline]] bool scan_bucket(size_t b, size_t sorted_hi) {
    const size_t s = start_[b], t = start_[b + 1];
    if (s == t) return true;
    if (!any_) {  // the first edge of all
      prev_ = K(~key(e_[s]));
      if (!address_change(key(e_[s]))) return false;
    }
    const size_t end = start_[sorted_hi];
    // Targets at or past limit are in buckets not sorted yet.
    const K limit = sorted_hi >= hs_ ? K(~K(0)) : K(K(bfirst_[sorted_hi]) << fs_);
    const T* e = e_;
    uint32_t* par = par_;
    int32_t* bal = bal_;
    const Codec cd = cd_;
    const K amask = ~cd.omask;
    const size_t n = n_;
    uint32_t head = head_, x = x_;
    K prev = prev_, cur_ad = cur_ad_, init_key = init_key_, fin_key = fin_key_;
    bool init_seen = init_seen_;
    uint64_t V = V_, U = U_;
    for (size_t i = s; i < t; ++i) {
      const T ed = e[i];
      const K k = cd.key(ed);
      if (k != prev) {
        if ((k & amask) != cur_ad) [[unlikely]] {
          init_seen_ = init_seen;
          if (!address_change(k)) return false;
          cur_ad = cur_ad_;
          init_key = init_key_;
          fin_key = fin_key_;
          init_seen = false;
        }
        prev = k;
        // x is a root.  When the last union made it this vertex's parent,
        // the (predicted) branch spares the chain of dependent loads.
        if (par[i] != x + 1) [[unlikely]] x = root(uint32_t(i));
        head = uint32_t(i);
        ++V;
        if ((k == fin_key) | (k == init_key)) [[unlikely]] {
          bal[head] += int32_t(k == fin_key) - int32_t(k == init_key);
          init_seen |= k == init_key;
        }
      }
      ++bal[head];
      const K tk = cd.target(ed);
      // (With every bucket sorted, limit is the largest key: deferring it
      // too is merely slower.)
      if (tk >= limit) [[unlikely]] {
        deferred_.push_back(Deferred{head, tk});
        continue;
      }
      const size_t v = locate(e, tk, cd.rawkey(tk), k, i, head, end);
      if (v < n && cd.key(e[v]) == tk) {
        --bal[v];
        const uint32_t y = root(uint32_t(v));
        if (x != y) {
          par[std::max(x, y)] = std::min(x, y) + 1;
          x = std::min(x, y);
          ++U;
        }
      } else if (tk != fin_key) {
        return false;
      }
    }
    head_ = head;
    x_ = x;
    prev_ = prev;
    init_seen_ = init_seen;
    V_ = V;
    U_ = U;
    return true;
  }

  [[gnu::noinline]] bool finish() {
    if (!init_seen_) return false;
    ++A_;
    if (!untouched_until(uint32_t(in_.init.size()))) return false;
    for (const Deferred& d : deferred_) {
      const size_t tb = bucket_of(d.tk);
      const size_t ts = start_[tb], tt = start_[tb + 1];
      const size_t v = lower_bound(d.tk, ts, tt);
      if (v < tt && key(e_[v]) == d.tk) {
        --bal_[v];
        const uint32_t x = root(d.head), y = root(uint32_t(v));
        if (x != y) {
          par_[std::max(x, y)] = std::min(x, y) + 1;
          ++U_;
        }
      } else {
        const uint32_t abs = addr_of(d.tk);
        if (d.tk != key_of(abs, in_.final_mem[abs])) return false;
      }
    }
    if (V_ - U_ != A_) return false;
    // Degree balance: out + [v == final] == in + [v == initial].
    uint32_t acc = 0;
    for (size_t i = 0; i < n_; ++i) acc |= uint32_t(bal_[i]);
    return acc == 0;
  }

  struct Deferred {
    uint32_t head;
    K tk;
  };

  const CheckInput& in_;
  const ImplInfo& impl_;
  unsigned bo_, bits_, tb_;
  uint32_t amin_;
  S omin_, ospan_;
  K omask_ = 0;
  uint64_t tmask_ = 0, bias_ = 0;
  Codec cd_{};
  unsigned fb_ = 0, fs_ = 0;
  size_t hs_ = 1, cache_n_ = 0;
  // Bucket b: edges [start_[b], start_[b + 1]), fine bins [bfirst_[b],
  // bfirst_[b + 1]); tab_: fine bin -> bucket.
  std::vector<uint32_t> start_, bfirst_, tab_, cnt_;
  unsigned gshift_ = 0;
  bool uniform_ = false;
  T* e_ = nullptr;
  T *big_ = nullptr, *small_ = nullptr;
  // Per edge, meaningful at the first edge of each vertex's run: the
  // union-find parent + 1 (0: a root), and out-degree - in-degree -
  // [initial] + [final], which must end 0.
  uint32_t* par_ = nullptr;
  int32_t* bal_ = nullptr;
  size_t n_ = 0;
  uint32_t next_addr_ = 0;
  // Scan state, carried from bucket to bucket.
  uint64_t V_ = 0, U_ = 0, A_ = 0;
  uint32_t head_ = 0, x_ = 0;
  K prev_ = 0, cur_ad_ = 0, init_key_ = 0, fin_key_ = 0;
  bool init_seen_ = false, any_ = false;
  static inline thread_local std::vector<Deferred> deferred_;
};

template <class S, bool Nan>
bool check_nan(const CheckInput& in, uint32_t amin, uint32_t amax) {
  const ImplInfo& impl = *in.impl;
  auto canon = [&](uint64_t x) -> S {
    if constexpr (Nan) {
      const uint64_t m = sizeof(S) == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;
      const uint64_t inf = sizeof(S) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
      if ((x & m) > inf) return S(impl.canon(x));
    }
    return S(x);
  };
  const size_t n = in.old.size();
  if (n == 0) return false;
  // Range of the returned values: raw bits first (vectorised), canonically
  // only if a NaN is among them.
  S omin = ~S(0), omax = 0;
  {
    const uint64_t* old = in.old.data();
    uint64_t nan = 0;
    constexpr uint64_t m = sizeof(S) == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;
    constexpr uint64_t inf = sizeof(S) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
    for (size_t o = 0; o < n; ++o) {
      const S s = S(old[o]);
      omin = std::min(omin, s);
      omax = std::max(omax, s);
      if constexpr (Nan) nan |= uint64_t((old[o] & m) > inf);
    }
    if (nan) {
      omin = ~S(0);
      omax = 0;
      for (size_t o = 0; o < n; ++o) {
        const S s = canon(old[o]);
        omin = std::min(omin, s);
        omax = std::max(omax, s);
      }
    }
  }
  for (size_t i = 0; i < in.init.size(); ++i) {
    const S s = canon(in.init[i]), f = canon(in.final_mem[i]);
    omin = std::min({omin, s, f});
    omax = std::max({omax, s, f});
  }
  const S ospan = S(omax - omin);
  const unsigned bo = unsigned(std::bit_width(ospan)), ba = unsigned(std::bit_width(amax - amin));
  const unsigned bits = bo + ba;
  if (bits > 63) return false;
  // One 64-bit word per edge where the key and the target fit: the target's
  // offset, else its delta from old in the bits left (most ops move a state
  // a little).  If a delta does not fit, the 12-byte layouts.
  if (bits + bo <= 64) return Fast<S, uint64_t, Layout::Packed, Nan>(in, bo, bits, bo, amin, omin, ospan).run();
  if (64 - bits >= 16 &&
      Fast<S, uint64_t, Layout::PackedDelta, Nan>(in, bo, bits, 64 - bits, amin, omin, ospan).run())
    return true;
  if (bits <= 32) return Fast<S, uint32_t, Layout::Struct, Nan>(in, bo, bits, 0, amin, omin, ospan).run();
  if (bo <= 32) return Fast<S, uint64_t, Layout::Struct, Nan>(in, bo, bits, 0, amin, omin, ospan).run();
  if constexpr (sizeof(S) == 8)
    return Fast<S, uint64_t, Layout::StructDelta, Nan>(in, bo, bits, 0, amin, omin, ospan).run();
  return false;
}

template <class S>
bool check(const CheckInput& in, uint32_t amin, uint32_t amax) {
  const VK k = in.impl->kind;
  const bool nan = in.impl->sem.nan_states_equal;
  if (!nan) return check_nan<S, false>(in, amin, amax);
  if (k == (sizeof(S) == 4 ? VK::F32 : VK::F64)) return check_nan<S, true>(in, amin, amax);
  return false;  // some other canonicalisation: leave it to the Checker
}

}  // namespace fast

}  // namespace

CheckResult check_history(const CheckInput& in) {
  CheckResult res;
  const size_t nops = in.old.size();
  const size_t nelem = in.init.size();
  res.ops_checked = nops;
  if (in.final_mem.size() != nelem || in.addr.size() != nops || in.a.size() != nops || in.b.size() != nops ||
      nops >= (size_t(1) << 32)) {
    res.ok = false;
    res.explanation = "internal error: history arrays have inconsistent sizes";
    return res;
  }
  // The address range, vectorised; the first op outside memory only if any.
  uint32_t amin = ~0u, amax = 0;
  for (const uint32_t x : in.addr) {
    amin = std::min(amin, x);
    amax = std::max(amax, x);
  }
  if (nops > 0 && amax >= nelem) {
    for (size_t o = 0; o < nops; ++o) {
      if (in.addr[o] >= nelem) {
        res.ok = false;
        res.bad_op = int64_t(o);
        res.explanation =
            "op #" + std::to_string(o) + " targets element " + std::to_string(in.addr[o]) + " outside the trial's memory";
        return res;
      }
    }
  }
  if (vk_bytes(in.impl->kind) <= 4 ? fast::check<uint32_t>(in, amin, amax) : fast::check<uint64_t>(in, amin, amax))
    return res;
  if (vk_bytes(in.impl->kind) <= 4) Checker<uint32_t>(in, res).run();
  else Checker<uint64_t>(in, res).run();
  return res;
}

}  // namespace atomstress
