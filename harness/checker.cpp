#include "checker.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace atomstress {

namespace {

struct Keyed {
  uint64_t key;
  uint32_t local;  // index of the op within this address's list
};

// LSD radix sort on the key, 8-bit digits; digits that are equal across all
// keys are skipped (sums of small integers touch 2 or 3 of 8 bytes).
void radix_sort(std::vector<Keyed>& v, std::vector<Keyed>& tmp, unsigned key_bytes) {
  const size_t n = v.size();
  if (n <= 256) {
    std::sort(v.begin(), v.end(), [](const Keyed& x, const Keyed& y) { return x.key < y.key; });
    return;
  }
  std::vector<uint32_t> hist(size_t(key_bytes) * 256, 0);
  for (const auto& e : v)
    for (unsigned d = 0; d < key_bytes; ++d) ++hist[d * 256 + ((e.key >> (8 * d)) & 0xff)];
  tmp.resize(n);
  for (unsigned d = 0; d < key_bytes; ++d) {
    uint32_t* h = &hist[d * 256];
    if (h[(v[0].key >> (8 * d)) & 0xff] == n) continue;  // one bucket: nothing to do
    uint32_t sum = 0;
    for (int i = 0; i < 256; ++i) {
      const uint32_t c = h[i];
      h[i] = sum;
      sum += c;
    }
    for (const auto& e : v) tmp[h[(e.key >> (8 * d)) & 0xff]++] = e;
    v.swap(tmp);
  }
}

struct UnionFind {
  std::vector<uint32_t> parent;
  void reset(size_t n) {
    parent.resize(n);
    std::iota(parent.begin(), parent.end(), 0u);
  }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// Scratch reused across addresses.
struct Scratch {
  std::vector<Keyed> keyed, tmp;
  std::vector<uint64_t> newv, uniq;
  std::vector<uint32_t> oldid, newid, outdeg, indeg, first_reader, first_writer;
  UnionFind uf;
};

constexpr uint32_t kNone = 0xffffffffu;

class AddressChecker {
 public:
  AddressChecker(const CheckInput& in, CheckResult& res) : in_(in), res_(res) {}

  std::string op_name(uint64_t op) const {
    std::string s = "op #" + std::to_string(op);
    if (in_.threads) s += " (thread " + std::to_string(op % in_.threads) + ")";
    return s;
  }
  std::string val(uint64_t bits) const { return format_value(in_.impl->kind, bits); }

  bool fail(uint64_t addr, int64_t op, std::string why) {
    res_.ok = false;
    res_.bad_addr = int64_t(addr);
    res_.bad_op = op;
    res_.explanation = "address " + std::to_string(addr) + ": " + std::move(why);
    return false;
  }

  // ops: this address's operations, in op order.
  bool check(uint64_t addr, std::span<const uint32_t> ops) {
    const ImplInfo& impl = *in_.impl;
    const uint64_t init = impl.canon(in_.init[addr]);
    const uint64_t fin = impl.canon(in_.final_mem[addr]);
    const size_t n = ops.size();
    auto& s = sc_;
    s.keyed.resize(n);
    s.newv.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t o = ops[i];
      const uint64_t old = in_.old[o];
      s.keyed[i] = Keyed{impl.canon(old), uint32_t(i)};
      s.newv[i] = impl.canon(impl.phi(old, in_.a[o], in_.b[o]));
    }
    radix_sort(s.keyed, s.tmp, vk_bytes(impl.kind));

    // Vertices: the distinct values some op returned, in ascending order.
    s.uniq.clear();
    s.outdeg.clear();
    s.first_reader.clear();
    s.oldid.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const auto& e = s.keyed[i];
      if (s.uniq.empty() || s.uniq.back() != e.key) {
        s.uniq.push_back(e.key);
        s.outdeg.push_back(0);
        s.first_reader.push_back(e.local);
      }
      ++s.outdeg.back();
      s.oldid[e.local] = uint32_t(s.uniq.size() - 1);
    }
    const uint32_t nv = uint32_t(s.uniq.size());
    const uint32_t kFinalExtra = nv;  // the final value, when no op returned it
    s.indeg.assign(nv + 1, 0);
    s.first_writer.assign(nv + 1, kNone);
    s.newid.resize(n);

    // Where is each produced value among the vertices?  Visit the ops in
    // ascending order of what they read: what they produce then tends to be
    // close to the last hit, so a galloping search is nearly O(1).
    size_t pos = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t local = s.keyed[i].local;
      const uint64_t x = s.newv[local];
      uint32_t id;
      if (find_vertex(x, pos)) {
        id = uint32_t(pos);
      } else if (x == fin) {
        id = kFinalExtra;
      } else {
        const uint32_t o = ops[local];
        return fail(addr, o,
                    op_name(o) + " returned " + val(in_.old[o]) + " and so wrote " + val(x) +
                        ", but no operation ever read " + val(x) + " and the final value is " +
                        val(fin) + ": a later update was lost or read a stale value");
      }
      s.newid[local] = id;
      ++s.indeg[id];
      if (s.first_writer[id] == kNone) s.first_writer[id] = local;
    }

