// The library's kernel as an atomstress entry: a property that generates its
// inputs, launches it unchanged and checks the counts.  (A unit of its own: a
// __global__ kernel has no host build, so this unit is GPU only, and the
// atomics' unit still runs on the cpu backend.)
#include <atomstress/kernel.cuh>

#include <mylib/histogram.cuh>

namespace {
void histogram_counts_every_key(atomstress::KernelCase& c) {
  const size_t n = c.size("n");                                // generated, shrinks toward small
  auto keys = c.keys<unsigned>("keys", n, c.range("bins"));    // the trial's contention pattern
  auto bins = c.output<unsigned>("bins", c.range("bins"), 0u);  // guarded: a write outside is [bounds]
  c.launch(c.cover(n), mylib::histogram, keys, n, bins);
  c.expect_counts(bins, keys);
}
}  // namespace
ATOMSTRESS_KERNEL("mylib.histogram", histogram_counts_every_key)
