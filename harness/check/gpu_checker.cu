// The GPU checker (gpu_checker.hpp).  How it decides, step by step:
//
//  1. prep: a flag per element that some op targets; the range of the ops'
//     addresses and of every state at a touched element; an op outside the
//     memory; every untouched element must have final == init (its closing
//     edge must be a self-loop).  DeviceSelect lists the T touched elements.
//  2. Edges: the n ops plus one closing edge final -> init per touched
//     element, R = n + T in all.  Each edge is a record in two lists: list A
//     holds its source (addr, from), list B its target (addr, to).
//  3. Both lists are radix sorted by the key (addr, state): one 64-bit key
//     (addr - amin) << sbits | (state - smin) where that fits, else a 96-bit
//     key (CUB's decomposer) for full-width states at several addresses.
//     The value carried is the edge's index.
//  4. Balance: every state at an element is left by as many edges as enter
//     it iff the multiset of sources equals the multiset of targets, per
//     element; as both lists are sorted by (addr, state), iff A[i] == B[i]
//     for every i.  If the first i where they differ is i0, the element
//     m = min(addr(A[i0]), addr(B[i0])) is unbalanced (its records differ)
//     and every smaller element is balanced (all its records lie before i0 in
//     both lists); every mismatch at i >= i0 names an element >= m, so the
//     minimum over all mismatches is m.
//  5. Vertices: a run of equal keys in A is one vertex, named by the
//     position of the run's head (an inclusive max-scan of head positions).
//     Edge e's source is the vertex at e's position in A; its target the
//     vertex at e's position i in B, valid when A[i] == B[i] (the same key),
//     else left out: its element is then >= m, already failing.  So no union
//     ever joins two elements, and below m every element's graph is exact.
//  6. Connectivity: a lock-free union-find over the edges (hooking a root
//     under another root with atomicCAS, path halving), then every op's
//     source must be in the component of its element's closing edge.  With
//     balance, all edges in one weakly connected component is exactly an
//     Eulerian circuit, i.e. (dropping the closing edge) a trail from init to
//     final.  A failure reported at an element >= m cannot lower the
//     minimum; one below m is genuine.
//  The verdict: the smallest element failing step 1, 4 or 6.
//
// Every device loop is bounded: grid-stride loops by their counts; find()
// and unite() by the number of vertices (each step strictly lowers a
// priority along parent pointers), with an error flag should a bound ever be
// reached (it cannot).
#include "harness/check/gpu_checker.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <type_traits>
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <cuda/std/tuple>
#include <thrust/iterator/counting_iterator.h>

