# extflow — minimal resolutions over the mod 2 Steenrod algebra.
# `make` builds bin/extflow; `make run` resolves the sphere; `make test` runs the TAP suite.
# Knobs: NATIVE=1 (tune for this CPU; never for binaries that travel), SAN=1 (ASan+UBSan),
#        DEBUG=1 (-O0 -g), JOBS (prove jobs), STEM (for `make run`).

PKGS      := starpu-1.3 libzstd m4ri jansson
DEPS_OK   := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo yes)
ifneq ($(DEPS_OK),yes)
  $(info extflow: dependencies missing, running scripts/install-deps)
  $(shell ./scripts/install-deps >&2)
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
ifeq ($(SAN),1)
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
# Library headers as system headers, so -Werror judges only our code.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null | sed 's/-I/-isystem /g')
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS    := -std=c11 -D_GNU_SOURCE $(OPT) $(ARCH) -Wall -Wextra -Werror $(SANFLAGS) \
             -I. $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDLIBS    := $(PKG_LIBS) -lpthread -lm
LDFLAGS   := $(SANFLAGS)

B         := build
LIB_SRC   := $(wildcard algebra/*.c codelets/*.c runtime/*.c stages/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o)
LIB       := $(B)/libextflow.a
TEST_SRC  := $(wildcard tests/t-*.c)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_SH   := $(wildcard tests/t-*.sh)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
HEADERS   := $(wildcard algebra/*.h codelets/*.h runtime/*.h stages/*.h tests/*.h)

.PHONY: all run test bench clean
all: bin/extflow $(TEST_BIN) $(BENCH_BIN)

$(B)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

bin/extflow: tools/extflow.c $(LIB) $(HEADERS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $< $(LIB) -o $@ $(LDFLAGS) $(LDLIBS)

$(B)/tests/%: tests/%.c $(LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB) -o $@ $(LDFLAGS) $(LDLIBS)

$(B)/bench/%: bench/%.c $(LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB) -o $@ $(LDFLAGS) $(LDLIBS)

STEM ?= 40
run: bin/extflow
	STARPU_SILENT=1 ./bin/extflow resolve --module S_2 --stem $(STEM) --out out/S_2
	@cat out/S_2/chart.txt
	@echo "table: out/S_2/ext.csv   chart: out/S_2/chart.svg"

JOBS ?= 2
test: all
	STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1 prove --exec '' --timer -j$(JOBS) $(TEST_BIN) $(TEST_SH)

bench: all
	./bench/run

clean:
	rm -rf $(B) bin
