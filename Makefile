# Builds the C core (csrc/core + csrc/alloc, no Python) as libtensorlib.so
# and the C unit tests in tests/c/, which link against it.
#   make            -> build/libtensorlib.so
#   make ctest      -> build and run every tests/c/test_*.c
#   make SAN=1 ...  -> the same under ASan+UBSan, in build-san/
#   make TSAN=1 / COV=1 ... -> ThreadSanitizer / gcov builds (issue 23)
CC ?= gcc
SAN ?= 0
ifeq ($(SAN),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fsanitize=float-cast-overflow -fno-omit-frame-pointer
OPT := -O1 -g
else
BUILD := build
SANFLAGS :=
OPT := -O2 -g
endif
# Issue 23: make TSAN=1 ... -> ThreadSanitizer in build-tsan/ (tools/tsan.sh);
# make COV=1 ... -> gcov counters in build-cov/ (tools/coverage.sh).
ifeq ($(TSAN),1)
BUILD := build-tsan
# (no target_clones: their ifunc resolvers run before TSan is initialised)
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer -DTL_NO_TARGET_CLONES
OPT := -O1 -g
endif
ifeq ($(COV),1)
BUILD := build-cov
# (no target_clones: one copy of each multiversioned function, so that a
# line counts as reached when its code ran, not once per ISA clone)
SANFLAGS := --coverage -DTL_NO_TARGET_CLONES
OPT := -O0 -g
endif
CFLAGS := -std=c11 -Wall -Wextra -Wno-unused-parameter -fPIC \
          -fvisibility=hidden -D_GNU_SOURCE -DTL_BUILDING_LIB \
          -Icsrc/include $(OPT) $(SANFLAGS) $(EXTRA_CFLAGS)
LDLIBS := -lpthread -lm
# BLAS/LAPACK (scipy-openblas64): Python says where it lives.
PYTHON ?= $(shell command -v python >/dev/null 2>&1 && echo python || echo python3)
BLAS_DIR := $(shell $(PYTHON) -c 'import scipy_openblas64 as s; print(s.get_lib_dir())')
BLAS_LIB := $(shell $(PYTHON) -c 'import scipy_openblas64 as s; print(s.get_library())')
BLAS_LDLIBS := -L$(BLAS_DIR) -l$(BLAS_LIB) -Wl,-rpath,$(BLAS_DIR)

CORE_SRC := $(wildcard csrc/alloc/*.c) $(wildcard csrc/core/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC))
HEADERS := $(wildcard csrc/include/tensorlib/*.h csrc/alloc/*.h csrc/core/*.h)
TEST_SRC := $(wildcard tests/c/test_*.c)
TEST_BIN := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(TEST_SRC))

.PHONY: all ctest ctest-bin clean
all: $(BUILD)/libtensorlib.so

# The C tests built but not run (CI builds them ahead: .ci/prebuild).
ctest-bin: $(TEST_BIN)

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libtensorlib.so: $(CORE_OBJ)
	$(CC) -shared $(SANFLAGS) -o $@ $^ $(BLAS_LDLIBS) $(LDLIBS)

# Tests see only the public headers, plus the harness (white-box
# exception: test_coverage_core.c reads the pool's internal structs to
# corrupt them for tl_pool_check; its comment says how).
$(BUILD)/tests/%: tests/c/%.c tests/c/harness.h $(BUILD)/libtensorlib.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -D_GNU_SOURCE -Icsrc/include -Itests/c \
	    $(OPT) $(SANFLAGS) $< -o $@ -L$(BUILD) -ltensorlib \
	    -Wl,-rpath,$(abspath $(BUILD)) $(BLAS_LDLIBS) $(LDLIBS)

# One run target per test, so that `make -jN ctest` runs N tests at once
# (add --output-sync=target to keep each test's output in one piece).
TEST_RUNS := $(TEST_BIN:=.run)
.PHONY: $(TEST_RUNS)
ctest: $(TEST_RUNS)
$(TEST_RUNS): %.run: %
	@echo "== $<"; $<

clean:
	rm -rf build build-san build-tsan build-cov
