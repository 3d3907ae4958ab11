# bash completion for ktrace(1)                          -*- shell-script -*-
# Installed as share/bash-completion/completions/ktrace (bash-completion
# loads it on first use). Options are read from `ktrace CMD --help`, so they
# follow the binary; events from `ktrace list`, probe sets from `ktrace
# probe sets`, ktrace's own probes from `ktrace probe list`, hist's recipes
# from `ktrace hist --list-recipes`, an event's fields from `ktrace list -v
# EVENT` and a binary's function symbols from nm.

_ktrace_cmds="list enable disable filter show reset probe record trace report annotate stat hist latency ftrace export top help version"

# Options of a command (or of probe SUB) as its --help lists them.
_ktrace_opts()
{
	"$_ktrace_bin" "$@" --help 2>/dev/null |
		grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | sed 's/^[ ,]//' | sort -u
}

_ktrace_events()
{
	local cur=$1
	"$_ktrace_bin" list 2>/dev/null
	# sampling events and inline probes where the command takes them
	# (hist: inline probes only)
	if [[ ${2:-} == sampling ]]; then
		"$_ktrace_bin" stat --help 2>/dev/null |
			sed -n 's/^Counters: \(.*\) (.*/\1/p' | tr -d ',' | tr ' ' '\n' | grep .
	fi
	if [[ ${2:-} == sampling || ${2:-} == inline ]]; then
		printf '%s\n' kprobe: kretprobe: uprobe: uretprobe: eprobe: fprobe: fretprobe: tprobe:
	fi
}

# hist's recipes: the first word of each line of --list-recipes
_ktrace_recipes()
{
	"$_ktrace_bin" hist --list-recipes 2>/dev/null |
		awk '{ sub(/:$/, "", $1) } $1 ~ /^[A-Za-z0-9][A-Za-z0-9_.-]*$/ { print $1 }'
}

# hist's -k, -v and -s (OPT): the fields of the event of -e (`ktrace list
# -v`; none for an inline probe), for -k also common_pid,
# common_timestamp, stack and after FIELD. the kernel's modifiers, for -s
# also hitcount and each with -desc; the last item of a comma list is
# completed. Uses _ktrace's cur, words, cword and ci.
_ktrace_hist_fields()
{
	local opt=$1 i ev= pre= item=$cur f
	local -a cand=()
	for ((i = ci + 1; i < cword - 1; i++)); do
		[[ ${words[i]} == -e || ${words[i]} == --event ]] && ev=${words[i + 1]}
	done
	if [[ $cur == *,* ]]; then
		pre=${cur%,*}, item=${cur##*,}
	fi
	if [[ $opt == -k || $opt == --key ]] && [[ $item == *.* ]]; then
		f=${item%%.*}
		for i in sym sym-offset hex execname syscall log2 buckets= usecs; do
			cand+=("$f.$i")
		done
		_ktrace_words "$item" "${cand[@]}"
		[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace 2>/dev/null
		COMPREPLY=("${COMPREPLY[@]/#/$pre}")
		return
	fi
	if [[ -n $ev && $ev != *probe:* ]]; then
		cand=($("$_ktrace_bin" list -v "$ev" 2>/dev/null |
			awk '/^[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^size:/) print $(i - 1) }'))
	fi
	case $opt in
	-k | --key) cand+=(common_pid common_timestamp stack) ;;
	-s | --sort)
		cand+=(hitcount)
		for f in "${cand[@]}"; do
			cand+=("$f-desc")
		done ;;
	esac
	_ktrace_words "$item" "${cand[@]}"
	COMPREPLY=("${COMPREPLY[@]/#/$pre}")
}

# The value of the last of these options before the word completed (not
# after --: the command's own). Uses _ktrace's words, cword and ci.
_ktrace_arg_of() # OPTION...
{
	local i o v=
	for ((i = ci + 1; i < cword - 1; i++)); do
		[[ ${words[i]} == -- ]] && break
		for o; do
			[[ ${words[i]} == "$o" ]] && v=${words[i + 1]}
		done
	done
	printf '%s' "$v"
}

# The functions sampled in a recording (annotate's SYM): report --sort
# sym's third column.
_ktrace_rec_syms() # FILE
{
	"$_ktrace_bin" report -i "${1:-ktrace.data}" --sort sym 2>/dev/null |
		awk '!/^#/ && NF >= 3 && $3 != "[unknown]" { print $3 }'
}

# The function symbols of a binary (a path or a command), where cheap: not
# for one of 64 MiB or more.
_ktrace_syms() # BINARY
{
	local bin=$1
	[[ -n $bin && ! -f $bin ]] && bin=$(type -P "$bin")
	[[ -n $bin && -f $bin && $(stat -c %s "$bin") -lt 67108864 ]] || return
	{ nm --defined-only "$bin"; nm -D --defined-only "$bin"; } 2>/dev/null |
		awk '$2 ~ /^[TtWi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u
}

