#!/bin/sh
# Install, with apt-get, whatever Debian packages ktrace needs and are
# missing. Used by the README's two commands and by CI.
set -e
pkgs="build-essential pkg-config libtracefs-dev libtraceevent-dev libdw-dev
libelf-dev libbpf-dev zlib1g-dev liblzma-dev libbz2-dev libcmocka-dev qemu-system-x86 busybox-static cpio
python3 kmod clang-14 clang-tools-14 libclang-rt-14-dev libc6-dbg chromium fonts-dejavu-core linux-perf
libncurses-dev tmux bash-completion mandoc dwz strace
gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-system-arm
libtracefs-dev:arm64 libtraceevent-dev:arm64 libdw-dev:arm64 libelf-dev:arm64
libbpf-dev:arm64 libncurses-dev:arm64 zlib1g-dev:arm64 liblzma-dev:arm64
libbz2-dev:arm64
${KTRACE_EXTRA_PKGS:-}"
# The arm64 libraries (make arm64, the arm64 kernels of the VM tier).
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