namespace atomstress::gpu_check {

namespace {

constexpr int kThreads = 256;
constexpr uint32_t kNone = 0xffffffffu;
constexpr unsigned long long kNone64 = ~0ull;
constexpr uint64_t kMaxOps = uint64_t(1) << 28;

struct Stats {
  unsigned long long smin, smax;  // every state at a touched element
  unsigned int amin, amax;        // every op's address
  unsigned int touched;           // T, written by DeviceSelect
  unsigned int oob;               // some op targets addr >= elems
  unsigned long long bad;         // the smallest failing element, kNone64 if none
  unsigned int err;               // a device loop reached its bound (never expected)
  unsigned int pad;
};

struct MinOp {
  template <class T>
  __host__ __device__ T operator()(const T& x, const T& y) const {
    return y < x ? y : x;
  }
};
struct MaxOp {
  template <class T>
  __host__ __device__ T operator()(const T& x, const T& y) const {
    return x < y ? y : x;
  }
};

// ------------------------------------------------------------- block reduce
using BR64 = cub::BlockReduce<unsigned long long, kThreads>;
using BR32 = cub::BlockReduce<unsigned int, kThreads>;

// Reduce v over the block with op; thread 0 applies it to *dst atomically.
// Every thread of the block must call it.
template <class Op>
__device__ void block_to_global(BR64::TempStorage& tmp, unsigned long long v, Op op, unsigned long long* dst) {
  const unsigned long long r = BR64(tmp).Reduce(v, op);
  if (threadIdx.x == 0) {
    if constexpr (std::is_same_v<Op, MinOp>) atomicMin(dst, r);
    else atomicMax(dst, r);
  }
  __syncthreads();  // tmp is reused by the caller's next reduction
}
template <class Op>
__device__ void block_to_global(BR32::TempStorage& tmp, unsigned int v, Op op, unsigned int* dst) {
  const unsigned int r = BR32(tmp).Reduce(v, op);
  if (threadIdx.x == 0) {
    if constexpr (std::is_same_v<Op, MinOp>) atomicMin(dst, r);
    else atomicMax(dst, r);
  }
  __syncthreads();
}

__device__ inline uint64_t gtid() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline uint64_t gstride() { return uint64_t(gridDim.x) * blockDim.x; }

// ------------------------------------------------------------------ step 1
__global__ void init_stats(Stats* s) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  s->smin = kNone64;
  s->smax = 0;
  s->amin = kNone;
  s->amax = 0;
  s->touched = 0;
  s->oob = 0;
  s->bad = kNone64;
  s->err = 0;
  s->pad = 0;
}

// Flags the touched elements (reading before writing: a hot address is
// written a few times, not n times), the range of addresses and states.
__global__ void __launch_bounds__(kThreads) prep_ops(const uint32_t* __restrict__ addr, const uint64_t* __restrict__ from,
                                                     const uint64_t* __restrict__ to, uint64_t n, uint32_t elems,
                                                     uint8_t* flags, Stats* st) {
  __shared__ BR64::TempStorage t64;
  __shared__ BR32::TempStorage t32;
  unsigned long long smin = kNone64, smax = 0;
  unsigned int amin = kNone, amax = 0, oob = 0;
  uint32_t last = kNone;
  for (uint64_t i = gtid(); i < n; i += gstride()) {
    const uint32_t a = addr[i];
    const uint64_t f = from[i], t = to[i];
    smin = min(smin, min((unsigned long long)f, (unsigned long long)t));
    smax = max(smax, max((unsigned long long)f, (unsigned long long)t));
    amin = min(amin, a);
    amax = max(amax, a);
    if (a >= elems) {
      oob = 1;
    } else if (a != last) {
      last = a;
      if (flags[a] == 0) flags[a] = 1;
    }
  }
  block_to_global(t64, smin, MinOp{}, &st->smin);
  block_to_global(t64, smax, MaxOp{}, &st->smax);
  block_to_global(t32, amin, MinOp{}, &st->amin);
  block_to_global(t32, amax, MaxOp{}, &st->amax);
  block_to_global(t32, oob, MaxOp{}, &st->oob);
}

// Untouched elements: the closing edge alone, balanced iff final == init.
// Touched ones: init and final join the range of states.
__global__ void __launch_bounds__(kThreads) prep_elems(const uint64_t* __restrict__ init,
                                                       const uint64_t* __restrict__ fin, uint32_t elems,
                                                       const uint8_t* __restrict__ flags, uint8_t* bad_elems,
                                                       Stats* st) {
  __shared__ BR64::TempStorage t64;
  unsigned long long smin = kNone64, smax = 0, bad = kNone64;
  for (uint64_t e = gtid(); e < elems; e += gstride()) {
    const uint64_t x = init[e], y = fin[e];
    if (flags[e]) {
      smin = min(smin, min((unsigned long long)x, (unsigned long long)y));
      smax = max(smax, max((unsigned long long)x, (unsigned long long)y));
    } else if (x != y) {
      bad = min(bad, (unsigned long long)e);
      if (bad_elems) bad_elems[e] = 1;
    }
  }
  block_to_global(t64, smin, MinOp{}, &st->smin);
  block_to_global(t64, smax, MaxOp{}, &st->smax);
  block_to_global(t64, bad, MinOp{}, &st->bad);
}

// ------------------------------------------------------------------ keys
// 64-bit key: (addr - amin) in the bits above sbits, (state - smin) below.
// Used iff bit_width(amax - amin) + sbits <= 64, so the map is injective and
// order-preserving on (addr, state) pairs: equal keys iff equal pairs.
struct PackedCodec {
  using Key = uint64_t;
  uint64_t smin;
  uint32_t amin;
  int sbits;  // bit_width(smax - smin), 0..64
  __device__ Key make(uint32_t a, uint64_t s) const {
    return (sbits < 64 ? uint64_t(a - amin) << sbits : 0) | (s - smin);
  }
  __device__ uint32_t addr(Key k) const { return sbits < 64 ? uint32_t(k >> sbits) + amin : amin; }
  __device__ static bool eq(Key x, Key y) { return x == y; }
};

// 96-bit key for full-width states at several addresses: the address is the
// most significant member (CUB sorts the tuple's first element first).
struct WideKey {
  uint64_t s;
  uint32_t a;  // addr - amin
  uint32_t pad;
};
struct WideDecomposer {
  __host__ __device__ ::cuda::std::tuple<uint32_t&, uint64_t&> operator()(WideKey& k) const { return {k.a, k.s}; }
};
struct WideCodec {
  using Key = WideKey;
  uint64_t smin;
  uint32_t amin;
  int sbits;
  __device__ Key make(uint32_t a, uint64_t s) const { return WideKey{s, a - amin, 0}; }
  __device__ uint32_t addr(Key k) const { return k.a + amin; }
  __device__ static bool eq(Key x, Key y) { return x.s == y.s && x.a == y.a; }
};

// Sorts with end_bit bits of the key (the address's bits above 64 in the
// wide key: digits are numbered from the last tuple member's bit 0).
cudaError_t sort_pairs(void* temp, size_t& bytes, cub::DoubleBuffer<uint64_t>& k, cub::DoubleBuffer<uint32_t>& v,
                       uint32_t n, int end_bit, cudaStream_t st) {
  return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, end_bit, st);
}
cudaError_t sort_pairs(void* temp, size_t& bytes, cub::DoubleBuffer<WideKey>& k, cub::DoubleBuffer<uint32_t>& v,
                       uint32_t n, int end_bit, cudaStream_t st) {
  return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, WideDecomposer{}, 0, end_bit, st);
}

