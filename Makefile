# extflow — minimal resolutions over the mod 2 Steenrod algebra.
# `make` builds bin/extflow; `make run` resolves the sphere; `make test` runs the TAP suite.
# `make run` and `make test` first install missing packages (the `deps` target, which runs
# scripts/install-deps); every other target only checks for them and says what to run.
# `make install PREFIX=/usr/local` installs bin/extflow and its man page (made from the help).
# Knobs: NATIVE=1 (tune for this CPU; never for binaries that travel), SAN=1 (ASan+UBSan),
#        DEBUG=1 (-O0 -g), JOBS (prove jobs), STEM (for `make run`),
#        STARPU_PREFIX=.deps/starpu (StarPU from scripts/build-starpu; builds bin-starpu/extflow;
#        a prefix built with MPI=yes, e.g. .deps/starpu-mpi, builds bin-starpu-mpi/extflow).
#        PREFIX=/usr/local (for `make install`). SQLITE_STATIC=1 (link libsqlite3.a; the
#        default with STARPU_PREFIX).

PKGS      := starpu-1.3 libzstd m4ri jansson sqlite3
PKGCONF   := pkg-config
# STARPU_PREFIX=<dir> (e.g. .deps/starpu, made by scripts/build-starpu): build against that
# StarPU (maxcpus 128, CUDA) instead of Debian's, into build-starpu/ and bin-starpu/. The
# binaries get an rpath to the prefix's lib/ relative to themselves, so the tree can move (and
# travel with the prefix) as long as the prefix sits inside the repository.
ifneq ($(STARPU_PREFIX),)
  STARPU_ABS := $(abspath $(STARPU_PREFIX))
  ifeq ($(wildcard $(STARPU_ABS)/lib/pkgconfig/starpu-1.3.pc),)
    $(error STARPU_PREFIX=$(STARPU_PREFIX): no lib/pkgconfig/starpu-1.3.pc there (run scripts/build-starpu))
  endif
  PKGCONF := PKG_CONFIG_PATH=$(STARPU_ABS)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH)) pkg-config
  # Relative to the repository root when inside it, else absolute (then nothing can move).
  # DT_RPATH, not RUNPATH: it also serves the carried libraries' own needs (m4ri -> png16).
  STARPU_REL := $(patsubst $(CURDIR)/%,%,$(STARPU_ABS))
  ifeq ($(filter /%,$(STARPU_REL)),)
    STARPU_RPATH := -Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/../$(STARPU_REL)/lib' \
                    -Wl,-rpath,'$$ORIGIN/../../$(STARPU_REL)/lib'
  else
    STARPU_RPATH := -Wl,--disable-new-dtags -Wl,-rpath,$(STARPU_ABS)/lib
  endif
endif
# Never installs anything while reading this file: the targets that need the libraries stop
# with one line when they are missing; deps/run/test/clean go on (run and test install them
# through `deps`, then run a sub-make, which computes the pkg-config flags afresh).
DEPS_OK   := $(shell $(PKGCONF) --exists $(PKGS) 2>/dev/null && echo yes)
ifneq ($(DEPS_OK),yes)
  ifneq ($(filter-out deps run test clean,$(or $(MAKECMDGOALS),all)),)
    $(error extflow: missing build dependencies (pkg-config $(PKGS)): run scripts/install-deps or `make deps`)
  endif
endif

# StarPU-MPI (runtime/rt_mpi.c): built in when starpumpi-1.3 and mpi are found (Debian:
# libstarpu-dev brings the first, libopenmpi-dev the second; scripts/install-deps installs
# both), unless MPI=0. One binary: without an MPI launcher, or with one rank, it runs as a
# single process. A STARPU_PREFIX build uses MPI only if that prefix has starpumpi-1.3.pc
# (scripts/build-starpu with MPI=yes), never Debian's libstarpumpi over another libstarpu.
ifneq ($(MPI),0)
  ifeq ($(STARPU_PREFIX),)
    HAVE_MPI := $(shell $(PKGCONF) --exists starpumpi-1.3 mpi 2>/dev/null && echo yes)
  else
    HAVE_MPI := $(if $(wildcard $(STARPU_ABS)/lib/pkgconfig/starpumpi-1.3.pc),$(shell $(PKGCONF) --exists starpumpi-1.3 mpi 2>/dev/null && echo yes))
  endif
  ifeq ($(HAVE_MPI),yes)
    PKGS  += starpumpi-1.3 mpi
    MPI_CFLAGS := -DEXTFLOW_MPI
  endif
