/* tensorlib/tensorlib.h — the umbrella header of the public C API. */
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
#include "tensorlib/mapped.h"
#include "tensorlib/cow.h"

#endif /* TENSORLIB_TENSORLIB_H */