// Edge j < n is op j; edge n + t is the closing edge final -> init of the
// t-th touched element.  List A: sources, list B: targets.
template <class Codec>
__global__ void __launch_bounds__(kThreads)
    build_keys(Codec c, const uint32_t* __restrict__ addr, const uint64_t* __restrict__ from,
               const uint64_t* __restrict__ to, uint64_t n, const uint32_t* __restrict__ touched,
               const uint64_t* __restrict__ init, const uint64_t* __restrict__ fin, uint32_t R,
               typename Codec::Key* ka, typename Codec::Key* kb, uint32_t* ia, uint32_t* ib) {
  for (uint64_t j = gtid(); j < R; j += gstride()) {
    uint32_t a;
    uint64_t sa, sb;
    if (j < n) {
      a = addr[j];
      sa = from[j];
      sb = to[j];
    } else {
      a = touched[j - n];
      sa = fin[a];
      sb = init[a];
    }
    ka[j] = c.make(a, sa);
    kb[j] = c.make(a, sb);
    ia[j] = uint32_t(j);
    ib[j] = uint32_t(j);
  }
}

// ------------------------------------------------------------------ step 4, 5
// Head positions of A's runs (0 elsewhere, for the max-scan), parent = self,
// and the balance check A[i] == B[i].
template <class Codec>
__global__ void __launch_bounds__(kThreads)
    heads(Codec c, const typename Codec::Key* __restrict__ ka, const typename Codec::Key* __restrict__ kb, uint32_t R,
          uint32_t* hv, uint32_t* parent, uint8_t* bad_elems, Stats* st) {
  __shared__ BR64::TempStorage t64;
  unsigned long long bad = kNone64;
  for (uint64_t i = gtid(); i < R; i += gstride()) {
    const auto x = ka[i], y = kb[i];
    const bool head = i == 0 || !Codec::eq(ka[i - 1], x);
    hv[i] = head ? uint32_t(i) : 0u;
    parent[i] = uint32_t(i);
    if (!Codec::eq(x, y)) {
      bad = min(bad, (unsigned long long)min(c.addr(x), c.addr(y)));
      if (bad_elems) bad_elems[c.addr(x)] = bad_elems[c.addr(y)] = 1;  // one element: see bad_elems
    }
  }
  block_to_global(t64, bad, MinOp{}, &st->bad);
}

