# lib_asan.sh - which build of a program an integration script runs (sourced by toed_common.sh and lib_script.sh, POSIX sh).
#
#   asan_fresh PLAIN ASAN   prints ASAN when it is executable and not older than PLAIN (`make test-build` made
#                           the ASan/UBSan build of the same sources: memory errors, leaks at exit and undefined
#                           behaviour then fail the test), else PLAIN
asan_fresh() { # PLAIN ASAN
	if [ -x "$2" ] && [ ! "$2" -ot "$1" ]; then
		echo "$2"
	else
		echo "$1"
	fi
}
