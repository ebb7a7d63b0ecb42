#!/usr/bin/env python3
"""Summary of bench/shards.sh: journey counts and funnels of single vs merged sharded runs
(exact), headline percentiles (merged vs the spread of the single runs), per-shard health and
the client addresses the stack saw. Usage: shards-compare.py OUT PAIRS (Markdown on stdout)."""
import csv, glob, json, os, statistics, sys

out, pairs = sys.argv[1], int(sys.argv[2])

def single_dir(p):
    dirs = [d for d in glob.glob(f"{out}/single-{p}/*/") if os.path.exists(d + "results.json")]
    assert len(dirs) == 1, f"single-{p}: expected one run folder, found {dirs}"
    return dirs[0]

def merged_dir(p):
    return f"{out}/sharded-{p}/merged/"

def funnel(d):
    r = json.load(open(d + "results.json"))
    j = {(x["journey"], x["cohort"]): (x["started"], x["completed"], x["abandoned"], x["failed"],
                                       tuple(sorted((s["step"], s["reached"]) for s in x["steps"])),
                                       tuple(sorted((e["outcome"], e["step"], e.get("code") or "", e["count"]) for e in x["exits"])))
         for x in r["journeys"]}
    users = {k: v for k, v in r["counters"].items() if k.startswith("users_started:")}
    return j, users, r

def percentiles(d):
    return {row["metric"]: row for row in csv.DictReader(open(d + "summary.csv"))}

runs = [("single", p, single_dir(p)) for p in range(1, pairs + 1)] + [("sharded", p, merged_dir(p)) for p in range(1, pairs + 1)]
ref_j, ref_u, _ = funnel(runs[0][2])
print(f"### Journeys and funnels (reference: single run 1)\n")
print("| run | users started | journeys started / completed / abandoned / failed | identical to single 1 |")
print("|---|---|---|---|")
all_same = True
for kind, p, d in runs:
    j, u, _ = funnel(d)
    tot = [sum(v[i] for v in j.values() if True) for i in range(4)]
    same = j == ref_j and u == ref_u
    all_same &= same
    print(f"| {kind} {p} | {sum(u.values())} ({', '.join(f'{k[14:]} {v}' for k, v in sorted(u.items()))}) | "
          f"{' / '.join(map(str, tot))} | {'yes' if same else '**no**'} |")
print(f"\nEvery run's journeys (per journey × cohort: started, completed, abandoned, failed, every funnel step's count, "
      f"every exit) {'are identical' if all_same else 'are NOT all identical'}.\n")
if not all_same:
    for kind, p, d in runs:
        j, _, _ = funnel(d)
        for k in sorted(set(j) | set(ref_j)):
            if j.get(k) != ref_j.get(k):
                print(f"- {kind} {p} {k}: {j.get(k)} vs single 1 {ref_j.get(k)}")
    print()

print("### Percentiles (ms): medians over the pairs; single spread = max − min of the single runs\n")
print("| metric | stat | single runs | sharded (merged) runs | median single | median sharded | |difference| | single spread | within |")
print("|---|---|---|---|---:|---:|---:|---:|---|")
for metric in ["assessment_turnaround", "assessment_turnaround_server", "settlement", "scheduling_lag"]:
    for stat in ["p50_ms", "p90_ms", "p99_ms"]:
        s = [float(percentiles(d)[metric][stat]) for k, _, d in runs if k == "single" and metric in percentiles(d)]
        m = [float(percentiles(d)[metric][stat]) for k, _, d in runs if k == "sharded" and metric in percentiles(d)]
        if not s or not m:
            continue
        diff = abs(statistics.median(m) - statistics.median(s))
        spread = max(s) - min(s)
        f = (lambda v: f"{v:.3f}") if max(s + m) < 10 else (lambda v: f"{v:.1f}")
        print(f"| {metric} | {stat[:-3]} | {', '.join(map(f, s))} | {', '.join(map(f, m))} | "
              f"{f(statistics.median(s))} | {f(statistics.median(m))} | {f(diff)} | {f(spread)} | {'yes' if diff <= spread else 'no'} |")

print("\n### Shards (from the merged results) and the clients the stack saw\n")
for p in range(1, pairs + 1):
    _, _, r = funnel(merged_dir(p))
    line = "; ".join(f"{s['index']}/{s['count']} from {s.get('sourceAddress')}: {s['usersStarted']} users, {s['requests']} req, "
                     f"lag p99 {s['lagP99Micros'] / 1000:.1f} ms, late {s['lateByMillis']} ms"
                     + ("" if not s["behind"] else " FELL BEHIND") for s in r["meta"]["shardRuns"])
    print(f"- pair {p}: {line}")
    for kind in ["single", "sharded"]:
        f = f"{out}/clients-{kind}-{p}.txt"
        seen = sorted(l.split()[1] for l in open(f) if l.strip()) if os.path.exists(f) else []
        print(f"  - {kind} {p}: client addresses seen by the stack: {', '.join(seen) or '(none sampled)'}")
