/* csrc/cuda/cuda_prim.h — the CUDA primitive layer: every CUDA runtime call
 * tensorlib makes, each behind one function that returns a tl_status.  A
 * failing call records the error (tl_error: TL_ERR_MEMORY for an
 * allocation failure, TL_ERR_RUNTIME otherwise, with the CUDA error's name
 * and text and the call that failed) and returns; nothing here aborts the
 * process (STYLE.md habit 9).  Nothing outside cuda_prim.c (real cudart)
 * and cuda_prim_emulated.c (Note [CUDA host emulation] in launch.cuh)
 * includes a CUDA header, except the kernel launches in the .cu files.
 *
 * Internal to csrc/cuda; C/C++-neutral (the .cu files include it). */
#ifndef TENSORLIB_CSRC_CUDA_CUDA_PRIM_H
#define TENSORLIB_CSRC_CUDA_CUDA_PRIM_H

#include <stddef.h>

#include "tensorlib/base.h"
#include "tensorlib/status.h"

TL_EXTERN_C_BEGIN

/* A cudaStream_t / cudaEvent_t.  NULL is the legacy default stream. */
typedef struct tl_cuda_stream_s *tl_cuda_stream;
typedef struct tl_cuda_event_s *tl_cuda_event;

/* Copy directions (the emulation checks that pointers match them). */
typedef enum tl_cuda_copy_kind {
    TL_CUDA_H2D = 1,
    TL_CUDA_D2H = 2,
    TL_CUDA_D2D = 3,
} tl_cuda_copy_kind;

/* "cudart" or "emulated". */
const char *tl_cuda_prim_name(void);

/* ---- devices ------------------------------------------------------------ */

/* cudaGetDeviceCount.  Without a driver or a device: *count = 0 and 0 is
 * returned (the CUDA error is cleared, nothing is recorded). */
int tl_cuda_device_count(int *count);
int tl_cuda_get_device(int *dev);                   /* cudaGetDevice */
int tl_cuda_set_device(int dev);                    /* cudaSetDevice */
int tl_cuda_device_synchronize(void);               /* cudaDeviceSynchronize */
/* cudaGetDeviceProperties: name (NUL-terminated), multiprocessors,
 * compute capability. */
int tl_cuda_device_properties(int dev, char *name, size_t n, int *sm_count,
                              int *major, int *minor);
int tl_cuda_runtime_version(int *v);                /* cudaRuntimeGetVersion */
int tl_cuda_driver_version(int *v);                 /* cudaDriverGetVersion */

/* ---- memory ------------------------------------------------------------- */

int tl_cuda_malloc(void **p, size_t n);              /* cudaMalloc */
int tl_cuda_free(void *p);                           /* cudaFree */
int tl_cuda_malloc_host(void **p, size_t n);         /* cudaMallocHost */
int tl_cuda_free_host(void *p);                      /* cudaFreeHost */
/* cudaMemcpyAsync on s. */
int tl_cuda_memcpy_async(void *dst, const void *src, size_t n,
                         tl_cuda_copy_kind kind, tl_cuda_stream s);
/* cudaMemcpyPeerAsync on s. */
int tl_cuda_memcpy_peer_async(void *dst, int dst_dev, const void *src,
                              int src_dev, size_t n, tl_cuda_stream s);
/* cudaMemsetAsync on s. */
int tl_cuda_memset_async(void *p, int value, size_t n, tl_cuda_stream s);

/* ---- streams and events ------------------------------------------------- */

