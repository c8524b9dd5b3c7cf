# step_count.py - instructions a call of one function takes, counted by single-stepping in gdb.
#
# For code callgrind cannot run (the VBMI level's AVX-512) on machines without hardware
# counters: exact and repeatable, per call and per source line. Slow (gdb steps one instruction
# at a time), so keep the input small:
#
#   BENCH_ONLY=fastx_raw_avx512vbmi BENCH_RECORDS=20000 BENCH_REPS=1 \
#       gdb -q -batch -x tests/bench/step_count.py build/bench/bench_fastx
#
# STEP_FN names the function (default fastx_rec_vbmi_pext), STEP_SKIP the calls to let pass
# first (default 2000), STEP_CALLS how many to count (default 4). Prints the instructions of each
# counted call (from its entry to its return), then the busiest source lines (innermost inlined
# frame, as addr2line -i gives it) over all of them.
import collections
import os
import subprocess

import gdb

fn = os.environ.get("STEP_FN", "fastx_rec_vbmi_pext")
skip = int(os.environ.get("STEP_SKIP", "2000"))
calls = int(os.environ.get("STEP_CALLS", "4"))

gdb.execute("set pagination off")
gdb.execute("set breakpoint pending off")
try:
    gdb.execute("break " + fn)
except gdb.error:
    # link-time optimisation renames local functions (bulk.constprop.0, ...)
    print("step_count: no function %s; its link-time names: %s" %
          (fn, gdb.execute("info functions ^%s\\." % fn, to_string=True).split("\n")[2:8]))
    gdb.execute("quit")
gdb.execute("run")
gdb.execute("ignore 1 %d" % skip)
gdb.execute("continue")

pcs, counts = [], []
for _ in range(calls):
    ret = int(gdb.parse_and_eval("*(unsigned long *)$sp"))
    n = 0
    while True:
        gdb.execute("stepi", to_string=True)
        n += 1
        pc = int(gdb.parse_and_eval("$pc"))
        if pc == ret:
            break
        pcs.append(pc)
    counts.append(n)
    gdb.execute("continue")

# addresses as offsets in the (position-independent) executable, for addr2line
exe = gdb.current_progspace().filename
base = None
for line in gdb.execute("info proc mappings", to_string=True).splitlines():
    f = line.split()
    if len(f) >= 5 and f[-1] == exe:
        base = int(f[0], 16)
        break
gdb.execute("kill")

print("instructions a call of %s: %s" % (fn, counts))
if base is not None:
    own = [p - base for p in pcs if p >= base]
    out = subprocess.run(["addr2line", "-i", "-a", "-e", exe] + [hex(p) for p in own],
                         capture_output=True, text=True).stdout.splitlines()
    lines, cur = collections.Counter(), None
    for l in out:
        if l.startswith("0x"):
            cur = None
        elif cur is None:
            cur = l.split("/")[-1].split(" ")[0]
            lines[cur] += 1
    print("busiest lines (instructions a call):")
    for where, k in lines.most_common(25):
        print("%7.1f %s" % (k / float(calls), where))
