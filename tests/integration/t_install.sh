# make install into a DESTDIR, then the installed tree used as a user would:
# the installed ktrace (probe sets found next to it, --help, its man
# pages), an out-of-tree program built with nothing but pkg-config against
# the installed libktrace (shared and static), and make uninstall.

RT=/tmp/ktrace-it-install
# the soname's number, as the Makefile sets it
SOV=$(sed -n 's/^SOVERSION := *//p' Makefile)

t_install_destdir_and_use_it() {
	local D=$RT.root src=$RT.src
	rm -rf $D $src
	# the same flags as the tree's build: nothing is rebuilt
	make -s install PREFIX=/usr DESTDIR=$D WERROR=${KT_WERROR:-0} >$RT.log 2>&1 ||
		fail "make install: $(tail -3 $RT.log)" || return 1
	for f in bin/ktrace include/ktrace.h lib/libktrace.a lib/libktrace.so \
		lib/libktrace.so.$SOV lib/pkgconfig/libktrace.pc \
		share/ktrace/probes/file-opens.probe share/man/man1/ktrace.1 \
		share/man/man1/ktrace-record.1 share/man/man1/ktrace-top.1 \
		share/man/man1/ktrace-disable.1 share/man/man3/libktrace.3 \
		share/man/man5/ktrace-probes.5 \
		share/bash-completion/completions/ktrace \
		share/zsh/vendor-completions/_ktrace; do
		[ -e $D/usr/$f ] || fail "not installed: /usr/$f" || return 1
	done
	# the file is named after the soname, then the release's minor.patch
	local rel
	rel=$($KTRACE --json version | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
	expect_eq "soname" "$(readlink $D/usr/lib/libktrace.so.$SOV)" "libktrace.so.$SOV.${rel#*.}" || return 1
	# the installed binary, run from elsewhere: its probe sets are found
	# where it landed (PREFIX was not known when it was built)
	(cd / && $D/usr/bin/ktrace probe sets) >$RT.sets 2>&1 || fail "probe sets: $(cat $RT.sets)" || return 1
	grep -qx file-opens $RT.sets || fail "installed sets: $(cat $RT.sets)" || return 1
	(cd / && $D/usr/bin/ktrace probe add --dry-run -f bash-readline) >$RT.dry 2>&1 ||
		fail "probe add -f by name: $(cat $RT.dry)" || return 1
	grep -q '^p:ktrace/readline' $RT.dry || grep -q 'readline' $RT.dry ||
		fail "dry run of the installed set: $(cat $RT.dry)" || return 1
	$D/usr/bin/ktrace --help | grep -q '^Commands:' || fail "--help" || return 1
	# man finds the pages in the tree
	MANPATH=$D/usr/share/man man -w ktrace-record >/dev/null 2>&1 || fail "man -w ktrace-record" || return 1
	MANPATH=$D/usr/share/man man ktrace-probes 2>/dev/null | grep -q 'SPEC *:=' || fail "man ktrace-probes" || return 1
	# every libktrace page, and each function's name leads to its page
	for f in man/*.3; do
		[ -f $D/usr/share/man/man3/${f#man/} ] || fail "not installed: $f" || return 1
	done
	MANPATH=$D/usr/share/man man ktrace_record_open 2>/dev/null | grep -q 'struct ktrace_record_opts {' ||
		fail "man ktrace_record_open" || return 1
	expect_eq "function pages" "$(find $D/usr/share/man/man3 -name 'ktrace_*.3' -xtype f | wc -l)" \
		"$(nm -D --defined-only build/libktrace.so.* | grep -c ' T ktrace_')" || return 1
	# zsh's file points at the bash rules where they were installed
	grep -q "source '/usr/share/bash-completion/completions/ktrace'" \
		$D/usr/share/zsh/vendor-completions/_ktrace || fail "zsh file" || return 1

	# an out-of-tree program: the installed header and pkg-config alone
	mkdir -p $src && cp examples/hello_trace.c $src/
	export PKG_CONFIG_PATH=$D/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
	flags=$(pkg-config --cflags --libs libktrace) || fail "pkg-config libktrace" || return 1
	# a shared link names libktrace alone (its DT_NEEDED bring the rest);
	# --cflags may add the dependencies' include directories
	expect_eq "pkg-config --libs" "$(pkg-config --libs libktrace | xargs)" "-L$D/usr/lib -lktrace" || return 1
	case " $flags " in *" -I$D/usr/include "*) ;; *) fail "pkg-config --cflags: $flags"; return 1 ;; esac
	(cd $src && cc -Wall -Werror -o hello hello_trace.c $flags) >$RT.cc 2>&1 ||
		fail "out-of-tree build: $(head -5 $RT.cc)" || return 1
	readelf -d $src/hello | grep -q "NEEDED.*\\[libktrace.so.$SOV\\]" || fail "not linked to libktrace.so.$SOV" || return 1
	LD_LIBRARY_PATH=$D/usr/lib $src/hello 'sched:sched_process_exec' syscalls:sys_enter_getppid 3 >$RT.out 2>&1 ||
		fail "hello_trace (shared): $(tail -3 $RT.out)" || return 1
	expect_eq "records printed" "$(grep -c 'syscalls:sys_enter_getppid:' $RT.out)" 3 || return 1
	# and all static (libc too), with nothing but what pkg-config --static
	# names (Requires.private: libktrace's dependencies and theirs)
	slibs=$(pkg-config --static --libs libktrace) || fail "pkg-config --static" || return 1
	for l in -lktrace -ltracefs -ltraceevent -ldw -lelf -lbpf -llzma -lz; do
		case " $slibs " in *" $l "*) ;; *) fail "pkg-config --static --libs lacks $l: $slibs"; return 1 ;; esac
	done
	(cd $src && cc -static -o hello_static hello_trace.c $(pkg-config --cflags libktrace) $slibs) >$RT.cc 2>&1 ||
		fail "static build: $(grep -v dlopen $RT.cc | head -5)" || return 1
	readelf -d $src/hello_static 2>&1 | grep -q NEEDED && { fail "static build needs shared libraries"; return 1; }
	$src/hello_static 'sched:sched_process_exec' syscalls:sys_enter_getppid 2 >$RT.out 2>&1 ||
		fail "hello_trace (static): $(tail -3 $RT.out)" || return 1
	expect_eq "records printed (static)" "$(grep -c 'syscalls:sys_enter_getppid:' $RT.out)" 2 || return 1
	unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

	# uninstall leaves nothing (but the directories)
	make -s uninstall PREFIX=/usr DESTDIR=$D WERROR=${KT_WERROR:-0} >$RT.log 2>&1 ||
		fail "make uninstall: $(tail -3 $RT.log)" || return 1
	expect_eq "left after uninstall" "$(find $D -type f -o -type l | head -5)" "" || return 1
	rm -rf $D $src
}