    // Degree balance: out - in = [v == init] - [v == final].
    bool init_seen = false;
    const bool fin_is_vertex = std::binary_search(s.uniq.begin(), s.uniq.end(), fin);
    if (!fin_is_vertex) {
      // The final value: nobody read it, so exactly one op must have written it.
      const uint32_t in = s.indeg[kFinalExtra];
      if (in == 0)
        return fail(addr, -1,
                    "the final value " + val(fin) + " was never written by any operation and is not "
                    "the initial value " + val(init));
      if (in > 1) {
        const uint32_t writer = ops[s.first_writer[kFinalExtra]];
        return fail(addr, writer,
                    val(fin) + " was written " + std::to_string(in) + " times (first by " +
                        op_name(writer) + ") but never read: an update was lost");
      }
    }
    for (uint32_t v = 0; v < nv; ++v) {
      const uint64_t value = s.uniq[v];
      const int64_t out = s.outdeg[v];
      const int64_t in = s.indeg[v];
      const int64_t is_init = (value == init) ? 1 : 0;
      const int64_t is_final = (value == fin) ? 1 : 0;
      if (is_init) init_seen = true;
      const int64_t balance = out - in - is_init + is_final;
      if (balance == 0) continue;
      const uint32_t reader = ops[s.first_reader[v]];
      if (in + is_init == 0) {
        return fail(addr, reader,
                    op_name(reader) + " returned " + val(value) +
                        ", but no operation produced that value and it is not the initial value " +
                        val(init));
      }
      const std::string init_note = is_init ? " and was the initial value" : "";
      if (balance > 0) {
        return fail(addr, reader,
                    std::to_string(out) + " operations (first " + op_name(reader) + ") returned " +
                        val(value) + ", but it was written only " + std::to_string(in) + " time(s)" +
                        init_note + ": two operations read the same value, so an update was lost");
      }
      const uint32_t writer = ops[s.first_writer[v]];
      return fail(addr, writer,
                  val(value) + " was written " + std::to_string(in) + " time(s) (first by " + op_name(writer) +
                      ")" + init_note + " but only " + std::to_string(out) + " operation(s) read it" +
                      (is_final ? " and it is the final value" : "") + ": an update was lost");
    }
    if (!init_seen) {
      return fail(addr, -1,
                  "no operation returned the initial value " + val(init) +
                      ", yet some operation must have been first");
    }

    // Connectivity: every edge reachable from the initial state.
    s.uf.reset(nv + 1);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t local = s.keyed[i].local;
      s.uf.unite(s.oldid[local], s.newid[local]);
    }
    const uint32_t init_id = uint32_t(std::lower_bound(s.uniq.begin(), s.uniq.end(), init) - s.uniq.begin());
    const uint32_t root = s.uf.find(init_id);
    for (size_t i = 0; i < n; ++i) {
      if (s.uf.find(s.oldid[i]) != root) {
        const uint32_t o = ops[i];
        return fail(addr, o,
                    op_name(o) + " returned " + val(in_.old[o]) +
                        ", which lies on a cycle of values that the initial value " + val(init) +
                        " never reaches: no sequential order explains it");
      }
    }
    return true;
  }

 private:
  // Galloping search for x in uniq starting from pos; on success pos = index.
  bool find_vertex(uint64_t x, size_t& pos) const {
    const auto& u = sc_.uniq;
    const size_t n = u.size();
    if (n == 0) return false;
    if (pos >= n) pos = n - 1;
    if (u[pos] == x) return true;
    size_t lo, hi;
    if (u[pos] < x) {
      size_t step = 1;
      lo = pos + 1;
      hi = lo;
      while (hi < n && u[hi] < x) {
        lo = hi + 1;
        hi = pos + (step <<= 1);
      }
      hi = std::min(hi + 1, n);
    } else {
      size_t step = 1;
      hi = pos;
      lo = pos >= 1 ? pos - 1 : 0;
      while (lo > 0 && u[lo] > x) {
        hi = lo;
        lo = pos >= (step << 1) ? pos - (step <<= 1) : 0;
      }
    }
    const auto it = std::lower_bound(u.begin() + lo, u.begin() + hi, x);
    if (it != u.begin() + hi && *it == x) {
      pos = size_t(it - u.begin());
      return true;
    }
    return false;
  }

  const CheckInput& in_;
  CheckResult& res_;
  Scratch sc_;
};

}  // namespace

CheckResult check_history(const CheckInput& in) {
  CheckResult res;
  const size_t nops = in.old.size();
  const size_t nelem = in.init.size();
  res.ops_checked = nops;
  if (in.final_mem.size() != nelem || in.addr.size() != nops || in.a.size() != nops ||
      in.b.size() != nops) {
    res.ok = false;
    res.explanation = "internal error: history arrays have inconsistent sizes";
    return res;
  }
  // Group the ops by address (counting sort, stable: op order kept).
  std::vector<uint32_t> start(nelem + 1, 0);
  for (size_t o = 0; o < nops; ++o) {
    if (in.addr[o] >= nelem) {
      res.ok = false;
      res.bad_op = int64_t(o);
      res.explanation = "op #" + std::to_string(o) + " targets element " + std::to_string(in.addr[o]) +
                        " outside the trial's memory";
      return res;
    }
    ++start[in.addr[o] + 1];
  }
  for (size_t e = 0; e < nelem; ++e) start[e + 1] += start[e];
  std::vector<uint32_t> order(nops);
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t o = 0; o < nops; ++o) order[fill[in.addr[o]]++] = uint32_t(o);
  }
  AddressChecker ac(in, res);
  const ImplInfo& impl = *in.impl;
  for (size_t e = 0; e < nelem; ++e) {
    const uint32_t b = start[e], t = start[e + 1];
    if (b == t) {
      if (impl.canon(in.final_mem[e]) != impl.canon(in.init[e])) {
        res.ok = false;
        res.bad_addr = int64_t(e);
        res.explanation = "address " + std::to_string(e) + ": no operation targeted it, but it changed from " +
                          format_value(impl.kind, in.init[e]) + " to " +
                          format_value(impl.kind, in.final_mem[e]);
        return res;
      }
      continue;
    }
    if (!ac.check(e, std::span<const uint32_t>(order.data() + b, t - b))) return res;
  }
  return res;
}

}  // namespace atomstress
