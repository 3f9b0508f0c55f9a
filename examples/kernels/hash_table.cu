// Find-or-insert in an open-addressing hash table (linear probing).  Each
// element inserts its key with its value or, when the key is there, returns
// the value stored with it.
//
// The correct one claims a slot with one 64-bit CAS of the (key, value)
// pair, so a finder that sees the key sees its payload in the same word
// (cuCollections' packed pairs).  The buggy twin claims the key by CAS and
// publishes the payload after it, in a second array, and its finders read
// the payload at once (cudf #9317, cuCollections #389): a concurrent finder
// returns the empty sentinel.
//
// (A correct twin may also wait, bounded, for a claimed key's payload; the
// packed pair needs no wait at all, which is why cuCollections uses it.)
#include <atomstress/kernel.cuh>

#include <cstdint>

namespace {

constexpr unsigned kEmpty = 0xffffffffu;
constexpr unsigned long long kEmptyPair = ~0ull;

__host__ __device__ unsigned long long pair_of(unsigned key, unsigned value) {
  return (static_cast<unsigned long long>(key) << 32) | value;
}
__device__ unsigned slot_of(unsigned key, unsigned capacity) { return (key * 2654435761u) % capacity; }

__global__ void find_or_insert_pairs(const unsigned* keys, const unsigned* values, size_t n,
                                     unsigned long long* slots, unsigned capacity, unsigned* found) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned key = keys[i];
  const unsigned long long mine = pair_of(key, values[i]);
  unsigned s = slot_of(key, capacity);
  for (unsigned probe = 0; probe < capacity; ++probe, s = (s + 1) % capacity) {
    const unsigned long long prev = atomicCAS(&slots[s], kEmptyPair, mine);
    if (prev == kEmptyPair) {  // claimed, payload and all
      found[i] = values[i];
      return;
    }
    if (unsigned(prev >> 32) == key) {
      found[i] = unsigned(prev);
      return;
    }
  }
  found[i] = kEmpty;  // full: the property's capacity makes this unreachable
}

__global__ void find_or_insert_early_read(const unsigned* keys, const unsigned* values, size_t n,
                                          unsigned* table_keys, unsigned* table_values, unsigned capacity,
                                          unsigned* found) {
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
    found[i] = *(volatile unsigned*)&table_values[s];  // the bug: the payload may not be there yet
    return;
  }
  found[i] = kEmpty;
}

struct Inputs {
  size_t n;
  unsigned capacity;
  atomstress::Buffer<unsigned> keys, values, found;
  std::vector<unsigned> vals;
};

Inputs inputs(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  std::vector<unsigned> vals(n);
  for (size_t i = 0; i < n; ++i) vals[i] = unsigned(i);
  auto keys = c.keys<unsigned>("keys", n, c.range("key range"));
  auto values = c.input("values", vals);
  auto found = c.output<unsigned>("found", n, kEmpty);
  return {n, unsigned(2 * n + 1), keys, values, found, std::move(vals)};
}

void packed_property(atomstress::KernelCase& c) {
  Inputs in = inputs(c);
  auto slots = c.output<unsigned long long>("slots", in.capacity, kEmptyPair);
  c.launch(c.cover(in.n), find_or_insert_pairs, in.keys, in.values, in.n, slots, in.capacity, in.found);
  const std::vector<unsigned> k = c.initial(in.keys);
  std::vector<unsigned> table_keys, table_values;
  for (unsigned long long p : c.read(slots)) {
    table_keys.push_back(p == kEmptyPair ? kEmpty : unsigned(p >> 32));
    table_values.push_back(p == kEmptyPair ? kEmpty : unsigned(p));
  }
  c.expect_map("slots", table_keys, table_values, k, in.vals, std::optional<unsigned>(kEmpty), true);
  // Every answer is a value inserted with its key, never the sentinel.
  c.expect_map(in.keys, in.found, k, in.vals, std::optional<unsigned>(kEmpty), false);
}

void early_read_property(atomstress::KernelCase& c) {
  Inputs in = inputs(c);
  auto table_keys = c.output<unsigned>("table_keys", in.capacity, kEmpty);
  auto table_values = c.output<unsigned>("table_values", in.capacity, kEmpty);
  c.launch(c.cover(in.n), find_or_insert_early_read, in.keys, in.values, in.n, table_keys, table_values,
           in.capacity, in.found);
  const std::vector<unsigned> k = c.initial(in.keys);
  c.expect_map(table_keys, table_values, k, in.vals, std::optional<unsigned>(kEmpty), true);
  c.expect_map(in.keys, in.found, k, in.vals, std::optional<unsigned>(kEmpty), false);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.hash_find_or_insert", packed_property)
ATOMSTRESS_KERNEL_BUGGY("kernels.hash_find_or_insert.early_read",
                        "the payload is published after the key's CAS, and a finder reads it without waiting",
                        early_read_property)
