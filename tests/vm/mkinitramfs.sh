#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the initramfs of the ktrace test VM.
#
#   tests/vm/mkinitramfs.sh KTRACE_BINARY OUTPUT.cpio.gz
#
# Contents: busybox (from busybox-static, installed when missing), /init
# (tests/vm/init.sh), the ktrace binary as /usr/bin/ktrace (static, from
# make ktrace-static; a shared one comes with its libraries, at the paths
# ldd gives, the loader at /lib64/ld-linux-x86-64.so.2), /tests/lib.sh and
# /tests/t_*.sh, the test
# target programs of build/tests/targets/ as /targets/NAME (and their
# libraries), and probes/ as /usr/share/ktrace/probes (also /probes).
# No kernel modules: the Debian kernels have all the VM needs built in;
# run.sh appends the few a test loads (/kmod/*.ko) per kernel.
#
# KTRACE_BINARY may be "-" for none (the ktrace tests then fail, they do not
# skip).
#
# KTRACE_VM_EXTRA_BINS: more programs for this initramfs only (space
# separated paths), each copied to /usr/bin/NAME with its libraries; e.g.
# bench/hist-vm.sh adds perf, bpftrace and its workload. Unset for the
# tests, whose initramfs stays small.
#
# KTRACE_VM_ARCH=arm64 builds an arm64 initramfs: busybox from Debian's
# busybox-static:arm64 (downloaded into the kernel cache), the libraries
# of the cross-built ktrace and targets (KTRACE_VM_TARGETS, default
# build/arm64/tests/targets) from /usr/lib/aarch64-linux-gnu (the arm64
# -dev packages of scripts/deps.sh vm), found through their DT_NEEDED.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

[ $# -eq 2 ] || { echo "usage: $0 KTRACE_BINARY OUTPUT.cpio.gz" >&2; exit 2; }
ktrace=$1
out=$2

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }

arch=${KTRACE_VM_ARCH:-amd64}
targets=${KTRACE_VM_TARGETS:-$top/build/tests/targets}
busybox=/bin/busybox
is_static() { file -L "$1" 2>/dev/null | grep -q 'statically linked'; }
if [ "$arch" = arm64 ]; then
	cache=${KTRACE_VM_CACHE:-$here/cache}
	busybox=$cache/busybox-arm64/bin/busybox
	if ! [ -x "$busybox" ]; then
		echo "mkinitramfs: fetching busybox-static:arm64" >&2
		dl=$(mktemp -d "$cache/.bb.XXXXXX")
		(cd "$dl" && apt-get download -q -o APT::Sandbox::User=root busybox-static:arm64 >&2) ||
			die "cannot download busybox-static:arm64 (dpkg --add-architecture arm64; apt-get update)"
		rm -rf "$cache/busybox-arm64"
		dpkg -x "$dl"/*.deb "$cache/busybox-arm64"
		rm -rf "$dl"
	fi
elif ! [ -x $busybox ] || ! is_static $busybox; then
	echo "mkinitramfs: installing busybox-static" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq busybox-static >&2 ||
		{ apt-get update -qq >&2 && apt-get install -y -qq busybox-static >&2; } ||
		die "cannot install busybox-static"
fi
is_static $busybox || die "$busybox is not statically linked (busybox-static installed?)"

stage=$(mktemp -d "${TMPDIR:-/tmp}/ktrace-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib64,proc,sys,dev,tmp,run,root,etc,tests,targets}
mkdir -p "$stage"/usr/share/ktrace/probes
cp $busybox "$stage/bin/busybox"
install -m 0755 "$here/init.sh" "$stage/init"
# The kernel opens /dev/console for init before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$stage/dev/null" c 1 3 2>/dev/null || true
echo 'root:x:0:0:root:/root:/bin/sh' > "$stage/etc/passwd"
echo 'root:x:0:' > "$stage/etc/group"

# copy_libs_arm64 ELF: the same for an arm64 ELF, by its DT_NEEDED entries
# (recursively), from the arm64 library directories; the loader too.
copy_libs_arm64() {
	local lib dir found
	aarch64-linux-gnu-readelf -d "$1" 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r lib; do
		found=
		for dir in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu; do
			[ -e "$dir/$lib" ] && { found=$dir/$lib; break; }
		done
		[ -n "$found" ] || die "$1: arm64 library $lib not found"
		[ -e "$stage$found" ] && continue
		mkdir -p "$stage$(dirname "$found")"
		cp -L "$found" "$stage$found"
		copy_libs_arm64 "$found"
	done
	if [ ! -e "$stage/lib/ld-linux-aarch64.so.1" ]; then
		mkdir -p "$stage/lib"
		cp -L /lib/ld-linux-aarch64.so.1 "$stage/lib/ld-linux-aarch64.so.1"
	fi
}

# copy_libs ELF: copy the shared libraries ELF needs, at the paths ldd gives.
copy_libs() {
	local lib
	if [ "$arch" = arm64 ]; then
		copy_libs_arm64 "$1"
		return
	fi
	file -L "$1" | grep -q 'dynamically linked' || return 0
	ldd "$1" | awk '
		/=> \// { print $3; next }   # libfoo.so.1 => /lib/.../libfoo.so.1 (0x...)
		/^[ \t]*\// { print $1 }     # /lib64/ld-linux-x86-64.so.2 (0x...)
		/not found/ { print "NOTFOUND " $1 }
	' | while read -r lib rest; do
		[ "$lib" = NOTFOUND ] && die "$1: shared library $rest not found"
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

if [ "$ktrace" != - ]; then
	[ -x "$ktrace" ] || die "$ktrace is not an executable"
	cp -L "$ktrace" "$stage/usr/bin/ktrace"
	copy_libs "$stage/usr/bin/ktrace"
fi

# The shared ktrace as /usr/bin/ktrace-shared with its libraries (x86-64,
# when built: `make ktrace`), for what the static one lacks: export's HTTP
# server (tests/vm/t_80_export.sh). KTRACE_VM_SHARED_BIN names another
# one, or "-" for none.
shared=${KTRACE_VM_SHARED_BIN:-$top/ktrace}
if [ "$arch" != arm64 ] && [ "$shared" != - ] && [ -x "$shared" ] &&
   file -L "$shared" | grep -q 'dynamically linked'; then
	cp -L "$shared" "$stage/usr/bin/ktrace-shared"
	copy_libs "$stage/usr/bin/ktrace-shared"
fi

# strace, the reference ktrace trace is held to (tests/vm/t_26_trace.sh):
# the host's for x86-64, Debian's strace:arm64 (downloaded into the kernel
# cache) for arm64.
if [ "$arch" = arm64 ]; then
	st=$cache/strace-arm64/usr/bin/strace
	if ! [ -x "$st" ]; then
		echo "mkinitramfs: fetching strace:arm64" >&2
		dl=$(mktemp -d "$cache/.st.XXXXXX")
		(cd "$dl" && apt-get download -q -o APT::Sandbox::User=root strace:arm64 >&2) ||
			die "cannot download strace:arm64 (dpkg --add-architecture arm64; apt-get update)"
		rm -rf "$cache/strace-arm64"
		dpkg -x "$dl"/*.deb "$cache/strace-arm64"
		rm -rf "$dl"
	fi
else
	st=$(command -v strace || true)
fi
if [ -n "$st" ] && [ -x "$st" ]; then
	cp -L "$st" "$stage/usr/bin/strace"
	copy_libs "$stage/usr/bin/strace"
fi

for b in ${KTRACE_VM_EXTRA_BINS:-}; do
	[ -x "$b" ] || die "KTRACE_VM_EXTRA_BINS: $b is not an executable"
	cp -L "$b" "$stage/usr/bin/$(basename "$b")"
	copy_libs "$stage/usr/bin/$(basename "$b")"
done

cp "$here/lib.sh" "$stage/tests/lib.sh"
for t in "$here"/t_*.sh "$here"/x_*.sh; do
	[ -f "$t" ] && cp "$t" "$stage/tests/"
done

# the format-grammar check of the integration tier, for this kernel's own
# formats (built beside the targets)
fmtcheck=$(dirname "$targets")/integration/fmtcheck_all
if [ -x "$fmtcheck" ]; then
	cp "$fmtcheck" "$stage/targets/"
	copy_libs "$fmtcheck"
fi
if [ -d "$targets" ]; then
	for f in "$targets"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		cp "$f" "$stage/targets/"
		copy_libs "$f"
	done
fi

if [ -d "$top/probes" ]; then
	cp -r "$top/probes/." "$stage/usr/share/ktrace/probes/"
fi
ln -s usr/share/ktrace/probes "$stage/probes"

# Strip nothing: tests may want the debug info of targets.
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	if command -v cpio >/dev/null; then
		cpio --quiet -o -H newc --owner=0:0
	else
		$busybox cpio -o -H newc
	fi) | gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB)" >&2
