#!/bin/sh
# Install, with apt-get, the Debian packages a tier needs and are missing.
#
#   scripts/deps.sh [TIER...]     (no TIER: build)
#
#   build        make (ktrace, libktrace, the test targets; STATIC=1 too:
#                the -dev packages hold the .a files) and examples/demo.sh;
#                libmicrohttpd, libyaml, libcrypt (-dev): ktrace export;
#                protobuf-c (protoc-c and the library): report --pprof;
#                capstone: annotate's disassembler
#   unit         + cmocka (make check-unit)
#   static       + clang's analyzer (scan-build: clang-tools), mandoc,
#                bash-completion (check-static)
#   integration  + perf, tmux, strace, dwz, libc6-dbg, prometheus (its
#                promtool too: t_export.sh), go (go tool pprof reads report
#                --pprof: t_pprof.sh)... (check-integration, check-asan)
#   browser      + chromium (the integration test of the HTML flame graph)
#   vm           + qemu for x86-64 and arm64, busybox-static, cpio, the arm64
#                cross compiler and :arm64 -dev packages (check-vm, make arm64)
#   fuzz         + clang and its fuzzer runtime (make fuzz)
#   bench        + perf, trace-cmd, valgrind, bc, libc6-dbg, bpftrace
#                (bench/*.sh, make bench; bpftrace runs in the VM of
#                bench/hist-vm.sh only)
#   all          every tier: what `make check` and the benchmarks need
#
# Each tier installs the build tier too. KTRACE_EXTRA_PKGS adds packages.
# Used by the README's two commands and by CI (.ci/run).
set -e

# Tiers and what each needs besides the build tier, as the tests use it.
pkgs_build="build-essential pkg-config libtracefs-dev libtraceevent-dev
libdw-dev libelf-dev libbpf-dev zlib1g-dev liblzma-dev libbz2-dev
libmicrohttpd-dev libyaml-dev libcrypt-dev protobuf-c-compiler libprotobuf-c-dev
libcapstone-dev"
pkgs_unit="libcmocka-dev"
pkgs_static="clang-14 clang-tools mandoc bash-completion python3"
pkgs_integration="python3 linux-perf tmux strace dwz libc6-dbg xz-utils
procps man-db prometheus curl golang-go openssl perl"
pkgs_browser="chromium fonts-dejavu-core"
pkgs_vm="qemu-system-x86 qemu-system-arm busybox-static cpio file strace
gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
libtracefs-dev:arm64 libtraceevent-dev:arm64 libdw-dev:arm64 libelf-dev:arm64
libbpf-dev:arm64 zlib1g-dev:arm64 liblzma-dev:arm64
libbz2-dev:arm64 libprotobuf-c-dev:arm64 libcapstone-dev:arm64"
pkgs_fuzz="clang-14 libclang-rt-14-dev"
pkgs_bench="linux-perf trace-cmd valgrind bc libc6-dbg bpftrace"
all_tiers="unit static integration browser vm fuzz bench"

tiers=""
for t in "${@:-build}"; do
	[ "$t" = all ] && t=$all_tiers
	tiers="$tiers $t"
done
pkgs="$pkgs_build ${KTRACE_EXTRA_PKGS:-}"
arm64=0
for tier in $tiers; do
	case $tier in
	build) ;;
	unit) pkgs="$pkgs $pkgs_unit" ;;
	static) pkgs="$pkgs $pkgs_static" ;;
	integration) pkgs="$pkgs $pkgs_integration" ;;
	browser) pkgs="$pkgs $pkgs_browser" ;;
	vm) pkgs="$pkgs $pkgs_vm"; arm64=1 ;;
	fuzz) pkgs="$pkgs $pkgs_fuzz" ;;
	bench) pkgs="$pkgs $pkgs_bench" ;;
	*)
		echo "deps.sh: unknown tier '$tier' (build unit static integration browser vm fuzz bench all)" >&2
		exit 2 ;;
	esac
done

# The arm64 libraries (make arm64, the arm64 kernels of the VM tier).
if [ $arm64 = 1 ]; then
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
fi
missing=""
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
