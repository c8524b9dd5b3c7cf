#!/bin/sh
# test_client_pkgconfig.sh - a strategy author's first build, against the build tree, with pkg-config.
#
# `make` writes $BUILD/lib/pkgconfig/toeclient-uninstalled.pc; pkg-config
# prefers it to an installed toeclient.pc once that folder is on
# PKG_CONFIG_PATH. A tiny client written from the man page compiles and links
# with `pkg-config --cflags --libs toeclient` alone, runs from the build tree
# (the library is found through the rpath), and calls the library: toe_connect
# to a socket that does not exist says so (-ENOENT).
set -u
BUILD=${BUILD:-build}
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config is not installed"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler (cc)"; exit 77; }
make -s BUILD="$BUILD" "$BUILD/lib/pkgconfig/toeclient-uninstalled.pc" "$BUILD/lib/libtoeclient.so" \
	"$BUILD/lib/libtoeclient.so.1" >/dev/null 2>&1 || { echo "FAIL: make"; exit 1; }
. "$(dirname "$0")/lib_check.sh"

PKG_CONFIG_PATH=$BUILD/lib/pkgconfig
export PKG_CONFIG_PATH
check "pkg-config finds toeclient in the build tree" pkg-config --exists toeclient
flags=$(pkg-config --cflags --libs toeclient)
check "the flags name the repository's headers" sh -c "echo '$flags' | grep -q -- '-I$(pwd)/client-lib/include'"
check "the flags name the build tree's library" sh -c "echo '$flags' | grep -q -- '-L$(cd "$BUILD" && pwd)/lib'"

cat >"$W/tiny.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <toe/toeclient.h>

int main(void)
{
	struct toe_client *c = NULL;
	int r = toe_connect(&c, "/nonexistent/toed.sock", NULL);
	printf("toe_connect: %d\n", r);
	return r == -ENOENT ? 0 : 1;
}
C
# shellcheck disable=SC2086 # the flags are words
cc -std=c11 -Wall -Wextra -Werror "$W/tiny.c" $flags -o "$W/tiny" 2>"$W/cc.err"
check "a tiny client compiles and links with pkg-config --cflags --libs toeclient" [ $? -eq 0 ]
[ -s "$W/cc.err" ] && cat "$W/cc.err"
"$W/tiny" >"$W/run.out" 2>&1
check "it runs from the build tree and toe_connect says -ENOENT ($(cat "$W/run.out"))" [ $? -eq 0 ]

# make install puts libtoeclient.a beside the shared library: its objects must be plain machine code (the
# project's own programs are built with GCC's link-time optimisation, whose bytecode objects link only with
# the very compiler that wrote them), so a strategy built with another compiler links it statically too
built "$BUILD/lib/libtoeclient.a"
check "libtoeclient.a holds no LTO bytecode" sh -c "! objdump -h '$BUILD/lib/libtoeclient.a' | grep -q 'gnu[.]lto'"
if command -v clang >/dev/null 2>&1; then
	clang -std=c11 -Wall -Werror -Iclient-lib/include "$W/tiny.c" "$BUILD/lib/libtoeclient.a" -lpthread \
		-o "$W/tiny-static" 2>"$W/clang.err"
	check "clang links a client against libtoeclient.a" [ $? -eq 0 ]
	[ -s "$W/clang.err" ] && cat "$W/clang.err"
	check "the statically linked client runs (toe_connect says -ENOENT)" sh -c "'$W/tiny-static' >/dev/null"
else
	echo "note: clang is not installed: the archive was checked with objdump alone"
fi
if command -v ldd >/dev/null 2>&1; then
	check "it uses the build tree's libtoeclient.so.1" sh -c "ldd '$W/tiny' | grep -q '$(cd "$BUILD" && pwd)/lib/libtoeclient.so.1'"
fi
exit $fail
