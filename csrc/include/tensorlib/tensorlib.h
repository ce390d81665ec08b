/* tensorlib/tensorlib.h — the umbrella header of the public C API: it
 * includes every header of csrc/include/tensorlib (a test in
 * tests/test_c_core.py checks that none is left out). */
#ifndef TENSORLIB_TENSORLIB_H
#define TENSORLIB_TENSORLIB_H

#include "tensorlib/base.h"
#include "tensorlib/status.h"
#include "tensorlib/device.h"
#include "tensorlib/dtype.h"
#include "tensorlib/alloc.h"
#include "tensorlib/arena.h"
#include "tensorlib/tensor.h"
#include "tensorlib/plan.h"
#include "tensorlib/view.h"
#include "tensorlib/index.h"
#include "tensorlib/reduce.h"
#include "tensorlib/iter.h"
#include "tensorlib/op_table.h"
#include "tensorlib/ops.h"
#include "tensorlib/streams.h"
#include "tensorlib/device_table.h"
#include "tensorlib/dlpack_abi.h"
#include "tensorlib/random.h"
#include "tensorlib/mapped.h"
#include "tensorlib/cow.h"
#include "tensorlib/linalg.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/sortscan.h"
#include "tensorlib/view_complex.h"

#endif /* TENSORLIB_TENSORLIB_H */
