/* SPDX-License-Identifier: Apache-2.0 */
#ifndef HVD_HVD_C_H_
#define HVD_HVD_C_H_
/* libhvd's plain C API, over the same runtime as hvd/hvd.h, so that other languages can bind
 * it. Functions return 0 on success or a positive hvd_error code; hvd_last_error() gives the
 * message of the calling thread's last failure. Enum values match hvd/tensor.h. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HVD_UINT8,
  HVD_INT32,
  HVD_INT64,
  HVD_FLOAT16,
  HVD_BFLOAT16,
  HVD_FLOAT32,
  HVD_FLOAT64,
  HVD_INT8, /* appended: the values above never change */
  HVD_INT16
} hvd_dtype;
typedef enum { HVD_SUM, HVD_AVERAGE, HVD_MIN, HVD_MAX, HVD_PRODUCT, HVD_ADASUM } hvd_op;
/* Error codes: 1 usage, 2 config, 3 scheduler, 4 launch, 5 bootstrap, 6 backend, 7 timeout,
 * 8 internal (hvd::ErrorCode + 1). */

typedef struct hvd_handle hvd_handle; /* opaque; release with hvd_release */

/* A tensor: `data` owned by the caller until its handle completes; device -1 is the host. */
typedef struct {
  void* data;
  hvd_dtype dtype;
  const int64_t* shape;
  int ndim;
  int device;
} hvd_tensor;

int hvd_init(void);
int hvd_shutdown(void);
int hvd_rank(void);
int hvd_size(void);
int hvd_local_rank(void);
int hvd_local_size(void);
int hvd_cross_rank(void);
int hvd_cross_size(void);
const char* hvd_last_error(void);

int hvd_allreduce_async(const char* name, const hvd_tensor* in, const hvd_tensor* out, hvd_op op,
                        double prescale, double postscale, hvd_handle** handle);
int hvd_broadcast_async(const char* name, const hvd_tensor* in, const hvd_tensor* out, int root,
                        hvd_handle** handle);
int hvd_allgather_async(const char* name, const hvd_tensor* in, hvd_handle** handle);
int hvd_reducescatter_async(const char* name, const hvd_tensor* in, const hvd_tensor* out,
                            hvd_op op, hvd_handle** handle);
int hvd_alltoall_async(const char* name, const hvd_tensor* in, const hvd_tensor* out,
                       hvd_handle** handle);
int hvd_barrier(void);
/* hvd::join(): blocks until every rank joined; *last_joined_rank (may be NULL) is the rank
   that joined last. */
int hvd_join(int device, int* last_joined_rank);

/* Blocks until done; returns the operation's outcome. */
int hvd_wait(hvd_handle* handle);
/* 1 when done, 0 when still running. */
int hvd_poll(const hvd_handle* handle);
/* Allgather result: bytes and shape (valid until hvd_release). */
const void* hvd_output(const hvd_handle* handle, size_t* bytes);
const int64_t* hvd_output_shape(const hvd_handle* handle, int* ndim);
void hvd_release(hvd_handle* handle);

#ifdef __cplusplus
}
#endif

#endif /* HVD_HVD_C_H_ */
