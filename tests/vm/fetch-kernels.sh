#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch the Debian kernels the VM tier boots, and print their vmlinuz paths.
#
#   tests/vm/fetch-kernels.sh [KERNEL...]
#
# KERNEL is an alias: "6.1" (newest linux-image-6.1.0-N-amd64) or "6.12"
# (newest linux-image-6.12.X+deb12-amd64, shipped by bookworm-security /
# bookworm-backports); "arm64-6.1" and "arm64-6.12" are the same for arm64
# (the -unsigned images; `dpkg --add-architecture arm64` lets apt see
# them).  Default: $KTRACE_VM_KERNELS or "6.1 6.12".
#
# Packages are fetched with `apt-get download` and unpacked with `dpkg -x`
# into the cache ($KTRACE_VM_CACHE, default tests/vm/cache/).  A kernel that
# is already in the cache is reused without asking apt anything; set
# KTRACE_VM_REFRESH=1 to look for a newer package.  Kept: boot/, and the
# few modules the tests load (tracefs, kprobes and BTF are built in) as
# kmod/NAME.ko, decompressed, from the same package (the kernel refuses a
# module of another build): binfmt_misc for tests/vm/t_27_module.sh.  A
# cached kernel without them is downloaded again for them.
#
# Output: one line per kernel, "ALIAS VMLINUZ" with -l, else just VMLINUZ.
# Messages go to stderr.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${KTRACE_VM_CACHE:-$here/cache}
long=0
if [ "${1:-}" = "-l" ]; then long=1; shift; fi
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2086
	set -- ${KTRACE_VM_KERNELS:-6.1 6.12}
fi

log() { echo "fetch-kernels: $*" >&2; }
die() { log "error: $*"; exit 1; }

pkg_regex() {
	case $1 in
	6.1) echo '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
	arm64-6.1) echo '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$' ;;
	arm64-6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-arm64-unsigned$' ;;
	*) return 1 ;;
	esac
}

# The Debian architecture of an alias's package.
pkg_arch() {
	case $1 in
	arm64-*) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

apt_updated=0
apt_update() {
	[ $apt_updated = 1 ] && return 0
	log "running apt-get update"
	apt-get update -qq >&2 || log "apt-get update failed"
	apt_updated=1
}

# Newest package name matching the alias's pattern, or empty.
newest_pkg() {
	apt-cache search --names-only "$(pkg_regex "$1")" 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n1
}

resolve_pkg() {
	local p
	p=$(newest_pkg "$1")
	if [ -z "$p" ]; then
		apt_update
		p=$(newest_pkg "$1")
	fi
	echo "$p"
}

# Print the vmlinuz of an unpacked package directory.
vmlinuz_of() {
	local f
	for f in "$1"/boot/vmlinuz-*; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# Modules kept in the cache next to each kernel (kmod/NAME.ko).
kmods="binfmt_misc"

# The cached kernel DIR has every module of $kmods.
have_kmods() {
	local m
	for m in $kmods; do
		[ -f "$1/kmod/$m.ko" ] || return 1
	done
}

# keep_kmods TREE DIR: copy the modules of $kmods from the unpacked package
# TREE into DIR/kmod, decompressed.
keep_kmods() {
	local m f
	rm -rf "$2/kmod"
	mkdir -p "$2/kmod"
	for m in $kmods; do
		f=$(find "$1/lib/modules" -name "$m.ko*" | head -n1)
		[ -n "$f" ] || die "no module $m in the package"
		case $f in
		*.ko) cp "$f" "$2/kmod/$m.ko" ;;
		*.ko.xz) xz -dc "$f" > "$2/kmod/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" > "$2/kmod/$m.ko" ;;
		*.ko.gz) gzip -dc "$f" > "$2/kmod/$m.ko" ;;
		*) die "$f: unknown compression" ;;
		esac
	done
}