/* cudaStreamCreateWithPriority(cudaStreamNonBlocking, priority). */
int tl_cuda_stream_create(tl_cuda_stream *s, int priority);
int tl_cuda_stream_destroy(tl_cuda_stream s);        /* cudaStreamDestroy */
/* cudaStreamQuery: 1 idle, 0 busy, or an error. */
int tl_cuda_stream_query(tl_cuda_stream s);
/* cudaStreamSynchronize */
int tl_cuda_stream_synchronize(tl_cuda_stream s);
/* cudaStreamWaitEvent. */
int tl_cuda_stream_wait_event(tl_cuda_stream s, tl_cuda_event e);
/* cudaEventCreateWithFlags(cudaEventDisableTiming). */
int tl_cuda_event_create(tl_cuda_event *e);
int tl_cuda_event_record(tl_cuda_event e, tl_cuda_stream s);
/* cudaEventQuery: 1 complete, 0 not yet, or an error. */
int tl_cuda_event_query(tl_cuda_event e);
int tl_cuda_event_synchronize(tl_cuda_event e);      /* cudaEventSynchronize */
int tl_cuda_event_destroy(tl_cuda_event e);          /* cudaEventDestroy */

/* ---- kernels ------------------------------------------------------------ */

/* cudaGetLastError after a launch; what names the kernel. */
int tl_cuda_check_launch(const char *what);

/* Emulation only: records TL_ERR_RUNTIME unless [p, p + n) lies in memory
 * from tl_cuda_malloc (device) / outside it (host).  Real builds: 0. */
int tl_cuda_check_pointer(const void *p, size_t n, int on_device);

/* ---- emulation only: injected faults ------------------------------------ */

#ifdef TL_CUDA_EMULATE
/* The counted primitives (Note [Emulated CUDA faults] in
 * cuda_prim_emulated.c). */
enum {
    TL_CUDA_EMU_GET_DEVICE,
    TL_CUDA_EMU_SET_DEVICE,
    TL_CUDA_EMU_DEVICE_SYNCHRONIZE,
    TL_CUDA_EMU_DEVICE_PROPERTIES,
    TL_CUDA_EMU_RUNTIME_VERSION,
    TL_CUDA_EMU_DRIVER_VERSION,
    TL_CUDA_EMU_MALLOC,
    TL_CUDA_EMU_FREE,
    TL_CUDA_EMU_MALLOC_HOST,
    TL_CUDA_EMU_FREE_HOST,
    TL_CUDA_EMU_MEMCPY,
    TL_CUDA_EMU_MEMCPY_PEER,
    TL_CUDA_EMU_MEMSET,
    TL_CUDA_EMU_STREAM_CREATE,
    TL_CUDA_EMU_STREAM_DESTROY,
    TL_CUDA_EMU_STREAM_QUERY,
    TL_CUDA_EMU_STREAM_SYNCHRONIZE,
    TL_CUDA_EMU_STREAM_WAIT_EVENT,
    TL_CUDA_EMU_EVENT_CREATE,
    TL_CUDA_EMU_EVENT_RECORD,
    TL_CUDA_EMU_EVENT_QUERY,
    TL_CUDA_EMU_EVENT_SYNCHRONIZE,
    TL_CUDA_EMU_EVENT_DESTROY,
    TL_CUDA_EMU_LAUNCH,
    TL_CUDA_EMU_NCALLS
};

/* The CUDA runtime name of a counted call ("cudaMalloc"), or NULL. */
const char *tl_cuda_emu_call_name(int call);
/* The n-th counted call from now (0: the next) fails once; n < 0
 * disarms.  Resets the count and the fired call. */
void tl_cuda_emu_fault_arm(long long n);
/* Every call `call` fails (on) or not (off).  Returns 0 or an error. */
int tl_cuda_emu_fault_stick(int call, int on);
void tl_cuda_emu_fault_unstick_all(void);
/* Returns the calls counted since arming; *fired: the call the one-shot
 * fault hit, or -1. */
long long tl_cuda_emu_fault_state(int *fired);
/* Returns the tracked ranges (device and page-locked memory) alive, with
 * their bytes, and the live streams and events. */
long tl_cuda_emu_live(size_t *bytes, long *streams, long *events);
#endif

TL_EXTERN_C_END

#endif /* TENSORLIB_CSRC_CUDA_CUDA_PRIM_H */
