#!/bin/sh
# Install, with apt-get, whatever Debian packages ktrace needs and are
# missing. Used by the README's two commands and by CI.
set -e
pkgs="build-essential pkg-config libtracefs-dev libtraceevent-dev libdw-dev
libelf-dev libbpf-dev libcmocka-dev qemu-system-x86 busybox-static cpio
python3 kmod clang-14 clang-tools-14 libclang-rt-14-dev libc6-dbg chromium fonts-dejavu-core linux-perf
libncurses-dev tmux bash-completion mandoc
${KTRACE_EXTRA_PKGS:-}"
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
