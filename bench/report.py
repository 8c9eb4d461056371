#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/report.py: bench/results.jsonl -> bench/RESULTS.md (and the data of bench/chart.svg).

Called by bench/run; standard library only. The tables hold the medians every peer printed;
the targets of issue 4 are checked on ratios taken within the same run.
"""
import argparse
import json
import os
import sys
from collections import OrderedDict

SHAPES = ["skeletons", "random", "chains"]
FRAMES = ["animate", "static", "move_roots", "leaf", "read_all", "build"]
UNITS = {"animate": "ns/node", "static": "us/frame", "move_roots": "ns/changed node", "leaf": "us/frame",
         "read_all": "ns/node", "build": "ns/node", "memory": "B/node"}


def label(r):
    return r["peer"] + (" " + r["variant"] if r.get("variant") else "")


def peer_rank(name):
    order = [("arbor", 0), ("C loop cglm", 1), ("C loop plain", 2), ("three.js", 3), ("Babylon.js", 4),
             ("memory bound", 5)]
    for prefix, rank in order:
        if name.startswith(prefix):
            return (rank, "bulk" in name, "pose" in name, name)
    return (9, False, False, name)


def fmt(v):
    if v is None:
        return "–"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--profiles")
    ap.add_argument("--analysis", help="a hand-written ANALYSIS.md to point to, if it exists")
    ap.add_argument("--out", required=True)
    ap.add_argument("--chart-data", required=True)
    args = ap.parse_args()

    rows = []
    with open(args.results) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    print(f"report.py: skipping a bad line: {line[:80]}", file=sys.stderr)
    meta, notes = {}, []
    with open(args.meta) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            if k == "note":
                notes.append(v)
            else:
                meta[k] = v

    fig = {}  # (label, shape, metric) -> record
    for r in rows:
        fig[(label(r), r["shape"], r["metric"])] = r
    peers = sorted({label(r) for r in rows}, key=peer_rank)
    arbor = [p for p in peers if p.startswith("arbor ")]
    arbor_base = ""
    for p in arbor:  # "arbor 0.1.0 float" of "arbor 0.1.0 float t1"
        arbor_base = p.rsplit(" t", 1)[0] if " t" in p else p
        break

    def val(peer, shape, metric):
        r = fig.get((peer, shape, metric))
        return r["value"] if r else None

    out = []
    w = out.append
    quick = meta.get("mode") == "quick"
    w("# arbor benchmark results")
    w("")
    w("Written by `bench/run" + (" --quick" if quick else "") + "` from the JSON lines in `results.jsonl` beside "
      "this file; do not edit by hand (rerun it; explanations go in `bench/ANALYSIS.md`). "
      "Workloads: `../shared/bench/WORKLOADS.md`; what each peer is: `bench/README.md`.")
    w("")
    if quick:
        w("**Quick run:** about 100,000 nodes per shape and 11 timed frames, a smoke test. The targets are for the "
          "full sizes (a million nodes): the verdicts below are indicative only.")
        w("")
    w("## Machine and software")
    w("")
    w(f"- Date: {meta.get('date', '?')}; run took {int(meta.get('seconds', '0')) // 60} min "
      f"{int(meta.get('seconds', '0')) % 60} s ({meta.get('mode', '?')} run)")
    w(f"- {meta.get('machine', 'CPU: ?')}")
    w(f"- Load average (1, 5, 15 min) before the run: {meta.get('load_before', '?')}; after: "
      f"{meta.get('load_after', '?')}")
    w(f"- Compiler: {meta.get('cc', '?')}; every C program: `{meta.get('cflags', '?')}` (no -march: the SSE2 "
      f"baseline; arbor may choose wider SIMD at run time)")
    w(f"- arbor: {arbor_base or '?'} at commit {meta.get('commit', '?')}, {meta.get('arbor_flags', '?')}; "
      f"driven by `{meta.get('arbor_cmd', '?')}`")
    three = next((p for p in peers if p.startswith("three.js")), None)
    babylon = next((p for p in peers if p.startswith("Babylon.js")), None)
    w(f"- cglm (Debian libcglm-dev): {meta.get('cglm') or 'not installed'}; three.js: "
      f"{three.split(' ', 1)[1] if three else 'not run'}; Babylon.js (@babylonjs/core): "
      f"{babylon.split(' ', 1)[1] if babylon else 'not run'}; Node.js {meta.get('node', '?')}")
    w(f"- Chart: {meta.get('gnuplot', 'gnuplot missing')}")
    w("")
    if notes:
        w("Notes of this run:")
        w("")
        for n in notes:
            w(f"- {n}")
        w("")

    # ---- Tables of medians ------------------------------------------------------------------
    w("## Medians")
    w("")
    w("Median over the timed frames (after 2 warm-up frames). `move_roots` is per node whose world matrix "
      "changed; `static` and `leaf` are per frame. `memory` (skeletons only) is the peak resident set of a "
      "process that builds the scene and updates once, over the node count. The C loops and three.js "
      "recompute every node every frame (no dirty tracking), so their `static`, `move_roots` and `leaf` cost a "
      "full update. The memory bound is what streaming the bytes costs (`animate`: 44 in, 48 out per node, the "
      "fastest of ordinary stores, non-temporal stores and non-temporal stores with prefetch; `read_all`: "
      "48 in).")
    w("")
    for shape in SHAPES:
        present = [p for p in peers if any((p, shape, m) in fig for m in FRAMES + ["memory"])]
        if not present:
            continue
        nodes = next((r["nodes"] for (p, s, m), r in fig.items() if s == shape), 0)
        w(f"### {shape} ({nodes:,} nodes)")
        w("")
        cols = FRAMES + (["memory"] if shape == "skeletons" else [])
        w("| peer | " + " | ".join(f"{m} ({UNITS[m]})" for m in cols) + " | frames |")
        w("|---|" + "---:|" * len(cols) + "---:|")
        for p in present:
            frames = sorted({str(fig[(p, shape, m)]["frames"]) for m in FRAMES if (p, shape, m) in fig})
            w(f"| {p} | " + " | ".join(fmt(val(p, shape, m)) for m in cols) + f" | {'/'.join(frames)} |")
        w("")

    # ---- Targets ----------------------------------------------------------------------------
    w("## Targets (issue 4)")
    w("")
    w("Ratios of medians from this run. \"met\" or \"missed by N×\" (how far the figure is from the target).")
    w("")
    w("| target | shape | figure | value | target | verdict |")
    w("|---|---|---|---:|---:|---|")
    t1 = f"{arbor_base} t1"
    t2 = f"{arbor_base} t2"
    b1, b2 = t1 + " bulk", t2 + " bulk"
    cglm = next((p for p in peers if p.startswith("C loop cglm")), None)
    plain = next((p for p in peers if p.startswith("C loop plain")), None)
    mb1 = "memory bound t1"
    summary = {"met": 0, "missed": 0}

    def ratio(a, b):
        return a / b if a is not None and b not in (None, 0) else None

    def target(name, shape, what, value, goal, at_most=True):
        if value is None:
            w(f"| {name} | {shape} | {what} | – | {'≤' if at_most else '≥'} {fmt(goal)} | not measured |")
            return
        ok = value <= goal if at_most else value >= goal
        summary["met" if ok else "missed"] += 1
        verdict = "met" if ok else f"**missed by {(value / goal if at_most else goal / value):.2f}×**"
        w(f"| {name} | {shape} | {what} | {fmt(value)} | {'≤' if at_most else '≥'} {fmt(goal)} | {verdict} |")

    for shape in SHAPES:
        for a, tag in ((t1, "per-node setter"), (b1, "bulk")):
            target("animate ≤ 3× the memory bound", shape, f"{tag}: arbor t1 / memory bound t1",
                   ratio(val(a, shape, "animate"), val(mb1, shape, "animate")), 3)
    for shape in SHAPES:
        for loop in (cglm, plain):
            if not loop:
                continue
            for a, tag in ((t1, "per-node setter"), (b1, "bulk")):
                target("animate ≥ 4× faster than the C loop", shape, f"{tag}: {loop} / arbor t1",
                       ratio(val(loop, shape, "animate"), val(a, shape, "animate")), 4, at_most=False)
    for shape in SHAPES:
        for a in (t1, t2):
            target("static ≤ 1 µs per frame", shape, f"arbor {a.rsplit(' ', 1)[1]} (µs/frame)",
                   val(a, shape, "static"), 1)
    for shape in SHAPES:
        for a in (t1, t2):
            target("move_roots ≤ 1.5× animate per node", shape,
                   f"arbor {a.rsplit(' ', 1)[1]}: move_roots per changed node / animate per node",
                   ratio(val(a, shape, "move_roots"), val(a, shape, "animate")), 1.5)
    for shape in SHAPES:
        for a in (t1, t2):
            target("leaf ≤ 2 µs per frame", shape, f"arbor {a.rsplit(' ', 1)[1]} (µs/frame)", val(a, shape, "leaf"), 2)
    for shape in SHAPES:
        target("read_all ≤ " + ("4" if shape == "random" else "2") + "× the read bound", shape,
               "arbor t1 / memory bound t1 (read 48 B/node)",
               ratio(val(t1, shape, "read_all"), val(mb1, shape, "read_all")), 4 if shape == "random" else 2)
    for shape in SHAPES:
        goal = 1.6 if shape == "skeletons" else 1.4
        for a1, a2, tag in ((t1, t2, "per-node setter"), (b1, b2, "bulk")):
            target(f"two threads ≥ {goal}× one thread (animate)", shape, f"{tag}: arbor t1 / arbor t2",
                   ratio(val(a1, shape, "animate"), val(a2, shape, "animate")), goal, at_most=False)
    target("memory ≤ 200 B/node (float build)", "skeletons", "arbor t1 peak RSS / nodes (B/node)",
           val(t1, "skeletons", "memory"), 200)
    for shape in SHAPES:
        for a in (t1, t2):
            target("build ≤ 60 ns/node", shape, f"arbor {a.rsplit(' ', 1)[1]} (ns/node)", val(a, shape, "build"), 60)
    w("")
    w(f"{summary['met']} met, {summary['missed']} missed.")
    w("")

    # ---- Targets of issue 14: the pose path, the setters against the C loop, scaling --------
    p1, p2 = t1 + " pose", t2 + " pose"
    mbt2 = "memory bound t2"
    summary = {"met": 0, "missed": 0}
    w("## Targets (issue 14)")
    w("")
    w("| target | shape | figure | value | target | verdict |")
    w("|---|---|---|---:|---:|---|")
    for shape in SHAPES:
        target("animate via the pose path ≤ 3× the memory bound", shape, "pose: arbor t1 / memory bound t1",
               ratio(val(p1, shape, "animate"), val(mb1, shape, "animate")), 3)
    for shape in SHAPES:
        if plain:
            target("plain 3x4 C loop ≥ 2× the pose path", shape, f"{plain} / arbor t1 pose",
                   ratio(val(plain, shape, "animate"), val(p1, shape, "animate")), 2, at_most=False)
    for shape in SHAPES:
        if plain:
            target("per-node setters ≤ 1.0× the C loop", shape, f"arbor t1 / {plain}",
                   ratio(val(t1, shape, "animate"), val(plain, shape, "animate")), 1)
    for shape in SHAPES:
        gain = ratio(val(mb1, shape, "animate"), val(mbt2, shape, "animate"))
        target("two threads, pose path ≥ 0.85× the memory bound's gain", shape,
               "(arbor t1 pose / arbor t2 pose) / (memory bound t1 / memory bound t2)",
               ratio(ratio(val(p1, shape, "animate"), val(p2, shape, "animate")), gain), 0.85, at_most=False)
    target("peak bytes a node ≤ 160 (skeletons)", "skeletons", "arbor t1 peak RSS / nodes (B/node)",
           val(t1, "skeletons", "memory"), 160)
    w("")
    w(f"{summary['met']} met, {summary['missed']} missed.")
    w("")
    mbt2 = "memory bound t2"
    scal = [f"{s}: {fmt(ratio(val(mb1, s, 'animate'), val(mbt2, s, 'animate')))}×" for s in SHAPES
            if val(mb1, s, "animate") is not None]
    if scal:
        w("The memory bound itself: " + ", ".join(scal) + " faster on two threads than on one in this run.")
        w("")

    # ---- Same work --------------------------------------------------------------------------
    w("## Same work: checksums")
    w("")
    w("Each peer prints the sum of |x| + |y| + |z| of every world translation after its build and first "
      "update; it must agree with arbor's to 1e-3 (relative) for the comparison to be of the same work.")
    w("")
    w("| shape | peer | checksum | relative difference to arbor t1 | |")
    w("|---|---|---:|---:|---|")
    bad = 0
    for shape in SHAPES:
        ref = next((r["checksum"] for (p, s, m), r in fig.items() if p == t1 and s == shape and "checksum" in r), None)
        seen = OrderedDict()
        for (p, s, m), r in sorted(fig.items(), key=lambda kv: peer_rank(kv[0][0])):
            if s == shape and "checksum" in r:
                seen.setdefault(p, r["checksum"])
        for p, c in seen.items():
            if ref:
                d = abs(c - ref) / abs(ref)
                ok = d <= 1e-3
                bad += not ok
                w(f"| {shape} | {p} | {c:.9g} | {d:.1e} | {'ok' if ok else '**MISMATCH**'} |")
            else:
                w(f"| {shape} | {p} | {c:.9g} | – | no arbor t1 figure |")
    w("")
    if bad:
        w(f"**{bad} checksum(s) disagree: those peers did not do the same work.**")
        w("")

    # ---- Profiles ---------------------------------------------------------------------------
    if args.profiles and os.path.isdir(args.profiles):
        profs = [(s, os.path.join(args.profiles, s + ".txt")) for s in SHAPES]
        profs = [(s, p) for s, p in profs if os.path.isfile(p) and os.path.getsize(p) > 0]
        if profs:
            w("## Where arbor's time goes (animate, one thread)")
            w("")
            w("`perf record` (cpu-clock sampling) of `arbor bench --frame animate --frames 61` per shape; the "
              "process also generates the workload and builds the scene once, so `wl_*` and creation "
              "functions appear beside the frame's own. Symbols above 1.5 %:")
            w("")
            for s, p in profs:
                w(f"{s}:")
                w("")
                w("```")
                with open(p) as f:
                    w(f.read().rstrip())
                w("```")
                w("")

    if args.analysis and os.path.isfile(args.analysis):
        w("Explanations of the figures, with the run each explains: `bench/ANALYSIS.md`.")
        w("")

    w("## Chart")
    w("")
    w("![animate, ns per node, per shape and peer](chart.svg)")
    w("")
    w("`chart.svg`: `animate` in ns per node (log scale) for each shape and peer; the memory bounds are the "
      "floor.")
    w("")
    with open(args.out, "w") as f:
        f.write("\n".join(out))

    # ---- Chart data: one row per shape, one column per peer (animate) ----------------------
    cpeers = [p for p in peers if any((p, s, "animate") in fig for s in SHAPES)]
    with open(args.chart_data, "w") as f:
        f.write("shape\t" + "\t".join('"' + p + '"' for p in cpeers) + "\n")
        for s in SHAPES:
            vals = [val(p, s, "animate") for p in cpeers]
            f.write(s + "\t" + "\t".join("?" if v is None else f"{v:.6g}" for v in vals) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
