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
# first (default 2000), STEP_CALLS how many to count (default 4), STEP_LINES how many source
# lines to list (default 25). Prints the instructions of each counted call (from its entry to
# its return), then where they went over all of them: by function (the one not inlined) and by
# source line (innermost inlined frame, as addr2line -i gives it).
import collections
import os
import subprocess

import gdb

fn = os.environ.get("STEP_FN", "fastx_rec_vbmi_pext")
skip = int(os.environ.get("STEP_SKIP", "2000"))
calls = int(os.environ.get("STEP_CALLS", "4"))
nlines = int(os.environ.get("STEP_LINES", "25"))

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
# addresses as offsets in the (position-independent) executable, for addr2line; read while the
# process lives (the last counted call may be the program's last)
exe = gdb.current_progspace().filename
base = None
for line in gdb.execute("info proc mappings", to_string=True).splitlines():
    f = line.split()
    if len(f) >= 5 and f[-1] == exe:
        base = int(f[0], 16)
        break
# the run stopped at the first call: let skip calls pass in all
if skip > 0:
    if skip > 1:
        gdb.execute("ignore 1 %d" % (skip - 1))
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
    if len(counts) < calls:
        gdb.execute("continue")

if gdb.selected_inferior().pid:
    gdb.execute("kill")

print("instructions a call of %s: %s" % (fn, counts))
if base is not None:
    own = collections.Counter(p - base for p in pcs if p >= base)
    addrs = list(own)
    # each address once, on standard input (a long call has too many for the command line);
    # -f: a (function, file:line) pair for each inlined level, innermost first
    out = subprocess.run(["addr2line", "-f", "-i", "-a", "-e", exe], input="\n".join(hex(a) for a in addrs),
                         capture_output=True, text=True).stdout.splitlines()
    lines, funcs, frames, k = collections.Counter(), collections.Counter(), [], -1

    def count(frames, k):
        if frames:
            lines[frames[0][1].split("/")[-1].split(" ")[0]] += own[addrs[k]]
            funcs[frames[-1][0]] += own[addrs[k]]

    for l in out:
        if l.startswith("0x"):
            count(frames, k)
            frames, k = [], k + 1
        elif not frames or frames[-1][1] is not None:
            frames.append([l, None])
        else:
            frames[-1][1] = l
    count(frames, k)
    print("busiest functions, not inlined (instructions a call):")
    for where, k in funcs.most_common(15):
        print("%9.1f %s" % (k / float(calls), where))
    print("busiest lines (instructions a call):")
    for where, k in lines.most_common(nlines):
        print("%9.1f %s" % (k / float(calls), where))
