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
if command -v ldd >/dev/null 2>&1; then
	check "it uses the build tree's libtoeclient.so.1" sh -c "ldd '$W/tiny' | grep -q '$(cd "$BUILD" && pwd)/lib/libtoeclient.so.1'"
fi
exit $fail
