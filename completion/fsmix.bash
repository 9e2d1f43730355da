# fsmix(1) bash completion: subcommands, options (and the words of --format, --model and
# --fidelity), profile files (*.ffsb, and the installed
# profiles), result files (*.json), and for --set / --sweep the profile keys as SECTION.KEY=.
#
# Nothing fsmix-specific is copied here: subcommands and options come from `fsmix --help`, keys
# and their sections from `fsmix keys` of the fsmix being completed, so a new key or option
# completes without editing this file. Installed as <prefix>/share/bash-completion/completions/
# fsmix, which bash-completion loads on first use; without bash-completion, source this file.

# _fsmix_bin: path of the fsmix being completed (the command word, else fsmix from PATH).
_fsmix_bin() {
	local b=${COMP_WORDS[0]}
	[[ $b == "~/"* ]] && b=$HOME/${b#"~/"}
	if [[ $b != */* ]]; then
		b=$(type -P "$b") || b=$(type -P fsmix) || return 1
	fi
	[[ -x $b && ! -d $b ]] && printf '%s\n' "$b"
}

# _fsmix_keys BIN: "SECTION KEY" lines, SECTION one of global filesystem threadgroup stats.
_fsmix_keys() {
	"$1" keys 2>/dev/null | awk '
		/^the top level:$/ { sec = "global"; next }
		/^\[[a-z]+N?\]:$/ { sec = $0; gsub(/[\[\]:]/, "", sec); sub(/N$/, "", sec); next }
		/^  [a-z]/ && sec != "" { print sec, $1 }'
}

# _fsmix_valued BIN: the options that take a value, one a line (-t, --time, --durability-log,
# ...), from `fsmix --help`: an option followed by one space and its value's name.
_fsmix_valued() {
	"$1" --help 2>/dev/null | sed -nE 's/^ +(-([a-zA-Z]), )?(--[a-z-]+) [^ ].*/-\2\n\3/p' | grep -v '^-$'
}

# _fsmix_set_words BIN CUR PROFILE: candidates for the value of --set or --sweep. Without a dot:
# the top-level keys (a bare key is the top level) and the sections filesystemN. / threadgroupN.
# (N from the profile's sections, else 0); after SECTION.: that section's keys, each with '='.
_fsmix_set_words() {
	local bin=$1 cur=$2 profile=$3 sec key prefix n
	local -a fs=(0) tg=(0) words=()
	if [[ -n $profile && -r $profile && -f $profile ]]; then
		mapfile -t n < <(sed -nE 's/^[[:space:]]*\[filesystem([0-9]+)\].*/\1/p' "$profile" | sort -un)
		((${#n[@]})) && fs=("${n[@]}")
		mapfile -t n < <(sed -nE 's/^[[:space:]]*\[threadgroup([0-9]+)\].*/\1/p' "$profile" | sort -un)
		((${#n[@]})) && tg=("${n[@]}")
	fi
	if [[ $cur != *.* ]]; then
		for n in "${fs[@]}"; do words+=("filesystem$n."); done
		for n in "${tg[@]}"; do words+=("threadgroup$n."); done
		while read -r sec key; do
			[[ $sec == global ]] && words+=("$key=")
		done < <(_fsmix_keys "$bin")
		printf '%s\n' "${words[@]}"
		return
	fi
	prefix=${cur%.*}.
	# Which keys a section takes (src/profile/overrides.c): [stats] keys given for a thread group go to
	# its [stats]; filesystemN.threadgroup is the aging group inside [filesystemN].
	local -a want=()
	case $prefix in
	global.) want=(global) ;;
	filesystem[0-9]*.threadgroup.stats. | threadgroup[0-9]*.stats.) want=(stats) ;;
	filesystem[0-9]*.threadgroup. | threadgroup[0-9]*.) want=(threadgroup stats) ;;
	filesystem[0-9]*.)
		want=(filesystem)
		words+=("${prefix}threadgroup.")
		;;
	*) return ;;
	esac
	while read -r sec key; do
		[[ " ${want[*]} " == *" $sec "* ]] && words+=("$prefix$key=")
	done < <(_fsmix_keys "$bin")
	printf '%s\n' "${words[@]}"
}

# _fsmix_files CUR GLOB: directories and files matching GLOB (e.g. '*.ffsb') below CUR.
_fsmix_files() {
	compgen -d -- "$1"
	compgen -f -X "!$2" -- "$1"
}

_fsmix() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' bin cmd='' profile='' w i valued
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	bin=$(_fsmix_bin) || return 0

	# readline splits --set=X and KEY=VALUE at '=' (COMP_WORDBREAKS): '--set' '=' 'X'.
	if [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
		[[ $prev == --* ]] || prev=
	fi
	# The subcommand and the profile (first non-option word after run/check/clean/verify/
	# crashtest): a word that is an option's value (--durability-log FILE, ...) is not the
	# profile.
	valued=" $(_fsmix_valued "$bin" | tr '\n' ' ') = "
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $cmd && $w != -* ]]; then
			cmd=$w
		elif [[ -z $profile && $w != -* && $w != "=" && -f $w ]]; then
			if [[ $valued == *" ${COMP_WORDS[i - 1]} "* ]]; then
				# check --json prints the profile as JSON: it takes no value there
				[[ ${COMP_WORDS[i - 1]} == --json && $cmd == check ]] && profile=$w
			else
				profile=$w
			fi
		fi
	done
	[[ -n $cmd && $cmd == *.ffsb && -z $profile ]] && profile=$cmd # fsmix PROFILE (FFSB style)

	case $prev in
	-s | --set | --sweep)
		compopt -o nospace 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -W "$(_fsmix_set_words "$bin" "$cur" "$profile")" -- "$cur")
		return 0
		;;
	-l | --location)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return 0
		;;
	--format)
		mapfile -t COMPREPLY < <(compgen -W "text ffsb" -- "$cur")
		return 0
		;;
	--model)
		mapfile -t COMPREPLY < <(compgen -W "linux posix" -- "$cur")
		return 0
		;;
	--fidelity)
		mapfile -t COMPREPLY < <(compgen -W "exact ffsb6" -- "$cur")
		return 0
		;;
	--fs)
		mapfile -t COMPREPLY < <(compgen -W "ext4 xfs btrfs" -- "$cur")
		return 0
		;;
	--disk-fault)
		mapfile -t COMPREPLY < <(compgen -W "ignore-flush reorder-across-flush" -- "$cur")
		return 0
		;;
	--image | --run-dir)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
		;;
	--csv | --json | --plot | -o | --output | --lat-log | --durability-log)
		[[ $prev == --json && $cmd == check ]] || {
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return 0
		}
		;;
	-t | --time | -n | --threads | --seed | --interval | --repeat | --build-threads | --ramp | \
		--crash-after)
		return 0 # a number: nothing to offer
		;;
	esac

	if [[ $cur == -* ]]; then
		local opts
		opts=$("$bin" --help 2>/dev/null | grep -oE -- '(^|[ ,[(])--?[a-zA-Z][a-zA-Z-]*' |
			sed 's/^[ ,[(]//' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return 0
	fi
	if [[ -z $cmd ]]; then
		local cmds
		cmds=$("$bin" --help 2>/dev/null | sed -nE 's/^(usage:)? +fsmix ([a-z]+) .*/\2/p' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$cmds" -- "$cur")
		compopt -o filenames 2>/dev/null
		mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(_fsmix_files "$cur" '*.ffsb')
		return 0
	fi
	compopt -o filenames 2>/dev/null
	case $cmd in
	run | check | clean | verify | crashtest)
		[[ -n $profile ]] && return 0
		mapfile -t COMPREPLY < <(_fsmix_files "$cur" '*.ffsb')
		# The installed profiles (<prefix>/share/fsmix/profiles) by their name: 'ext4<TAB>'
		# becomes /usr/share/fsmix/profiles/ext4-barrier-2010.ffsb.
		local shipped
		[[ $cur != */* ]] &&
			shipped=$(cd "$(dirname "$bin")/../share/fsmix/profiles" 2>/dev/null && pwd) &&
			mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -G "$shipped/$cur*.ffsb")
		;;
	compare | plot)
		mapfile -t COMPREPLY < <(_fsmix_files "$cur" '*.json')
		;;
	keys)
		mapfile -t COMPREPLY < <(compgen -W "$(_fsmix_keys "$bin" | cut -d' ' -f2)" -- "$cur")
		;;
	esac
	return 0
}
complete -F _fsmix fsmix