# latency's -k: the keys of the pair (pid, common_pid.execname, cpu; comm
# with --wakeup, id.syscall with --syscall all) and the fields of the end
# event (--to, or the question's) that a synthetic event can carry:
# numbers and char arrays. The last item of a comma list is completed.
# Uses _ktrace's cur, words, cword and ci.
_ktrace_latency_keys()
{
	local ev sc i pre= item=$cur
	local -a cand=(pid common_pid.execname cpu)
	ev=$(_ktrace_arg_of --to)
	sc=$(_ktrace_arg_of --syscall)
	for ((i = ci + 1; i < cword - 1; i++)); do
		[[ ${words[i]} == -- ]] && break
		[[ ${words[i]} == --wakeup ]] && { ev=sched:sched_switch; cand+=(comm); }
	done
	if [[ $sc == all ]]; then
		ev=raw_syscalls:sys_exit
		cand+=(id.syscall)
	elif [[ -n $sc ]]; then
		ev=syscalls:sys_exit_$sc
	fi
	if [[ $cur == *,* ]]; then
		pre=${cur%,*}, item=${cur##*,}
	fi
	if [[ -n $ev && $ev != *probe:* ]]; then
		cand+=($("$_ktrace_bin" list -v "$ev" 2>/dev/null |
			awk '/^[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^size:/) {
				t = $1; for (j = 2; j < i - 1; j++) t = t " " $j
				if (t !~ /__data_loc|\*/ && (t !~ /\[/ || t ~ /^char\[/))
					print $(i - 1)
			} }'))
	fi
	_ktrace_words "$item" $(printf '%s\n' "${cand[@]}" | sort -u)
	COMPREPLY=("${COMPREPLY[@]/#/$pre}")
}

_ktrace_words() # CUR WORDS...: COMPREPLY: the words that start with CUR
{
	local cur=$1 w
	shift
	COMPREPLY=()
	# not compgen -W: it would expand '$' in symbol names
	for w; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}

# ftrace's -f, -n and -g: the functions the kernel can trace
# (available_filter_functions), for the last item of a comma list
_ktrace_ffuncs()
{
	local dir=${KTRACE_TRACEFS:-/sys/kernel/tracing} pre= last=$cur
	if [[ $cur == *,* ]]; then
		pre=${cur%,*}, last=${cur##*,}
	fi
	COMPREPLY=($(awk -v p="$last" -v pre="$pre" 'index($1, p) == 1 { print pre $1 }' \
		"$dir/available_filter_functions" 2>/dev/null | sort -u | head -500))
}

# probe add's kernel functions: the traceable ones, a module's also as
# MOD:FUNC (the probe grammar's name for it)
_ktrace_kfuncs()
{
	local dir=${KTRACE_TRACEFS:-/sys/kernel/tracing}
	COMPREPLY=($(awk -v p="$cur" '{
			if (index($1, p) == 1) print $1
			if ($2 ~ /^\[.*\]$/) {
				m = substr($2, 2, length($2) - 2) ":" $1
				if (index(m, p) == 1) print m
			}
		}' "$dir/available_filter_functions" 2>/dev/null | sort -u | head -500))
}

_ktrace()
{
	local cur prev words cword
	if type _init_completion >/dev/null 2>&1; then
		_init_completion -n : || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi
	local _ktrace_bin=${words[0]} i cmd= sub= ci=0 IFS=$' \t\n'
	# the command: the first word that is not a global option
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--tracefs) ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]} ci=$i; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--json --tracefs --help --version' -- "$cur"))
		elif [[ $prev == --tracefs ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_ktrace_cmds" -- "$cur"))
		fi
		return
	fi
	if [[ $cmd == probe ]]; then
		for ((i = ci + 1; i < cword; i++)); do
			[[ ${words[i]} != -* ]] && { sub=${words[i]}; break; }
		done
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W 'add list del sets help' -- "$cur"))
			return
		fi
	fi
	# the argument of an option: hist's own, then the others
	if [[ $cmd == hist ]]; then
		case $prev in
		-r | --recipe)
			_ktrace_words "$cur" $(_ktrace_recipes)
			if [[ $cur == */* ]]; then
				COMPREPLY+=($(compgen -f -- "$cur"))
				compopt -o filenames 2>/dev/null
			fi
			return ;;
		-k | --key | -v | --value | -s | --sort)
			_ktrace_hist_fields "$prev"
			return ;;
		--size)
			return ;;
		esac
	fi
	if [[ $cmd == export ]]; then
		case $prev in
		-r | --recipe)
			_ktrace_words "$cur" $(_ktrace_recipes)
			return ;;
		--web-config)
			COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null
			return ;;
		--latency)
			return ;;
		-l | --listen)
			_ktrace_words "$cur" 127.0.0.1:19100 0.0.0.0:19100 '[::1]:19100'
			__ltrim_colon_completions "$cur" 2>/dev/null
			return ;;
		esac
	fi
	if [[ $cmd == ftrace ]]; then
		case $prev in
		-f | --filter | -n | --notrace | -g | --graph-function)
			_ktrace_ffuncs
			return ;;
		--depth | --threshold | -m | --buffer-size)
			return ;;
		esac
	fi
	if [[ $cmd == latency ]]; then
		case $prev in
		--from | --to)
			_ktrace_words "$cur" $(_ktrace_events "$cur" inline)
			__ltrim_colon_completions "$cur" 2>/dev/null
			return ;;
		-k | --key)
			_ktrace_latency_keys
			return ;;
		--syscall)
			_ktrace_words "$cur" all $("$_ktrace_bin" list 'syscalls:sys_enter_*' 2>/dev/null |
				sed -n 's/^syscalls:sys_enter_//p')
			return ;;
		-x | --exe)
			COMPREPLY=($(compgen -f -- "$cur") $(compgen -c -- "$cur")); compopt -o filenames 2>/dev/null
			return ;;
		-f | --func)
			# a user function: the symbols of -x's binary; a kernel
			# function: none offered
			_ktrace_words "$cur" $(_ktrace_syms "$(_ktrace_arg_of -x --exe)")
			return ;;
		--match | --from-filter | --to-filter | --buckets | --threshold)
			return ;;
		esac
	fi
	case $prev in
	-e | --event)
		case $cmd in
		record | stat | top | export) _ktrace_words "$cur" $(_ktrace_events "$cur" sampling) ;;
		hist) _ktrace_words "$cur" $(_ktrace_events "$cur" inline) ;;
		*) _ktrace_words "$cur" $(_ktrace_events "$cur") ;;
		esac
		__ltrim_colon_completions "$cur" 2>/dev/null
		return ;;
	-o | --output | -i | --input | --flamegraph | --perfetto | --pprof | --diff)
		COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null
		return ;;
	-x | --exec)
		COMPREPLY=($(compgen -f -- "$cur") $(compgen -c -- "$cur")); compopt -o filenames 2>/dev/null
		return ;;
	-f | --file)
		if [[ $cmd == probe ]]; then
			COMPREPLY=($("$_ktrace_bin" probe sets 2>/dev/null | grep -- "^$cur")
				   $(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
		fi
		return ;;
	-B | --instance)
		COMPREPLY=($(compgen -W "$(ls /sys/kernel/tracing/instances 2>/dev/null)" -- "$cur"))
		return ;;
	-s | --sort)
		case $cmd in
		report) COMPREPLY=($(compgen -W 'comm dso sym event comm,dso,sym' -- "$cur")) ;;
		top) COMPREPLY=($(compgen -W 'count total name' -- "$cur")) ;;
		esac
		return ;;
	--call-graph)
		COMPREPLY=($(compgen -W 'fp dwarf dwarf,8192 dwarf,16384' -- "$cur"))
		return ;;
	-p | --pid)
		COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur"))
		return ;;
	-d | --duration | -F | --freq | -c | --count | -I | --interval | -m | --mmap-pages | \
	-n | --rows | --max-events | --filter | -g | --group | -C | --cpu | --tracefs)
		[[ $prev == -g && $cmd != probe ]] || return ;;
	esac
	if [[ $cur == -* ]]; then
		if [[ -n $sub ]]; then
			_ktrace_words "$cur" $(_ktrace_opts probe "$sub")
		else
			_ktrace_words "$cur" $(_ktrace_opts "$cmd")
		fi
		return
	fi
	# positional arguments
	case $cmd in
	help) COMPREPLY=($(compgen -W "$_ktrace_cmds" -- "$cur")) ;;
	annotate) _ktrace_words "$cur" $(_ktrace_rec_syms "$(_ktrace_arg_of -i --input)") ;;
	list | enable | disable | filter)
		_ktrace_words "$cur" $(_ktrace_events "$cur")
		__ltrim_colon_completions "$cur" 2>/dev/null ;;
	probe)
		case $sub in
		del)
			_ktrace_words "$cur" $("$_ktrace_bin" probe list 2>/dev/null |
				awk '!/not ktrace/ { print $2 }')
			__ltrim_colon_completions "$cur" 2>/dev/null ;;
		add)
			# with -x BINARY: its function symbols
			local bin=
			for ((i = ci + 1; i < cword; i++)); do
				[[ ${words[i]} == -x || ${words[i]} == --exec ]] && bin=${words[i + 1]}
			done
			if [[ -n $bin ]]; then
				_ktrace_words "$cur" $(_ktrace_syms "$bin")
			else
				# without -x: kernel functions (MOD:FUNC too)
				_ktrace_kfuncs
				__ltrim_colon_completions "$cur" 2>/dev/null
			fi ;;
		esac ;;
	report)
		# --diff OLD NEW: NEW is a file too
		if ((cword >= 2)) && [[ ${words[cword - 2]} == --diff ]]; then
			COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null
		fi ;;
	record | stat | hist | latency | ftrace)
		# after --: a command
		for ((i = ci + 1; i < cword; i++)); do
			if [[ ${words[i]} == -- ]]; then
				COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
				return
			fi
		done ;;
	esac
}
complete -F _ktrace ktrace
