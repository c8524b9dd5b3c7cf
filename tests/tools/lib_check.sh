# lib_check.sh - the head of the tools' test scripts (sourced, POSIX sh): a work folder W removed at exit, and
#   check DESCRIPTION COMMAND...   runs COMMAND: prints "ok   DESCRIPTION", or "FAIL DESCRIPTION" and sets fail=1
# A script ends with [ $fail -eq 0 ].
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
check() { # description, condition...
	d=$1; shift
	if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}
