#!/usr/bin/env python3
"""Compare an lfsim run with the HPCC authors' ns-3 simulator on the same flows.

Usage: scripts/ns3-compare.py RUN NS3DIR

RUN is an lfsim run folder (its flows.csv), NS3DIR the folder `lfsim ns3
RUN NS3DIR` wrote (nodes.txt: their node id of each lfsim node) and their
simulator's scratch/third filled (fct.txt: sip dip sport dport size
start_ns fct_ns ideal_ns a line). Each lfsim flow is matched with the
ns-3 flow of the same source, destination and size that started within
2 ns of it (their flow file has the start in seconds, which ns-3 reads as
a double). Prints a Markdown table by flow size: the number of flows, and
for p50, p95 and p99 each simulator's slowdown over its own ideal (lfsim's
flows.csv slowdown; theirs fct / ideal, at least 1, as their
analysis/fct_analysis.py takes it), their ratio, and lfsim's FCT over
their ideal (the same divisor for both). Percentiles are their
get_pctl's: the sorted element at int(n p). docs/RELIABILITY.md, "HPCC
beside its authors' simulator", has the procedure and the results.
"""
import csv
import os
import sys

BUCKETS = [(0, 100e3, "< 100 KB"), (100e3, 1e6, "100 KB - 1 MB"), (1e6, 3e6, "1 - 3 MB"),
           (3e6, float("inf"), ">= 3 MB"), (0, float("inf"), "all")]


def ns3_flows(path):
    """fct.txt's flows by (src, dst, size): [(start_ns, fct_ns, ideal_ns), ...]."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            x = line.split()
            if len(x) != 8:
                sys.exit("%s:%d: expected 8 fields (sip dip sport dport size start fct ideal), found %d" % (path, n, len(x)))
            src, dst = (int(x[0], 16) >> 8) & 0xFFFF, (int(x[1], 16) >> 8) & 0xFFFF
            out.setdefault((src, dst, int(x[4])), []).append((int(x[5]), int(x[6]), int(x[7])))
    return out


def pctl(a, p):
    a = sorted(a)
    return a[min(int(len(a) * p), len(a) - 1)]


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    run, out = argv[1], argv[2]
    ns = ns3_flows(os.path.join(out, "fct.txt"))
    index = {}
    with open(os.path.join(out, "nodes.txt")) as f:
        for line in f:
            i, name = line.split()
            index[name] = int(i)
    rows, unmatched = [], 0
    with open(os.path.join(run, "flows.csv")) as f:
        for r in csv.DictReader(f):
            if r["status"] != "success":
                continue
            src, dst = r["src"], r["dst"]
            key = (index[src], index[dst], int(r["size_bytes"]))
            start = int(r["start_ns"])
            match = [x for x in ns.get(key, []) if abs(x[0] - start) <= 2]
            if not match:
                unmatched += 1
                continue
            ns[key].remove(match[0])
            _, fct, ideal = match[0]
            rows.append((int(r["size_bytes"]), int(r["fct_ns"]), float(r["slowdown"]), fct, ideal))
    left = sum(len(v) for v in ns.values())
    print("%d flows matched; %d lfsim flows and %d ns-3 flows without a match\n" % (len(rows), unmatched, left))
    print("| sizes | flows | | lfsim | ns-3 | lfsim / ns-3 | lfsim FCT / ns-3 ideal |")
    print("|---|---|---|---|---|---|---|")
    for lo, hi, name in BUCKETS:
        b = [r for r in rows if lo <= r[0] < hi]
        if not b:
            continue
        lf = [r[2] for r in b]
        theirs = [max(r[3] / r[4], 1.0) for r in b]
        same = [max(r[1] / r[4], 1.0) for r in b]
        for p in (0.5, 0.95, 0.99):
            a, c = pctl(lf, p), pctl(theirs, p)
            print("| %s | %d | p%d | %.2f | %.2f | %.2f | %.2f |" % (name, len(b), round(p * 100), a, c, a / c, pctl(same, p)))


if __name__ == "__main__":
    main(sys.argv)
