// What the GPU's float atomic adds do with subnormals: a measurement, not a
// test (docs/design.md's table comes from it).  For each add (f32, f64, f16,
// bf16, the vector adds, atomicAdd_system and _block; global and shared
// memory where CUDA has the form), three one-thread cases on its first
// lane:
//   operand:  memory 0, operand the smallest subnormal     (IEEE: the subnormal)
//   memory:   memory the smallest subnormal, operand 0     (IEEE: the subnormal)
//   result:   memory 1.5 * 2^emin, operand -2^emin         (IEEE: 0.5 * 2^emin, subnormal)
// and prints whether each kept the subnormal or flushed it to zero.
// Usage: atomstress_float_facts  (exit 0; 77 without a usable GPU)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

#define FACTS_CHECK(call)                                                                     \
  do {                                                                                        \
    const cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "atomstress_float_facts: %s: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

enum class Space { Global, Shared };
enum class Form { Plain, Block, System };

// One add on the first lane of T (the whole of T is 16 bytes at most).
template <class T, Form F>
__device__ void add_one(T* p, T v) {
  if constexpr (F == Form::Block) atomicAdd_block(p, v);
  else if constexpr (F == Form::System) atomicAdd_system(p, v);
  else atomicAdd(p, v);
}

template <class T, Form F, Space S>
__global__ void add_kernel(T* word, T operand) {
  if constexpr (S == Space::Shared) {
    __shared__ T s;
    s = *word;
    __syncthreads();
    add_one<T, F>(&s, operand);
    __syncthreads();
    *word = s;
  } else {
    add_one<T, F>(word, operand);
  }
}

// Bit patterns of the first lane, per scalar width.
struct Lane {
  unsigned bytes;          // 2, 4 or 8
  uint64_t tiny;           // the smallest subnormal
  uint64_t normal_1_5;     // 1.5 * 2^emin
  uint64_t minus_normal;   // -2^emin: normal_1_5 + minus_normal = half_normal, a subnormal
  uint64_t half_normal;    // 0.5 * 2^emin
};

template <class T>
T from_lane(const Lane& l, uint64_t bits) {
  T v;
  std::memset(&v, 0, sizeof v);
  std::memcpy(&v, &bits, l.bytes);
  return v;
}
template <class T>
uint64_t lane_of(const Lane& l, const T& v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, l.bytes);
  return bits;
}

template <class T, Form F, Space S>
uint64_t run_case(const Lane& l, uint64_t memory, uint64_t operand) {
  T* d = nullptr;
  FACTS_CHECK(cudaMalloc(&d, sizeof(T)));
  const T m = from_lane<T>(l, memory);
  FACTS_CHECK(cudaMemcpy(d, &m, sizeof(T), cudaMemcpyHostToDevice));
  add_kernel<T, F, S><<<1, 1>>>(d, from_lane<T>(l, operand));
  FACTS_CHECK(cudaGetLastError());
  FACTS_CHECK(cudaDeviceSynchronize());
  T out;
  FACTS_CHECK(cudaMemcpy(&out, d, sizeof(T), cudaMemcpyDeviceToHost));
  FACTS_CHECK(cudaFree(d));
  return lane_of(l, out);
}

const char* kept(uint64_t got, uint64_t ieee) { return got == ieee ? "kept" : got == 0 ? "flushed" : "other"; }

template <class T, Form F, Space S>
void row(const char* name, const Lane& l) {
  const uint64_t op = run_case<T, F, S>(l, 0, l.tiny);
  const uint64_t mem = run_case<T, F, S>(l, l.tiny, 0);
  const uint64_t res = run_case<T, F, S>(l, l.normal_1_5, l.minus_normal);
  std::printf("| %-34s | %-6s | %-8s | %-8s | %-8s |\n", name, S == Space::Shared ? "shared" : "global", kept(op, l.tiny),
              kept(mem, l.tiny), kept(res, l.half_normal));
}

}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::puts("atomstress_float_facts: no usable CUDA device: skipped");
    return 77;
  }
  cudaDeviceProp prop{};
  FACTS_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  FACTS_CHECK(cudaDriverGetVersion(&driver));
  FACTS_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("%s (sm_%d%d), driver API %d, runtime %d\n\n", prop.name, prop.major, prop.minor, driver, runtime);
  const Lane f32{4, 0x1, 0x00c00000, 0x80800000, 0x00400000};
  const Lane f64{8, 0x1, 0x0018000000000000ull, 0x8010000000000000ull, 0x0008000000000000ull};
  const Lane f16{2, 0x1, 0x0600, 0x8400, 0x0200};
  const Lane bf16{2, 0x1, 0x00c0, 0x8080, 0x0040};
  std::puts("| add | memory | operand subnormal | stored subnormal | subnormal result |");
  std::puts("| --- | --- | --- | --- | --- |");
  row<float, Form::Plain, Space::Global>("atomicAdd(float*)", f32);
  row<float, Form::Plain, Space::Shared>("atomicAdd(float*)", f32);
  row<float, Form::Block, Space::Global>("atomicAdd_block(float*)", f32);
  row<float, Form::System, Space::Global>("atomicAdd_system(float*)", f32);
  row<double, Form::Plain, Space::Global>("atomicAdd(double*)", f64);
  row<double, Form::Plain, Space::Shared>("atomicAdd(double*)", f64);
  row<__half, Form::Plain, Space::Global>("atomicAdd(__half*)", f16);
  row<__half, Form::Plain, Space::Shared>("atomicAdd(__half*)", f16);
  row<__nv_bfloat16, Form::Plain, Space::Global>("atomicAdd(__nv_bfloat16*)", bf16);
  row<__nv_bfloat16, Form::Plain, Space::Shared>("atomicAdd(__nv_bfloat16*)", bf16);
  row<__half2, Form::Plain, Space::Global>("atomicAdd(__half2*) (low half)", f16);
  row<__nv_bfloat162, Form::Plain, Space::Global>("atomicAdd(__nv_bfloat162*) (low)", bf16);
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
  row<float2, Form::Plain, Space::Global>("atomicAdd(float2*) (x)", f32);
  row<float4, Form::Plain, Space::Global>("atomicAdd(float4*) (x)", f32);
#endif
  return 0;
}