# download_deb ALIAS PKG[=VERSION] TMP: apt-get download into TMP.
download_deb() {
	local a
	a=$(pkg_arch "$1")
	(cd "$3" && apt-get download -q -o APT::Sandbox::User=root "${2%%=*}:$a${2#"${2%%=*}"}" >&2) && return 0
	# The package lists may be stale (the mirror dropped the file).
	apt_update
	(cd "$3" && apt-get download -q -o APT::Sandbox::User=root "${2%%=*}:$a${2#"${2%%=*}"}" >&2) ||
		die "apt-get download $2 failed"
}

# add_kmods ALIAS DIR: a cached kernel lacks modules of $kmods; take them
# from its own package version (PACKAGE), leaving boot/ as it is.
add_kmods() {
	local pkg ver tmp
	pkg=$(sed -n 's/^Package: //p' "$2/PACKAGE")
	ver=$(sed -n 's/^Version: //p' "$2/PACKAGE")
	log "downloading $pkg=$ver for its modules ($kmods)"
	tmp=$(mktemp -d "$cache/.dl.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	download_deb "$1" "$pkg=$ver" "$tmp"
	mkdir "$tmp/x" "$tmp/k"
	dpkg -x "$tmp"/*.deb "$tmp/x"
	keep_kmods "$tmp/x" "$tmp/k"
	rm -rf "$2/kmod"
	mv "$tmp/k/kmod" "$2/kmod"
	rm -rf "$tmp"
	trap - EXIT
}

fetch_one() {
	local alias=$1 pkg dir tmp deb vmlinuz
	pkg_regex "$alias" >/dev/null || die "unknown kernel '$alias' (known: 6.1 6.12 arm64-6.1 arm64-6.12)"

	# Reuse what the cache has, unless asked to refresh.
	if [ "${KTRACE_VM_REFRESH:-0}" != 1 ] && [ -f "$cache/$alias.pkg" ]; then
		pkg=$(cat "$cache/$alias.pkg")
		if vmlinuz=$(vmlinuz_of "$cache/$pkg"); then
			have_kmods "$cache/$pkg" || add_kmods "$alias" "$cache/$pkg"
			echo "$vmlinuz"
			return 0
		fi
	fi

	pkg=$(resolve_pkg "$alias")
	if [ -z "$pkg" ]; then
		log "no package matching $(pkg_regex "$alias") is known to apt."
		log "apt sources: $(grep -rhsE '^(Suites|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ | tr '\n' ';')"
		die "kernel $alias is not available from apt on this machine"
	fi
	dir=$cache/$pkg
	if vmlinuz=$(vmlinuz_of "$dir"); then
		have_kmods "$dir" || add_kmods "$alias" "$dir"
	else
		log "downloading $pkg ($(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}'))"
		tmp=$(mktemp -d "$cache/.dl.XXXXXX")
		# shellcheck disable=SC2064
		trap "rm -rf '$tmp'" EXIT
		download_deb "$alias" "$pkg" "$tmp"
		deb=$(ls "$tmp"/*.deb)
		mkdir "$tmp/x"
		dpkg -x "$deb" "$tmp/x"
		# Keep boot/ (vmlinuz, config, System.map) and the modules
		# of $kmods only: the others are big and not needed.
		rm -rf "$dir"
		mkdir -p "$dir"
		mv "$tmp/x/boot" "$dir/boot"
		keep_kmods "$tmp/x" "$dir"
		dpkg-deb -f "$deb" Package Version > "$dir/PACKAGE"
		rm -rf "$tmp"
		trap - EXIT
		vmlinuz=$(vmlinuz_of "$dir") || die "$pkg has no boot/vmlinuz-*"
		log "unpacked $pkg -> $dir"
	fi
	echo "$pkg" > "$cache/$alias.pkg"
	echo "$vmlinuz"
}

mkdir -p "$cache"
# One fetcher at a time per cache (parallel runs, make -j).
exec 9>"$cache/.lock"
flock 9

for k in "$@"; do
	v=$(fetch_one "$k")
	if [ $long = 1 ]; then echo "$k $v"; else echo "$v"; fi
done
