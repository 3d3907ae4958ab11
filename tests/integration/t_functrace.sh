# ktrace ftrace (the function tracer) on the real kernel. A kernel in
# lockdown (this host's 6.18: integrity mode) refuses the function tracer
# with EPERM, in instances too: then what is checked is the refusal, said
# as such, with nothing left behind and the top untouched. Where the kernel
# allows it, a known path, the command only (-- CMD and -p against a busy
# process), filters and a typo's "did you mean". The function_graph side
# is the VM tier's (tests/vm/t_71_ftrace_graph.sh): this host's kernel has
# no function_graph tracer.

# Does the kernel let an instance run the function tracer?
ft_allowed() {
	local i=$TFS/instances/kt_it_probe ok=1
	mkdir $i 2>/dev/null || return 1
	echo function > $i/current_tracer 2>/dev/null && ok=0
	echo nop > $i/current_tracer
	rmdir $i
	return $ok
}

# The top instance's tracer and filter files, compared before and after.
ft_top() {
	cat $TFS/current_tracer
	cat $TFS/set_ftrace_filter $TFS/set_ftrace_notrace 2>&1
	cat $TFS/set_ftrace_pid 2>&1
}

ft_left() {
	ls $TFS/instances | grep '^ktrace_'
}

ft_getppid() {
	for F in __x64_sys_getppid __arm64_sys_getppid __do_sys_getppid; do
		grep -qx "$F" $TFS/available_filter_functions && return 0
	done
	F=__x64_sys_getppid
}

t_functrace_refused_or_known_path() {
	local top0
	top0=$(ft_top)
	if ! ft_allowed; then
		expect_status 1 $KTRACE ftrace -- $TARGETS/syscaller 5 || return 1
		expect_contains why "$ERR" "Operation not permitted (a kernel in lockdown refuses the function tracers)" || return 1
		expect_status 1 $KTRACE ftrace -d 0.2 || return 1
		expect_contains refusal "$ERR" "the kernel refused the function tracer" || return 1
		expect_status 1 $KTRACE ftrace -f vfs_read -d 0.2 || return 1
		expect_contains filters "$ERR" "available_filter_functions" || return 1
		expect_eq left "$(ft_left)" "" || return 1
		expect_eq top "$(ft_top)" "$top0"
		return
	fi
	ft_getppid
	expect_status 0 $KTRACE ftrace -f $F -- $TARGETS/syscaller 40 || return 1
	expect_eq calls "$(echo "$OUT" | grep -cE "^syscaller [0-9]+ \[[0-9]+\] [0-9.]+: (__x64_sys_getppid|$F) <- ")" 40 || return 1
	expect_contains lost "$ERR" " 0 lost" || return 1
	expect_eq left "$(ft_left)" "" || return 1
	expect_eq top "$(ft_top)" "$top0"
}

t_functrace_pid_excludes_busy() {
	local busy out
	ft_allowed || { expect_status 1 $KTRACE ftrace -p $$ -d 0.2; return; }
	ft_getppid
	$TARGETS/syscaller 1 0 loop >/dev/null &
	busy=$!
	expect_status 0 $KTRACE ftrace -f $F -- $TARGETS/syscaller 20
	out=$OUT
	expect_status 0 $KTRACE ftrace -f $F -p $busy -d 0.5
	kill $busy; wait $busy
	case "$out" in *" $busy ["*) fail "busy pid in the command's trace"; return 1 ;; esac
	expect_eq others "$(echo "$OUT" | grep ': ' | grep -v "^syscaller $busy ")" ""
}

t_functrace_filters() {
	ft_allowed || { expect_status 1 $KTRACE ftrace -f 'vfs_*' -d 0.2; return; }
	expect_status 2 $KTRACE ftrace -f vfs_raed -- true || return 1
	expect_contains mean "$ERR" "did you mean vfs_read" || return 1
	expect_status 0 $KTRACE ftrace -f 'vfs_*' -n vfs_write -- dd if=/proc/version of=/dev/null bs=64 count=1 || return 1
	expect_contains read "$OUT" ": vfs_read <- " || return 1
	case "$OUT" in *": vfs_write <- "*) fail "vfs_write not excluded"; return 1 ;; esac
	expect_eq left "$(ft_left)" ""
}
