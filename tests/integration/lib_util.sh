# lib_util.sh - the helpers both script libraries give their scripts (sourced by toed_common.sh and lib_script.sh,
# POSIX sh).
#
#   asan_fresh PLAIN ASAN    prints ASAN when it is executable and not older than PLAIN (`make test-build` made
#                            the ASan/UBSan build of the same sources: memory errors, leaks at exit and undefined
#                            behaviour then fail the test), else PLAIN
#   wait_for FILE PATTERN S  0 once grep -q PATTERN FILE, 1 after S seconds
#   wait_file FILE S         0 once FILE exists (a client's --ready file), 1 after S seconds
#   vget FILE KEY            a value of toe-verify's VERIFY line in FILE
asan_fresh() { # PLAIN ASAN
	if [ -x "$2" ] && [ ! "$2" -ot "$1" ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

wait_for() { # FILE PATTERN SECONDS
	_w=$(($3 * 20))
	while [ $_w -gt 0 ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		_w=$((_w - 1))
	done
	return 1
}

wait_file() { # FILE SECONDS
	_w=$(($2 * 20))
	while [ $_w -gt 0 ]; do
		[ -e "$1" ] && return 0
		sleep 0.05
		_w=$((_w - 1))
	done
	return 1
}

vget() { sed -n "s/^VERIFY .* $2=\([^ ]*\).*/\1/p" "$1"; }