// u[e]: the vertex of edge e's source; v[e]: of its target, kNone where the
// lists disagree at the target's position (that element is already failing).
template <class Codec>
__global__ void __launch_bounds__(kThreads)
    endpoints(const typename Codec::Key* __restrict__ ka, const typename Codec::Key* __restrict__ kb,
              const uint32_t* __restrict__ ia, const uint32_t* __restrict__ ib, const uint32_t* __restrict__ vid,
              uint32_t R, uint32_t* u, uint32_t* v) {
  for (uint64_t i = gtid(); i < R; i += gstride()) {
    const uint32_t x = vid[i];
    u[ia[i]] = x;
    v[ib[i]] = Codec::eq(ka[i], kb[i]) ? x : kNone;
  }
}

// ------------------------------------------------------------------ step 6
// Union-find over vertex ids (positions < R).  Roots are hooked under roots
// of lower priority, a bijective hash of the id (so that a long path of
// states, numbered in order, does not become a tree as deep as the path).
// Invariant: every parent pointer goes to a strictly lower priority, and
// always to an ancestor; so there are no cycles, and find() ends within R
// steps.  Path halving stores an ancestor into a non-root: safe against a
// concurrent hook, which only ever changes a root (by CAS).
__device__ inline uint32_t prio(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
using ARef = ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>;

__device__ uint32_t find(uint32_t* parent, uint32_t x, uint32_t bound, Stats* st) {
  for (uint32_t step = 0; step <= bound; ++step) {
    const uint32_t p = ARef(parent[x]).load(::cuda::memory_order_relaxed);
    if (p == x) return x;
    const uint32_t gp = ARef(parent[p]).load(::cuda::memory_order_relaxed);
    if (gp != p) ARef(parent[x]).store(gp, ::cuda::memory_order_relaxed);
    x = gp;
  }
  atomicOr(&st->err, 1u);
  return x;
}

// Each failed CAS means the root hooked here was hooked by another thread;
// the retry starts from its new parent, of lower priority, so the higher
// priority of the pair strictly falls: at most R retries.
__device__ void unite(uint32_t* parent, uint32_t x, uint32_t y, uint32_t bound, Stats* st) {
  for (uint32_t step = 0; step <= bound; ++step) {
    x = find(parent, x, bound, st);
    y = find(parent, y, bound, st);
    if (x == y) return;
    if (prio(x) < prio(y)) {
      const uint32_t t = x;
      x = y;
      y = t;
    }
    uint32_t expected = x;  // x (higher priority) goes under y
    if (ARef(parent[x]).compare_exchange_strong(expected, y, ::cuda::memory_order_relaxed)) return;
    x = expected;
  }
  atomicOr(&st->err, 1u);
}

__global__ void __launch_bounds__(kThreads)
    unite_edges(const uint32_t* __restrict__ u, const uint32_t* __restrict__ v, uint32_t R, uint32_t* parent,
                Stats* st) {
  for (uint64_t j = gtid(); j < R; j += gstride()) {
    const uint32_t y = v[j];
    if (y != kNone) unite(parent, u[j], y, R, st);
  }
}

// comp[element] = the root of its closing edge's source (final's vertex).
__global__ void __launch_bounds__(kThreads)
    closing_roots(const uint32_t* __restrict__ u, uint64_t n, uint32_t R, const uint32_t* __restrict__ touched,
                  uint32_t* parent, uint32_t* comp, Stats* st) {
  for (uint64_t j = n + gtid(); j < R; j += gstride()) comp[touched[j - n]] = find(parent, u[j], R, st);
}

// Every op's source in its element's closing edge's component.
__global__ void __launch_bounds__(kThreads)
    check_ops(const uint32_t* __restrict__ u, const uint32_t* __restrict__ addr, uint64_t n,
              const uint32_t* __restrict__ comp, uint32_t R, uint32_t* parent, uint8_t* bad_elems, Stats* st) {
  __shared__ BR64::TempStorage t64;
  unsigned long long bad = kNone64;
  for (uint64_t o = gtid(); o < n; o += gstride()) {
    const uint32_t a = addr[o];
    if (find(parent, u[o], R, st) != comp[a]) {
      bad = min(bad, (unsigned long long)a);
      if (bad_elems) bad_elems[a] = 1;
    }
  }
  block_to_global(t64, bad, MinOp{}, &st->bad);
}

// ------------------------------------------------------------------ host
struct DevBuf {
  void* p = nullptr;
  size_t bytes = 0;
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  // Grow-only.  (cudaFree synchronises the device: no work still uses it.)
  cudaError_t ensure(size_t b) {
    if (b <= bytes) return cudaSuccess;
    if (p) cudaFree(p);
    p = nullptr;
    bytes = 0;
    const cudaError_t e = cudaMalloc(&p, b);
    if (e == cudaSuccess) bytes = b;
    return e;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

}  // namespace

struct Checker::Impl {
  DevBuf flags, comp, touched, stats, temp;
  DevBuf ka[2], kb[2], ia[2], ib[2], vid, u, v, parent;
  DevBuf up_addr, up_from, up_to, up_init, up_fin, up_bad;  // check_host_arrays
  Stats* host_stats = nullptr;                      // pinned
  int sms = 0;

  ~Impl() {
    if (host_stats) cudaFreeHost(host_stats);
  }

  template <class Codec>
  bool run(const DeviceHistory& h, Codec c, int end_bit, uint32_t T, cudaStream_t st, std::string& error);
  bool check(const DeviceHistory& h, Verdict& out, std::string& error, cudaStream_t st);
  unsigned blocks(uint64_t items) const {
    const uint64_t want = (items + kThreads - 1) / kThreads;
    return unsigned(std::clamp<uint64_t>(want, 1, uint64_t(sms) * 16));
  }
};

#define GC_TRY(expr)                                                             \
  do {                                                                           \
    const cudaError_t gc_e_ = (expr);                                            \
    if (gc_e_ != cudaSuccess) {                                                  \
      error = std::string("gpu checker: ") + #expr + ": " + cudaGetErrorString(gc_e_); \
      return false;                                                              \
    }                                                                            \
  } while (0)
// A launch, then its error (a bad configuration shows at once).
#define GC_LAUNCH(kernel, grid, ...)                                             \
  do {                                                                           \
    kernel<<<(grid), kThreads, 0, st>>>(__VA_ARGS__);                            \
    GC_TRY(cudaGetLastError());                                                  \
  } while (0)

template <class Codec>
bool Checker::Impl::run(const DeviceHistory& h, Codec c, int end_bit, uint32_t T, cudaStream_t st,
                        std::string& error) {
  using Key = typename Codec::Key;
  const uint64_t n = h.ops;
  const uint32_t R = uint32_t(n + T);
  Stats* ds = stats.as<Stats>();
  for (int i = 0; i < 2; ++i) {
    GC_TRY(ka[i].ensure(sizeof(Key) * R));
    GC_TRY(kb[i].ensure(sizeof(Key) * R));
    GC_TRY(ia[i].ensure(sizeof(uint32_t) * R));
    GC_TRY(ib[i].ensure(sizeof(uint32_t) * R));
  }
  GC_TRY(vid.ensure(sizeof(uint32_t) * R));
  GC_TRY(u.ensure(sizeof(uint32_t) * R));
  GC_TRY(v.ensure(sizeof(uint32_t) * R));
  GC_TRY(parent.ensure(sizeof(uint32_t) * R));
  cub::DoubleBuffer<Key> dka(ka[0].as<Key>(), ka[1].as<Key>()), dkb(kb[0].as<Key>(), kb[1].as<Key>());
  cub::DoubleBuffer<uint32_t> dia(ia[0].as<uint32_t>(), ia[1].as<uint32_t>()),
      dib(ib[0].as<uint32_t>(), ib[1].as<uint32_t>());

  // CUB scratch, sized before any launch of this step (growing frees).
  size_t sort_bytes = 0, scan_bytes = 0;
  GC_TRY(sort_pairs(nullptr, sort_bytes, dka, dia, R, end_bit, st));
  GC_TRY(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, vid.as<uint32_t>(), vid.as<uint32_t>(), MaxOp{}, R, st));
  GC_TRY(temp.ensure(std::max<size_t>({sort_bytes, scan_bytes, 1})));

  GC_LAUNCH(build_keys<Codec>, blocks(R), c, h.addr, h.from, h.to, n, touched.as<uint32_t>(), h.init, h.final_state,
            R, dka.Current(), dkb.Current(), dia.Current(), dib.Current());
  size_t bytes = temp.bytes;
  GC_TRY(sort_pairs(temp.p, bytes, dka, dia, R, end_bit, st));
  bytes = temp.bytes;
  GC_TRY(sort_pairs(temp.p, bytes, dkb, dib, R, end_bit, st));

  // The alternate key buffer of A is free after the sort: the head positions.
  uint32_t* hv = reinterpret_cast<uint32_t*>(dka.Alternate());
  GC_LAUNCH(heads<Codec>, blocks(R), c, dka.Current(), dkb.Current(), R, hv, parent.as<uint32_t>(), h.bad_elems,
            ds);
  bytes = temp.bytes;
  GC_TRY(cub::DeviceScan::InclusiveScan(temp.p, bytes, hv, vid.as<uint32_t>(), MaxOp{}, R, st));
  GC_LAUNCH(endpoints<Codec>, blocks(R), dka.Current(), dkb.Current(), dia.Current(), dib.Current(),
            vid.as<uint32_t>(), R, u.as<uint32_t>(), v.as<uint32_t>());
  GC_LAUNCH(unite_edges, blocks(R), u.as<uint32_t>(), v.as<uint32_t>(), R, parent.as<uint32_t>(), ds);
  GC_LAUNCH(closing_roots, blocks(T), u.as<uint32_t>(), n, R, touched.as<uint32_t>(), parent.as<uint32_t>(),
            comp.as<uint32_t>(), ds);
  GC_LAUNCH(check_ops, blocks(n), u.as<uint32_t>(), h.addr, n, comp.as<uint32_t>(), R, parent.as<uint32_t>(),
            h.bad_elems, ds);
  return true;
}

bool Checker::Impl::check(const DeviceHistory& h, Verdict& out, std::string& error, cudaStream_t st) {
  out = Verdict{};
  const uint64_t n = h.ops;
  const uint32_t E = h.elems;
  if (n > kMaxOps) {
    error = "gpu checker: " + std::to_string(n) + " ops exceed the limit of 2^28";
    return false;
  }
  if (n == 0 && E == 0) return true;
  if (sms == 0) {
    int dev = 0;
    GC_TRY(cudaGetDevice(&dev));
    GC_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (sms <= 0) sms = 1;
  }
  if (!host_stats) GC_TRY(cudaMallocHost(&host_stats, sizeof(Stats)));
  GC_TRY(stats.ensure(sizeof(Stats)));
  GC_TRY(flags.ensure(std::max<size_t>(E, 1)));
  GC_TRY(comp.ensure(sizeof(uint32_t) * std::max<size_t>(E, 1)));
  GC_TRY(touched.ensure(sizeof(uint32_t) * std::max<uint64_t>(std::min<uint64_t>(n, E), 1)));
  Stats* ds = stats.as<Stats>();
  uint8_t* fl = flags.as<uint8_t>();

  // Step 1.
  size_t sel_bytes = 0;
  if (n > 0 && E > 0) {
    GC_TRY(cub::DeviceSelect::Flagged(nullptr, sel_bytes, thrust::counting_iterator<uint32_t>(0), fl,
                                      touched.as<uint32_t>(), &ds->touched, E, st));
    GC_TRY(temp.ensure(std::max<size_t>(sel_bytes, 1)));
  }
  GC_LAUNCH(init_stats, 1, ds);
  if (E > 0) GC_TRY(cudaMemsetAsync(fl, 0, E, st));
  if (E > 0 && h.bad_elems) GC_TRY(cudaMemsetAsync(h.bad_elems, 0, E, st));
  if (n > 0) GC_LAUNCH(prep_ops, blocks(n), h.addr, h.from, h.to, n, E, fl, ds);
  if (E > 0) GC_LAUNCH(prep_elems, blocks(E), h.init, h.final_state, E, fl, h.bad_elems, ds);
  if (n > 0 && E > 0) {
    size_t bytes = temp.bytes;
    GC_TRY(cub::DeviceSelect::Flagged(temp.p, bytes, thrust::counting_iterator<uint32_t>(0), fl,
                                      touched.as<uint32_t>(), &ds->touched, E, st));
  }
  GC_TRY(cudaMemcpyAsync(host_stats, ds, sizeof(Stats), cudaMemcpyDeviceToHost, st));
  GC_TRY(cudaStreamSynchronize(st));
  const Stats s1 = *host_stats;
  if (s1.oob) {  // as on the CPU: an op outside the memory names no element
    out.ok = false;
    out.bad_addr = -1;
    return true;
  }
  if (n > 0) {
    const uint32_t T = s1.touched;
    if (T == 0 || T > n || n + T > 0xfffffffeull) {
      error = "gpu checker: inconsistent count of touched elements";
      return false;
    }
    const int abits = std::bit_width(uint64_t(s1.amax - s1.amin));
    const int sbits = std::bit_width(uint64_t(s1.smax - s1.smin));
    bool ok;
    if (abits + sbits <= 64) {
      // At least one radix pass, even when every key is equal.
      ok = run(h, PackedCodec{s1.smin, s1.amin, sbits}, std::max(abits + sbits, 1), T, st, error);
    } else {
      ok = run(h, WideCodec{s1.smin, s1.amin, sbits}, 64 + abits, T, st, error);
    }
    if (!ok) return false;
    GC_TRY(cudaMemcpyAsync(host_stats, ds, sizeof(Stats), cudaMemcpyDeviceToHost, st));
    GC_TRY(cudaStreamSynchronize(st));
  }
  const Stats s2 = *host_stats;
  if (s2.err) {
    error = "gpu checker: a union-find loop reached its bound (internal error)";
    return false;
  }
  if (s2.bad != kNone64) {
    out.ok = false;
    out.bad_addr = int64_t(s2.bad);
  }
  return true;
}

namespace {
class CheckerJudge final : public DeviceJudge {
 public:
  bool explains(const DeviceHistory& h, bool& explained, bool& outside, std::string& error) override {
    Verdict v;
    if (!checker_.check(h, v, error)) return false;
    explained = v.ok;
    outside = !v.ok && v.bad_addr < 0;
    return true;
  }
  uint64_t max_ops() const override { return checker_.max_ops(); }

 private:
  Checker checker_;
};
}  // namespace

DeviceJudge& device_judge() {
  // Leaked on purpose: its destructor would call CUDA after main returns.
  thread_local CheckerJudge* judge = new CheckerJudge;
  return *judge;
}

Checker::Checker() : impl_(new Impl) {}
Checker::~Checker() { delete impl_; }

bool Checker::check(const DeviceHistory& h, Verdict& out, std::string& error, void* cuda_stream) {
  return impl_->check(h, out, error, static_cast<cudaStream_t>(cuda_stream));
}

uint64_t Checker::max_ops() const {
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  // What this checker holds already counts as available.
  size_t held = impl_->temp.bytes + impl_->vid.bytes + impl_->u.bytes + impl_->v.bytes + impl_->parent.bytes;
  for (int i = 0; i < 2; ++i)
    held += impl_->ka[i].bytes + impl_->kb[i].bytes + impl_->ia[i].bytes + impl_->ib[i].bytes;
  // Worst case per op: two edges (an op and a closing edge), wide keys:
  // 4 key buffers of 16 bytes, 4 index buffers and vid, u, v, parent of 4;
  // the touched list; CUB's scratch (a few percent): 224 bytes.
  const uint64_t per_op = 224;
  const uint64_t fit = uint64_t((free_b + held) * 0.9) / per_op;
  return std::min(fit, kMaxOps);
}

bool check_host_arrays(Checker& checker, std::span<const uint32_t> addr, std::span<const uint64_t> from,
                       std::span<const uint64_t> to, std::span<const uint64_t> init,
                       std::span<const uint64_t> final_state, Verdict& out, std::string& error,
                       std::vector<uint8_t>* bad_elems) {
  if (from.size() != addr.size() || to.size() != addr.size() || final_state.size() != init.size() ||
      init.size() > 0xffffffffu) {
    error = "gpu checker: host arrays have inconsistent sizes";
    return false;
  }
  Checker::Impl& m = *checker.impl_;
  const cudaStream_t st = nullptr;
  GC_TRY(m.up_addr.ensure(std::max<size_t>(addr.size_bytes(), 1)));
  GC_TRY(m.up_from.ensure(std::max<size_t>(from.size_bytes(), 1)));
  GC_TRY(m.up_to.ensure(std::max<size_t>(to.size_bytes(), 1)));
  GC_TRY(m.up_init.ensure(std::max<size_t>(init.size_bytes(), 1)));
  GC_TRY(m.up_fin.ensure(std::max<size_t>(final_state.size_bytes(), 1)));
  if (!addr.empty()) {
    GC_TRY(cudaMemcpyAsync(m.up_addr.p, addr.data(), addr.size_bytes(), cudaMemcpyHostToDevice, st));
    GC_TRY(cudaMemcpyAsync(m.up_from.p, from.data(), from.size_bytes(), cudaMemcpyHostToDevice, st));
    GC_TRY(cudaMemcpyAsync(m.up_to.p, to.data(), to.size_bytes(), cudaMemcpyHostToDevice, st));
  }
  if (!init.empty()) {
    GC_TRY(cudaMemcpyAsync(m.up_init.p, init.data(), init.size_bytes(), cudaMemcpyHostToDevice, st));
    GC_TRY(cudaMemcpyAsync(m.up_fin.p, final_state.data(), final_state.size_bytes(), cudaMemcpyHostToDevice, st));
  }
  DeviceHistory h;
  h.addr = m.up_addr.as<uint32_t>();
  h.from = m.up_from.as<uint64_t>();
  h.to = m.up_to.as<uint64_t>();
  h.ops = addr.size();
  h.init = m.up_init.as<uint64_t>();
  h.final_state = m.up_fin.as<uint64_t>();
  h.elems = uint32_t(init.size());
  if (bad_elems) {
    GC_TRY(m.up_bad.ensure(std::max<size_t>(init.size(), 1)));
    h.bad_elems = m.up_bad.as<uint8_t>();
  }
  if (!m.check(h, out, error, st)) return false;
  if (bad_elems) {
    const bool outside = !out.ok && out.bad_addr < 0;
    bad_elems->assign(outside ? 0 : init.size(), 0);
    if (!bad_elems->empty())
      GC_TRY(cudaMemcpy(bad_elems->data(), h.bad_elems, bad_elems->size(), cudaMemcpyDeviceToHost));
  }
  return true;
}

}  // namespace atomstress::gpu_check
