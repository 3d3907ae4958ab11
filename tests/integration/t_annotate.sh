# ktrace annotate on recordings of hotloop, whose time is in one loop of
# hot_loop() written on one source line (`hotloop line` prints its
# number): annotate marks that line and an instruction inside the loop
# (its backward jump's range; addr2line agrees on the line) as hottest;
# a stripped copy with its debug file; a missing source file; bad input.

HOT=$TARGETS/hotloop
RT=/tmp/ktrace-it-annotate

# Checks of annotate --json's output in $1 against hot line $2 of the
# binary $3: prints "OK" or what is wrong. $4: "src" (the source text is
# there) or "nosrc" (it is not).
check_json() {
	python3 - "$@" <<'EOF'
import json, re, subprocess, sys
path, want, binary, src = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = json.load(open(path))
bad = []
if d["symbol"] != "hot_loop":
    bad.append("symbol %r" % d["symbol"])
if d["samples"] < 50:
    bad.append("only %d samples" % d["samples"])
hl = [l for l in d["lines"] if l["hottest"]]
hi = [i for i in d["instructions"] if i["hottest"]]
if len(hl) != 1 or len(hi) != 1:
    bad.append("%d hottest lines, %d hottest instructions" % (len(hl), len(hi)))
else:
    hl, hi = hl[0], hi[0]
    if hl["line"] != want or not hl["file"].endswith("hotloop.c"):
        bad.append("hottest line %s:%d, want %d" % (hl["file"], hl["line"], want))
    if hl["percent"] < 80:
        bad.append("the hot line has %.1f%%" % hl["percent"])
    # inside the loop: between a backward jump's target and the jump
    loops = []
    for i in d["instructions"]:
        m = re.match(r"(j\w+|b\.\w+|b|cb\w+|tb\w+) (?:.*, )?#?(0x[0-9a-f]+)$", i["text"])
        if m and int(m.group(2), 16) <= i["address"]:
            loops.append((int(m.group(2), 16), i["address"]))
    if not any(a <= hi["address"] <= b for a, b in loops):
        bad.append("hottest instruction 0x%x outside the loops %s" %
                   (hi["address"], [(hex(a), hex(b)) for a, b in loops]))
    # the line table read by binutils says the same
    a2l = subprocess.run(["addr2line", "-e", binary, hex(hi["address"])],
                         capture_output=True, text=True).stdout.strip()
    if not re.sub(r" \(discriminator \d+\)$", "", a2l).endswith(":%d" % want):
        bad.append("addr2line puts 0x%x at %s" % (hi["address"], a2l))
    texts = [l["source"] for l in d["lines"]]
    if src == "src" and (hl["source"] is None or "for (" not in hl["source"]):
        bad.append("no source text on the hot line: %r" % hl["source"])
    if src == "nosrc" and any(t is not None for t in texts):
        bad.append("source text without a source file")
if abs(sum(i["percent"] for i in d["instructions"]) - 100) > 0.01:
    bad.append("the shares do not sum to 100")
print("; ".join(bad) or "OK")
EOF
}

# A recording of hotloop (with -g or not) and annotate's answers.
annotate_hot() { # RECORD-FLAGS...
	local want
	want=$($HOT line)
	$KTRACE record -F 999 "$@" -o $RT.kt -- $HOT 600 >/dev/null \
		2>$RT.err || fail "record $*: $(cat $RT.err)" || return 1
	$KTRACE annotate -i $RT.kt --json hot_loop >$RT.json 2>$RT.err ||
		fail "annotate $*: $(cat $RT.err)" || return 1
	expect_eq "annotate $* --json" "$(check_json $RT.json $want $HOT src)" \
		OK || return 1
	# the text: the marks, on the same line and instruction
	$KTRACE annotate -i $RT.kt --stdio hot_loop >$RT.txt 2>$RT.err ||
		fail "annotate --stdio: $(cat $RT.err)" || return 1
	expect_eq "hottest line rows" "$(grep -c '<-- hottest line$' $RT.txt)" \
		"$(grep -c "^ *: *hotloop.c:$want " $RT.txt)" || return 1
	grep -q "^ *: *hotloop.c:$want .*for (.*<-- hottest line$" $RT.txt ||
		fail "no marked hot line: $(head -20 $RT.txt)" || return 1
	expect_eq "hottest instructions" "$(grep -c '<-- hottest$' $RT.txt)" 1 ||
		return 1
	# the samples are report --sort sym's
	$KTRACE report -i $RT.kt --sort sym >$RT.sym 2>&1
	expect_eq "samples as report's" \
		"$(awk '$3 == "hot_loop" { print $2 }' $RT.sym)" \
		"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples"] + d["outside"] + d["not_shown"])' $RT.json)"
}

t_annotate_hot_loop() {
	annotate_hot || return 1
	annotate_hot -g || return 1
}