endif

# libmicrohttpd (extflow serve, tools/cmd-serve.c): built in when found (Debian's
# libmicrohttpd-dev, which scripts/install-deps installs), never into a STARPU_PREFIX build (the
# GPU machine's binary travels without it); without it `serve` says so and exits 1.
ifeq ($(STARPU_PREFIX),)
  HAVE_MHD := $(shell $(PKGCONF) --exists libmicrohttpd 2>/dev/null && echo yes)
  ifeq ($(HAVE_MHD),yes)
    PKGS  += libmicrohttpd
    MHD_CFLAGS := -DEXTFLOW_SERVE
  endif
endif

CC        ?= cc
ARCH      := -march=x86-64-v3
ifeq ($(NATIVE),1)
  ARCH    := -march=native
endif
OPT       := -O2 -g
ifeq ($(DEBUG),1)
  OPT     := -O0 -g
endif
SANFLAGS  :=
B         := build
BIN       := bin
ifeq ($(SAN),1)
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  B       := build-san
  BIN     := build-san/bin
endif
STARPU_CFLAGS :=
ifneq ($(STARPU_PREFIX),)
  # The CUDA build's starpu.h includes cuda.h, cuda_runtime.h and cusparse.h.
  STARPU_CFLAGS := -isystem /usr/local/cuda/include -DDISABLE_CUSPARSE_DEPRECATED
  # A prefix with StarPU-MPI (MPI=yes scripts/build-starpu) builds into build-starpu-mpi/ and
  # bin-starpu-mpi/, so that its binary and the plain prefix's bin-starpu/ can coexist.
  B       := $(B)-starpu$(if $(MPI_CFLAGS),-mpi)
  BIN     := $(if $(filter 1,$(SAN)),$(B)/bin,bin-starpu$(if $(MPI_CFLAGS),-mpi))
endif
# Library headers as system headers, so -Werror judges only our code.
PKG_CFLAGS := $(shell $(PKGCONF) --cflags $(PKGS) 2>/dev/null | sed 's/-I/-isystem /g')
PKG_LIBS   := $(shell $(PKGCONF) --libs $(PKGS) 2>/dev/null)
# SQLite (`export --sqlite`). A STARPU_PREFIX binary travels to machines that may lack
# libsqlite3, so it links Debian's libsqlite3.a (SQLITE_STATIC=1, its default there; 0: the
# shared library, the default otherwise).
SQLITE_STATIC ?= $(if $(STARPU_PREFIX),1,0)
ifeq ($(SQLITE_STATIC),1)
  PKG_LIBS := $(patsubst -lsqlite3,-l:libsqlite3.a,$(PKG_LIBS))
endif
CFLAGS    := -std=c11 -D_GNU_SOURCE $(OPT) $(ARCH) -Wall -Wextra -Werror $(SANFLAGS) \
             -I. $(PKG_CFLAGS) $(STARPU_CFLAGS) $(MPI_CFLAGS) $(EXTRA_CFLAGS)
DEPFLAGS  := -MMD -MP
LDLIBS    := $(PKG_LIBS) -lpthread -lm
LDFLAGS   := $(SANFLAGS) $(STARPU_RPATH)

