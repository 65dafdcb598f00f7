# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for tracectl (installed to
# share/bash-completion/completions/tracectl). The lists below are checked
# against `tracectl --help` and the man page by tests/host/62-docs-sync.sh,
# _tracectl_modes against the mode table by tests/host/77-completion-modes.sh.

_tracectl_global="--json --socket --timeout --help --version"
_tracectl_commands="status attach list stats top detach bench reload sites functions flame dump"
_tracectl_opts_status=""
_tracectl_opts_attach="--mode --latency --errors --by --stacks --pid --comm --record --slower-than --args --if --partial --dry-run"
_tracectl_opts_list=""
_tracectl_opts_stats="--merge --hist --bpf --top --all --interval --count --stacks --format --output"
_tracectl_opts_top="--interval --count --limit"
_tracectl_opts_detach="--all"
_tracectl_opts_reload=""
_tracectl_opts_functions="--limit"
_tracectl_opts_flame="--output --top --merge"
_tracectl_opts_sites="--symbols --summary --live --limit --json"
_tracectl_opts_dump="--json --format --follow --target --pid"
_tracectl_dump_formats="text json chrome csv"
_tracectl_stats_formats="text folded pprof"
_tracectl_opts_bench="--repetitions --warmup --output --svg --ci --help --calls --producers --modes --variants --relevant --irrelevant --grid --funcs --all --kernel-funcs --kernel-mode --with-hot --writes --function --groups --senders --loops --force --html --peers --rounds --duration --target --name --args"
_tracectl_modes="auto fentry kprobe kprobe-int3 kprobe-multi tp-btf kmod-callops kmod-direct kmod-kprobe kprobe-session fsession fentry-multi"

_tracectl()
{
	local cur prev cmd i opts
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--socket|-s|--timeout|-T) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	case $prev in
	--socket|-s)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--mode)
		COMPREPLY=($(compgen -W "$_tracectl_modes" -- "$cur")); return ;;
	--symbols)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--format|-f)
		if [ "$cmd" = stats ]; then
			COMPREPLY=($(compgen -W "$_tracectl_stats_formats" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_tracectl_dump_formats" -- "$cur"))
		fi
		return ;;
	--output|-o)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--pid|--comm|--record|--slower-than|--if|--target|--timeout|-T)
		return ;;
	esac

	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$_tracectl_global $_tracectl_commands" -- "$cur"))
		return
	fi
	opts=_tracectl_opts_${cmd}
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${!opts} --help" -- "$cur"))
	elif [ "$cmd" = dump ] || [ "$cmd" = sites ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _tracectl tracectl
