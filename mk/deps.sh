#!/bin/sh
# mk/deps.sh - make sure the Debian packages the build and tests need are installed.
# As root, installs what is missing (apt-get update first); otherwise prints
# the exact apt-get line and fails. Called by the Makefile before building.
set -eu
PKGS="gcc g++ make pkg-config clang llvm libclang-rt-14-dev libxml2-dev libpcap-dev \
libinih-dev libbpf-dev libxdp-dev liburing-dev libsystemd-dev libxrt-dev uuid-dev \
python3 iproute2 ethtool tcpdump tcpreplay gnuplot-nox iputils-ping iputils-arping"
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >&2
else
	echo "deps: missing Debian packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
