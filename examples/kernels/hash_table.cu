// Find-or-insert in an open-addressing hash table (linear probing, keys
// claimed by CAS, payloads in a second array).  Each element inserts its
// key with its value or, when the key is there, returns the value stored
// with it.  The correct one waits (bounded) for a claimed key's payload;
// the buggy twin publishes the payload after the key's CAS and its finders
// read the payload at once (cudf #9317, cuCollections #389): a concurrent
// finder returns the empty sentinel.
#include <atomstress/kernel.cuh>

namespace {

constexpr unsigned kEmpty = 0xffffffffu;
constexpr unsigned kSpinBound = 1u << 22;  // a payload that never lands: give up, answer the sentinel

__device__ unsigned slot_of(unsigned key, unsigned capacity) { return (key * 2654435761u) % capacity; }

template <bool kWaitForPayload>
__global__ void find_or_insert(const unsigned* keys, const unsigned* values, size_t n, unsigned* table_keys,
                               unsigned* table_values, unsigned capacity, unsigned* found) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned key = keys[i];
  unsigned s = slot_of(key, capacity);
  for (unsigned probe = 0; probe < capacity; ++probe, s = (s + 1) % capacity) {
    const unsigned prev = atomicCAS(&table_keys[s], kEmpty, key);
    if (prev == kEmpty) {  // claimed: publish the payload
      atomicExch(&table_values[s], values[i]);
      found[i] = values[i];
      return;
    }
    if (prev != key) continue;
    volatile unsigned* v = &table_values[s];
    unsigned got = *v;
    for (unsigned spin = 0; kWaitForPayload && got == kEmpty && spin < kSpinBound; ++spin) got = *v;
    found[i] = got;
    return;
  }
  found[i] = kEmpty;  // full: the property's capacity makes this unreachable
}

template <bool kWaitForPayload>
void property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  const unsigned capacity = unsigned(2 * n + 1);
  auto keys = c.keys<unsigned>("keys", n, c.range("key range"));
  std::vector<unsigned> vals(n);
  for (size_t i = 0; i < n; ++i) vals[i] = unsigned(i);
  auto values = c.input("values", vals);
  auto table_keys = c.output<unsigned>("table_keys", capacity, kEmpty);
  auto table_values = c.output<unsigned>("table_values", capacity, kEmpty);
  auto found = c.output<unsigned>("found", n, kEmpty);
  c.launch(c.cover(n), find_or_insert<kWaitForPayload>, keys, values, n, table_keys, table_values, capacity, found);
  const std::vector<unsigned> k = c.initial(keys);
  c.expect_map(table_keys, table_values, k, vals, std::optional<unsigned>(kEmpty), true);
  // Every answer is a value inserted with its key, never the sentinel.
  c.expect_map(keys, found, k, vals, std::optional<unsigned>(kEmpty), false);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.hash_find_or_insert", property<true>)
ATOMSTRESS_KERNEL_BUGGY("kernels.hash_find_or_insert.early_read",
                        "the payload is published after the key's CAS, and a finder reads it without waiting",
                        property<false>)