# A stripped copy whose symbols and DWARF are in a separate file found by
# its .gnu_debuglink.
t_annotate_stripped_debuglink() {
	local d=$RT.strip want
	want=$($HOT line)
	rm -rf $d; mkdir -p $d
	cp $HOT $d/hotloop && objcopy --only-keep-debug $d/hotloop $d/hotloop.debug &&
		objcopy --strip-all $d/hotloop &&
		objcopy --add-gnu-debuglink=$d/hotloop.debug $d/hotloop ||
		fail "cannot make the stripped copy" || return 1
	! readelf -S $d/hotloop | grep -qE 'debug_line|\.symtab' ||
		fail "not stripped" || return 1
	$KTRACE record -F 999 -o $d/s.kt -- $d/hotloop 500 >/dev/null \
		2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	$KTRACE annotate -i $d/s.kt --json hot_loop >$RT.json 2>$RT.err ||
		fail "annotate: $(cat $RT.err)" || return 1
	expect_eq "stripped" "$(check_json $RT.json $want $d/hotloop.debug src)" \
		OK || return 1
	rm -rf $d
}

# The source is gone: the lines are file:line, the marks stay; a rebuilt
# binary (another build-id) is refused.
t_annotate_missing_source() {
	local d=$RT.nosrc want
	want=$($HOT line)
	rm -rf $d; mkdir -p $d
	cp tests/targets/hotloop.c $d/ &&
		(cd $d && cc -O1 -g -fno-inline -o hotloop hotloop.c) ||
		fail "cannot build the copy" || return 1
	$KTRACE record -F 999 -o $d/s.kt -- $d/hotloop 500 >/dev/null \
		2>$RT.err || fail "record: $(cat $RT.err)" || return 1
	rm $d/hotloop.c
	$KTRACE annotate -i $d/s.kt --json hot_loop >$RT.json 2>$RT.err ||
		fail "annotate: $(cat $RT.err)" || return 1
	expect_eq "no source" "$(check_json $RT.json $want $d/hotloop nosrc)" \
		OK || return 1
	$KTRACE annotate -i $d/s.kt hot_loop >$RT.txt 2>$RT.err ||
		fail "annotate: $(cat $RT.err)" || return 1
	grep -q "^ *: *hotloop.c:$want    <-- hottest line$" $RT.txt ||
		fail "no file:line row marked: $(head -20 $RT.txt)" || return 1
	expect_contains "the file named" "$(cat $RT.txt)" \
		"$d/hotloop.c (not on disk" || return 1
	cp tests/targets/hotloop.c $d/ &&
		(cd $d && cc -O2 -g -o hotloop hotloop.c) ||
		fail "cannot rebuild the copy" || return 1
	expect_status 1 $KTRACE annotate -i $d/s.kt hot_loop || return 1
	expect_contains "rebuilt binary" "$ERR" "is not the binary recorded" ||
		return 1
	rm -rf $d
}

t_annotate_bad_input() {
	$KTRACE record -F 999 -o $RT.kt -- $HOT 100 >/dev/null 2>$RT.err ||
		fail "record: $(cat $RT.err)" || return 1
	expect_status 1 $KTRACE annotate -i $RT.kt no_such_function || return 1
	expect_eq "one line" "$(printf '%s\n' "$ERR" | wc -l)" 1 || return 1
	expect_contains "unknown symbol" "$ERR" "no samples in 'no_such_function'" ||
		return 1
	[ -z "$OUT" ] || fail "output for an unknown symbol: $OUT" || return 1
	# a typo: the closest function sampled, in the same line
	expect_status 1 $KTRACE annotate -i $RT.kt hot_lop || return 1
	expect_eq "typo" "$ERR" \
		"ktrace annotate: no samples in 'hot_lop' in '$RT.kt'; did you mean 'hot_loop'?" ||
		return 1
	expect_status 2 $KTRACE annotate -i $RT.kt || return 1
	expect_contains "missing symbol" "$ERR" "which function?" || return 1
	expect_status 2 $KTRACE annotate -i $RT.kt hot_loop main || return 1
	expect_status 2 $KTRACE annotate --bogus hot_loop || return 1
	expect_status 1 $KTRACE annotate -i $RT.none hot_loop || return 1
	expect_status 1 $KTRACE --json annotate -i $RT.kt no_such_function ||
		return 1
	python3 -c 'import json,sys; json.loads(sys.argv[1])["error"]' "$OUT" ||
		fail "--json error is not JSON: $OUT" || return 1
	# the completion offers the recording's functions
	[ -r /usr/share/bash-completion/bash_completion ] || return 0
	got=$(bash -c '. /usr/share/bash-completion/bash_completion
		. completion/ktrace.bash
		COMP_WORDS=("$1" annotate -i "$2" hot_l); COMP_CWORD=4
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		_ktrace; printf "%s\n" "${COMPREPLY[@]}"' _ $KTRACE $RT.kt)
	expect_eq "completion of SYM" "$got" hot_loop
}
