# kernels: numeric kernels on plain buffers (fragment of the top Makefile.am).

# ---- CPU reference, part of libqopt ----
libqopt_la_SOURCES += kernels/internal.h kernels/numerics.h \
	kernels/cuda-abi.h kernels/error.c kernels/parallel.c kernels/elem.c \
	kernels/ctx.c kernels/convert.c kernels/amax.c kernels/finite.c \
	kernels/qlayout.c kernels/fp8.c kernels/fp8-avx512.c kernels/int8.c \
	kernels/nvfp4.c kernels/nvfp4-avx2.c kernels/nvfp4-avx512.c \
	kernels/mxfp8.c \
	kernels/hadamard.h kernels/hadamard.c \
	kernels/hadamard-avx512.c kernels/transpose.c

# ---- CUDA module: kernels/libqopt-cuda.so ----
# Built by nvcc outside libtool: libqopt never links CUDA; it dlopens
# this module at run time (kernels/ctx.c) and falls back to the CPU
# when the module, the driver or a device is missing. The CUDA runtime
# is linked statically (nvcc's default), so the module needs only the
# driver (libcuda.so.1), which cudart itself loads.
QK_CUDA_SRCS = kernels/cuda-module.cu kernels/cuda-convert.cu \
	kernels/cuda-fp8.cu kernels/cuda-int8.cu kernels/cuda-nvfp4.cu \
	kernels/cuda-hadamard.cu
QK_CUDA_HDRS = $(srcdir)/kernels/cuda-internal.cuh \
	$(srcdir)/kernels/numerics.h $(srcdir)/kernels/cuda-abi.h \
	$(top_srcdir)/include/qopt/kernels.h
# Objects are X.o, not X.cu.o: with an X.cu.o beside it, make's built-in
# "%: %.o" rule would try to "remake" the source X.cu (in make dist).
QK_CUDA_OBJS = kernels/cuda-module.o kernels/cuda-convert.o \
	kernels/cuda-fp8.o kernels/cuda-int8.o kernels/cuda-nvfp4.o \
	kernels/cuda-hadamard.o
EXTRA_DIST += $(QK_CUDA_SRCS) kernels/cuda-internal.cuh

# SASS for Hopper, PTX for Turing and later (JIT-compiled by the driver
# where no SASS matches). Override on the make command line if needed.
QK_NVCC_GENCODE = -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_75,code=compute_75
# Bit-identical to the CPU: no FMA contraction, IEEE division and
# square root, no flush to zero (numerics.h also uses the _rn
# intrinsics explicitly). NVCCFLAGS is left to the user.
QK_NVCCFLAGS = -O2 -std=c++17 -fmad=false -prec-div=true -prec-sqrt=true \
	-ftz=false $(QK_NVCC_GENCODE) \
	-Xcompiler -fPIC,-fvisibility=hidden \
	-I$(top_srcdir)/include -I$(top_srcdir)/kernels

all-local: kernels-cuda
install-exec-local: install-kernels-cuda
uninstall-local: uninstall-kernels-cuda
clean-local: clean-kernels-cuda

if HAVE_CUDA
kernels-cuda: kernels/libqopt-cuda.so

kernels/libqopt-cuda.so: $(QK_CUDA_OBJS)
	$(AM_V_GEN)$(NVCC) -shared $(NVCCFLAGS) -o $@ $(QK_CUDA_OBJS)

kernels/cuda-%.o: $(srcdir)/kernels/cuda-%.cu $(QK_CUDA_HDRS)
	@$(MKDIR_P) kernels
	$(AM_V_GEN)$(NVCC) $(QK_NVCCFLAGS) $(NVCCFLAGS) -c -o $@ $<

install-kernels-cuda: kernels/libqopt-cuda.so
	$(MKDIR_P) '$(DESTDIR)$(pkglibdir)'
	$(INSTALL) -m 755 kernels/libqopt-cuda.so \
		'$(DESTDIR)$(pkglibdir)/libqopt-cuda.so'
else
kernels-cuda:
install-kernels-cuda:
endif

uninstall-kernels-cuda:
	rm -f '$(DESTDIR)$(pkglibdir)/libqopt-cuda.so'
clean-kernels-cuda:
	rm -f $(QK_CUDA_OBJS) kernels/libqopt-cuda.so

.PHONY: kernels-cuda install-kernels-cuda uninstall-kernels-cuda \
	clean-kernels-cuda

# ---- benchmark: `make bench` runs bench-kernels ----
# Built on demand (a check program: `make check` compiles it too, so it
# cannot rot, but nothing runs it there).
check_PROGRAMS += bench/kernels-bench
bench_kernels_bench_SOURCES = bench/kernels-bench.c kernels/cuda-abi.h
bench_kernels_bench_LDADD = libqopt.la
bench_kernels_bench_CFLAGS = $(AM_CFLAGS) -pthread
bench_kernels_bench_CPPFLAGS = $(AM_CPPFLAGS) $(QOPT_BUILD_CPPFLAGS)
bench_kernels_bench_LDFLAGS = -pthread
EXTRA_DIST += bench/nvfp4_numpy.py

# NumPy comes from the first python3 that has it: Debian's first (a
# pyenv python3 on PATH often lacks it).
BENCH_TARGETS += bench-kernels
bench-kernels: bench/kernels-bench$(EXEEXT) kernels-cuda
	@py=; for p in /usr/bin/python3 '$(PYTHON3)' python3; do \
		if "$$p" -c 'import numpy' >/dev/null 2>&1; then \
			py=$$p; break; fi; done; \
	QOPT_BENCH_PYTHON="$$py" \
	QOPT_BENCH_NUMPY='$(srcdir)/bench/nvfp4_numpy.py' \
	./bench/kernels-bench$(EXEEXT)

# make check-cuda: on a machine with a GPU, the CUDA tests at full size,
# compute-sanitizer over them, and the suite with every kernel call on
# CUDA (build-aux/check-cuda.sh says what and why; exit 2 without CUDA).
check-cuda: all
	top_srcdir='$(top_srcdir)' MAKE='$(MAKE)' \
		$(SHELL) '$(top_srcdir)/build-aux/check-cuda.sh'
.PHONY: check-cuda
EXTRA_DIST += build-aux/check-cuda.sh