# CUDA. Where nvcc is (every machine here; no GPU needed), algebra/*.cu compile for sm_90
# (`make cuda-check`, part of `make test`) and the GPU test is built (it skips without a
# device). The program itself uses them only when StarPU was built with CUDA (STARPU_PREFIX from
# scripts/build-starpu): then it links cudart, the same shared library StarPU uses.
CUDA_DIR  ?= /usr/local/cuda
NVCC      ?= $(CUDA_DIR)/bin/nvcc
HAVE_NVCC := $(if $(wildcard $(NVCC)),yes)
NVCCFLAGS := -std=c++17 -O3 -g -I. -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
             -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
CUDA_SRC  := $(wildcard algebra/*.cu)
CUDA_OBJ  := $(CUDA_SRC:%.cu=$(B)/%.o)
CUDA_ALL  := $(CUDA_OBJ) $(B)/bench/milnor_gpu_bench.o $(B)/bench/pair_gpu_bench.o
CUDA_LIBS := -L$(CUDA_DIR)/lib64 -lcudart -Wl,-rpath,$(CUDA_DIR)/lib64 -lstdc++
STARPU_HAS_CUDA := $(if $(STARPU_PREFIX),$(shell grep -qs 'define STARPU_USE_CUDA 1' \
                     $(STARPU_ABS)/include/starpu/1.3/starpu_config.h && echo yes))
PROG_CUDA := $(if $(STARPU_HAS_CUDA),$(CUDA_OBJ) $(CUDA_LIBS))

LIB_SRC   := $(wildcard algebra/*.c codelets/*.c runtime/*.c stages/*.c stages/*/*.c ss/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/chart_html.o $(B)/gen/editor_js.o
LIB       := $(B)/libextflow.a
# The command line: tools/extflow.c (main) and one file per command (tools/cmd-*.c) with the
# option parser and help (tools/cli.c, help.c), the environment check (env.c) and what
# products, massey, d2 and export share (resolved.c).
TOOL_SRC  := $(wildcard tools/*.c)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(B)/%.o)
GPU_TEST_SRC := tests/t-milnor-cuda.c tests/t-pair-cuda.c tests/t-milnor-p-cuda.c
TEST_SRC  := $(filter-out $(GPU_TEST_SRC),$(wildcard tests/t-*.c))
TEST_BIN  := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_SH   := $(wildcard tests/t-*.sh)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
# Built only where nvcc is: they link the CUDA objects and cudart.
GPU_TEST  := $(if $(HAVE_NVCC),$(B)/tests/t-milnor-cuda $(B)/tests/t-pair-cuda $(B)/tests/t-milnor-p-cuda)
GPU_BENCH := $(if $(HAVE_NVCC),$(B)/bench/milnor_gpu_bench $(B)/bench/pair_gpu_bench)

.PHONY: all deps run run-only test test-only bench clean install cuda-check faultsweep carry-mpi
all: $(BIN)/extflow $(B)/extflow.1 $(TEST_BIN) $(BENCH_BIN) $(GPU_TEST) $(GPU_BENCH) $(B)/tests/faultshim.so

# The LD_PRELOAD shim of the fault-injection test (tests/t-faults.sh); no sanitizer in it.
$(B)/tests/faultshim.so: tests/faultshim.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared $< -o $@

# Every object records the headers it includes in its .d file (-MMD -MP); an object without
# one (built before, or the file lost) is rebuilt.
DEP_FILES := $(patsubst %.c,$(B)/%.d,$(LIB_SRC) $(TEST_SRC) $(GPU_TEST_SRC) $(BENCH_SRC) $(TOOL_SRC)) \
             $(patsubst %.cu,$(B)/%.d,$(CUDA_SRC) bench/milnor_gpu_bench.cu bench/pair_gpu_bench.cu)
$(B)/%.o: %.cu $(B)/%.d
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(DEPFLAGS) -c $< -o $@

# Every .cu compiles for sm_90, so none can rot where no GPU build is made.
cuda-check: $(if $(HAVE_NVCC),$(CUDA_ALL))
	@$(if $(HAVE_NVCC),echo "cuda-check: $(CUDA_SRC) bench/milnor_gpu_bench.cu bench/pair_gpu_bench.cu compile for sm_90",echo "cuda-check: no nvcc at $(NVCC); skipped")

$(B)/%.o: %.c $(B)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@
# rt_mpi.c is the one file whose code depends on whether MPI was found: rebuilt when that changes.
MPI_STAMP := $(B)/mpi-$(if $(MPI_CFLAGS),on,off).stamp
$(MPI_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(B)/mpi-*.stamp
	@touch $@
$(B)/runtime/rt_mpi.o: $(MPI_STAMP)
$(DEP_FILES):
-include $(DEP_FILES)
# --module NAME also looks in this tree's modules/ (for the binaries of build-san/, bin-starpu/)
$(B)/tools/modulearg.o: CFLAGS += -DEXTFLOW_MODULES_DIR='"$(CURDIR)/modules"'
$(B)/tools/cmd-serve.o: CFLAGS += $(MHD_CFLAGS)

# The chart page (stages/out/chart.html) compiled in as one string: stages/out/chart.h.
$(B)/gen/chart_html.c: stages/out/chart.html scripts/embed-text
	@mkdir -p $(dir $@)
	scripts/embed-text chart_html_template < $< > $@.tmp && mv $@.tmp $@
$(B)/gen/chart_html.o: $(B)/gen/chart_html.c
	$(CC) $(CFLAGS) -c $< -o $@
# The editor's script (ss/editor.js), which extflow serve adds to the chart page.
$(B)/gen/editor_js.c: ss/editor.js scripts/embed-text
	@mkdir -p $(dir $@)
	scripts/embed-text ss_editor_js < $< > $@.tmp && mv $@.tmp $@
$(B)/gen/editor_js.o: $(B)/gen/editor_js.c
	$(CC) $(CFLAGS) -c $< -o $@

# The commit the binary is built from (extflow_commit, stages/version.h): scripts/commit-id
# rewrites $(B)/gen/commit.c each time make reads this file, but only when its text changes (a
# commit, the tree turning dirty or clean), so that only that file recompiles and only the
# program relinks, after a commit and not on every make. A fresh clone gets it the same way;
# a tree outside git says "unknown". The unit tests link the library alone (manifest.c's weak
# "unknown"), so a commit does not relink them.
COMMIT_C  := $(B)/gen/commit.c
ifneq ($(filter-out clean deps,$(or $(MAKECMDGOALS),all)),)
  $(shell scripts/commit-id $(COMMIT_C))
endif
$(COMMIT_C):
	scripts/commit-id $@
$(B)/gen/commit.o: $(COMMIT_C) stages/version.h
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/extflow: $(TOOL_OBJ) $(B)/gen/commit.o $(LIB) $(if $(STARPU_HAS_CUDA),$(CUDA_OBJ))
	@mkdir -p $(BIN)
	$(CC) $(TOOL_OBJ) $(B)/gen/commit.o $(LIB) -o $@ $(LDFLAGS) $(PROG_CUDA) $(LDLIBS)

$(TEST_BIN): $(B)/tests/%: $(B)/tests/%.o $(LIB)
	$(CC) $< $(LIB) -o $@ $(LDFLAGS) $(LDLIBS)

$(BENCH_BIN): $(B)/bench/%: $(B)/bench/%.o $(LIB)
	$(CC) $< $(LIB) -o $@ $(LDFLAGS) $(LDLIBS)

# bench/fpmat_bench times fpmat_rref against FLINT's nmod_mat_rref where FLINT's headers are
# (Debian: libflint-dev, not a build dependency); without them it times fpmat alone.
HAVE_FLINT := $(if $(wildcard /usr/include/flint/nmod_mat.h),yes)
ifeq ($(HAVE_FLINT),yes)
$(B)/bench/fpmat_bench.o: CFLAGS += -DHAVE_FLINT
$(B)/bench/fpmat_bench: LDLIBS += -lflint
endif

$(B)/tests/t-milnor-cuda $(B)/tests/t-pair-cuda $(B)/tests/t-milnor-p-cuda: $(B)/tests/%: $(B)/tests/%.o $(CUDA_OBJ) $(LIB)
	$(CC) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(CUDA_LIBS)

$(B)/bench/milnor_gpu_bench $(B)/bench/pair_gpu_bench: $(B)/bench/%: $(B)/bench/%.o $(CUDA_OBJ) $(LIB)
	$(CC) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(CUDA_LIBS)

# The man page is written from the binary's own help text.
$(B)/extflow.1: $(BIN)/extflow scripts/man-from-help
	scripts/man-from-help $(BIN)/extflow > $@.tmp && mv $@.tmp $@

# make install PREFIX=/usr/local (DESTDIR= for staging): the binary and its man page. A
# STARPU_PREFIX binary finds StarPU relative to the repository, so it stays where it is.
PREFIX ?= /usr/local
install: $(BIN)/extflow $(B)/extflow.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN)/extflow $(DESTDIR)$(PREFIX)/bin/extflow
	install -m 644 $(B)/extflow.1 $(DESTDIR)$(PREFIX)/share/man/man1/extflow.1
	install -d $(DESTDIR)$(PREFIX)/share/extflow/modules
	install -m 644 modules/*.json $(DESTDIR)$(PREFIX)/share/extflow/modules

# Installs what is missing from Debian's packages (apt-get; needs root or sudo then).
deps:
	./scripts/install-deps

STEM ?= 40
run: deps
	@$(MAKE) --no-print-directory run-only
run-only: bin/extflow
	./bin/extflow resolve --module S_2 --stem $(STEM) --out out/S_2
	@bin/extflow export out/S_2 --text
	@echo "table: out/S_2/ext.csv   chart: out/S_2/chart.svg, out/S_2/chart.html (open in a browser)"

JOBS ?= 2
# SAN=1: AddressSanitizer + UBSan; leaks are checked by valgrind (tests/t-valgrind.sh), since
# StarPU's dlopen'ed plugins leave allocations LeakSanitizer cannot attribute.
SAN_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
test: deps
	@$(MAKE) --no-print-directory test-only
test-only: all cuda-check
	$(if $(filter 1,$(SAN)),$(SAN_ENV)) EXTFLOW=./$(BIN)/extflow FAULT_SHIM=$(B)/tests/faultshim.so MILNOR_BENCH=$(B)/bench/milnor_bench \
	    STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1 prove --exec '' --timer -j$(JOBS) $(TEST_BIN) $(GPU_TEST) $(TEST_SH)

# The fault-injection sweep over every allocation (make test steps through a sample of them):
# FAULT_STEM (12), FAULT_JOBS (2). About 4 750 runs, 12 min on 2 cores.
FAULT_STEM ?= 12
FAULT_JOBS ?= 2
faultsweep: deps
	@$(MAKE) --no-print-directory all
	EXTFLOW=./$(BIN)/extflow FAULT_SHIM=$(B)/tests/faultshim.so FAULT_STRIDE=1 FAULT_STEM=$(FAULT_STEM) \
	    FAULT_JOBS=$(FAULT_JOBS) STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1 prove --exec '' --timer -v tests/t-faults.sh

bench: all
	./bench/run

# What a machine without Open MPI (the GPU machine) needs to run `mpirun -np N` with StarPU-MPI
# and CUDA: .deps/starpu-mpi (StarPU with MPI, scripts/build-starpu), .deps/ompi (this host's
# Open MPI, scripts/bundle-openmpi) and bin-starpu-mpi/extflow. Carry those three paths;
# bench/mpi-device runs issue 13's measurement there (docs/cluster.md, "Carrying Open MPI").
carry-mpi:
	MPI=yes scripts/build-starpu
	scripts/bundle-openmpi
	@$(MAKE) --no-print-directory STARPU_PREFIX=.deps/starpu-mpi bin-starpu-mpi/extflow
	@du -sbc .deps/starpu-mpi .deps/ompi bin-starpu-mpi | awk 'END {printf "carry-mpi: .deps/starpu-mpi .deps/ompi bin-starpu-mpi: %.1f MiB\n", $$1 / 1048576}'

clean:
	rm -rf build build-san bin build-starpu build-san-starpu bin-starpu build-starpu-mpi build-san-starpu-mpi bin-starpu-mpi

# Fuzzing (libFuzzer, clang): the stage-file decoder, the text-matrix parser, the module-file
# loader (seeds: modules/) and the calculator's expressions, each for FUZZ_SECONDS/4. Crashers land in tests/fuzz/crashers/ (commit them: t-fuzz-regress replays
# them in `make test`). Corpora grow under build/fuzz/ (not committed).
FUZZ_SECONDS ?= 60
FUZZ_SRC  := stages/store/stagefile.c stages/store/durable.c algebra/f2mat.c algebra/f2mat_m4rm.c algebra/team.c algebra/memacct.c
FUZZ_MOD_SRC := algebra/fdmodule.c algebra/fdmodule_p.c algebra/fpmodule.c algebra/modops.c algebra/milnor.c algebra/milnor_p.c algebra/fpmat.c algebra/f2mat.c algebra/f2mat_m4rm.c algebra/team.c algebra/memacct.c
FUZZ_EXPR_SRC := algebra/stexpr.c algebra/admissible.c algebra/milnor.c algebra/milnor_p.c algebra/fpmat.c algebra/f2mat.c algebra/f2mat_m4rm.c algebra/team.c algebra/memacct.c
FUZZ_CC   := clang -std=c11 -D_GNU_SOURCE -O1 -g -march=x86-64-v3 -I. $(PKG_CFLAGS) \
             -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
.PHONY: fuzz
fuzz:
	@command -v clang >/dev/null && test -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a || \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null)
	@mkdir -p build/fuzz/corpus-stage build/fuzz/corpus-text build/fuzz/corpus-module build/fuzz/corpus-stexpr tests/fuzz/crashers
	$(FUZZ_CC) tests/fuzz/fuzz_stage_decode.c $(FUZZ_SRC) -o build/fuzz/fuzz_stage_decode $(PKG_LIBS) -lm
	$(FUZZ_CC) tests/fuzz/fuzz_matrix_text.c $(FUZZ_SRC) -o build/fuzz/fuzz_matrix_text $(PKG_LIBS) -lm
	$(FUZZ_CC) tests/fuzz/fuzz_module.c $(FUZZ_MOD_SRC) -o build/fuzz/fuzz_module $(PKG_LIBS) -lm
	$(FUZZ_CC) tests/fuzz/fuzz_stexpr.c $(FUZZ_EXPR_SRC) -o build/fuzz/fuzz_stexpr $(PKG_LIBS) -lm
	build/fuzz/fuzz_stage_decode -max_total_time=$$(($(FUZZ_SECONDS) / 4)) -artifact_prefix=tests/fuzz/crashers/stage- \
	    -print_final_stats=1 build/fuzz/corpus-stage tests/fuzz/seeds-stage
	build/fuzz/fuzz_matrix_text -max_total_time=$$(($(FUZZ_SECONDS) / 4)) -artifact_prefix=tests/fuzz/crashers/text- \
	    -print_final_stats=1 build/fuzz/corpus-text tests/fuzz/seeds-text
	build/fuzz/fuzz_module -max_total_time=$$(($(FUZZ_SECONDS) / 4)) -artifact_prefix=tests/fuzz/crashers/module- \
	    -print_final_stats=1 build/fuzz/corpus-module modules
	build/fuzz/fuzz_stexpr -max_total_time=$$(($(FUZZ_SECONDS) / 4)) -artifact_prefix=tests/fuzz/crashers/stexpr- \
	    -print_final_stats=1 build/fuzz/corpus-stexpr tests/fuzz/seeds-stexpr
