# SPDX-License-Identifier: GPL-2.0
# bash completion for tdctl: commands, options, event set names, running
# PIDs, files. The candidates come from `tdctl __complete WORD...`, which
# reads tdctl's own command table, so they follow every tdctl version.
# Install as /usr/share/bash-completion/completions/tdctl, or source it.
_tdctl()
{
	local line=${COMP_LINE:0:COMP_POINT} cur=${COMP_WORDS[COMP_CWORD]} c
	local -a words
	read -ra words <<<"$line"
	[[ $line =~ [[:space:]]$ || ${#words[@]} -eq 0 ]] && words+=("")
	# "--opt=" split by COMP_WORDBREAKS: the shell's word is after '='.
	[[ $cur == = ]] && cur=
	COMPREPLY=()
	while IFS= read -r c; do
		case $c in
		@files)
			compopt -o filenames 2>/dev/null
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur") ;;
		@dirs)
			compopt -o filenames 2>/dev/null
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur") ;;
		@commands)
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -c -- "$cur") ;;
		*)
			COMPREPLY+=("$c") ;;
		esac
	done < <("${words[0]}" __complete "${words[@]:1}" 2>/dev/null)
}
complete -F _tdctl tdctl
