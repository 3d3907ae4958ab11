# Event probes on this kernel: a kernel that refuses every event probe
# (EINVAL with no reason in error_log; the 6.18 host) is said so, for
# probe add and an inline one in record, and tracefs stays as it was; a
# kernel that takes them makes, lists and deletes one. The VM tier
# (tests/vm/t_24_eprobe.sh) records them on Debian's 6.1 and 6.12.

t_eprobe_refused_or_made() {
	local spec='e:syscalls/sys_enter_openat filename' before
	local bare="e:kt_it_ep/op syscalls.sys_enter_openat"
	if echo "$bare" >> $TFS/dynamic_events 2>/dev/null; then
		echo "-:kt_it_ep/op" >> $TFS/dynamic_events
		expect_status 0 $KTRACE probe add -g kt_it_ep "$spec" &&
		expect_status 0 $KTRACE probe list 'kt_it_ep:*' &&
		expect_contains "list" "$OUT" "eprobe" &&
		expect_status 0 $KTRACE probe del 'kt_it_ep:*'
		return
	fi
	before=$(tfs_snapshot)
	expect_status 1 $KTRACE probe add -g kt_it_ep "$spec" &&
	expect_contains "add says" "$ERR" "this kernel does not take event probes" &&
	expect_status 1 $KTRACE record -e 'syscalls:sys_enter_openat filename' -- true &&
	expect_contains "record says" "$ERR" "this kernel does not take event probes" &&
	expect_eq "tracefs unchanged" "$(tfs_snapshot)" "$before"
}
