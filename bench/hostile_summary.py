#!/usr/bin/env python3
"""bench/hostile.sh's table: each run's bars and numbers, the medians, and the kinds seen.

    hostile_summary.py FRACTION SEED MACHINE RUN_DIR…      (exit 1 when a run misses a bar)
"""
import datetime
import glob
import json
import re
import statistics
import sys

USERS = 200
# What the client counts each mangling as (the legal ones: a success).
EXPECT = {"garbage_json": "bad_json", "bad_utf8": "bad_utf8", "truncated": "truncated", "reset": "reset",
          "slow_drip": "timeout", "stall": "timeout", "huge_body": "body_too_large",
          "huge_header": "header_too_large", "no_status_line": "protocol_error", "cl_short": "bad_json",
          "cl_long": "truncated", "redirect_loop": "unexpected_status", "fake_gzip": "protocol_error",
          "http10_close": None, "early_100": None, "dup_cl": "protocol_error"}


def read_run(d):
    proxy = json.load(open(f"{d}/proxy.json"))
    paths = glob.glob(f"{d}/reports/*/results.json")
    res = json.load(open(paths[0])) if paths else {}
    t = open(f"{d}/time.txt").read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time.*: (.*)", t).group(1)
    m, sec = wall.split(":")[-2:]
    wall_s = int(m) * 60 + float(sec)
    codes = {}
    for e in res.get("endpoints", []):
        for k, v in e.get("errorCodes", {}).items():
            codes[k] = codes.get(k, 0) + v
    quest = [j for j in res.get("journeys", []) if j["journey"] != "warmup"]
    warm = [j for j in res.get("journeys", []) if j["journey"] == "warmup"]
    completed = sum(j["completed"] for j in quest)
    run = {
        "dir": d, "exit": open(f"{d}/exit.txt").read().strip(), "load": open(f"{d}/load.txt").read().strip(),
        "rss": rss, "wall": wall_s, "completed": completed, "pct": 100.0 * completed / USERS,
        "warm": f"{sum(j['completed'] for j in warm)}/{sum(j['started'] for j in warm)}",
        "proxy": proxy, "codes": codes, "counters": res.get("counters", {}),
    }
    run["bars"] = {
        "ended within its bound (exit 0 or 99, under the profile's 150 s)": run["exit"] in ("0", "99") and wall_s < 150,
        "≥ 90 % of the 200 users' journeys completed": run["pct"] >= 90,
        "under 300 MB resident": rss < 300,
        "no malformed request reached the proxy": proxy["malformed_requests"] == 0,
        "every request reached the stack once": proxy["requests"] == proxy["forwarded"] and proxy["upstream_errors"] == 0,
        "every client-side kind counted": all(codes.get(v, 0) > 0 for v in EXPECT.values() if v),
        "every mangling used on API routes, and on uploads": all(m["api"] > 0 for m in proxy["mangled"].values())
            and sum(m["upload"] for m in proxy["mangled"].values()) > 0,
    }
    return run


def main():
    fraction, seed, machine = sys.argv[1:4]
    runs = [read_run(d) for d in sys.argv[4:]]
    n = len(runs)
    print("## Hostile server: the smoke run through scripts/hostile_proxy.py")
    print()
    print(f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {machine} by "
          f"`bench/hostile.sh -f {fraction} -s {seed} -n {n}`: {n} runs of `profiles/hostile.json` (200 daily-quest "
          "users over 20 s, bounded at 150 s; fleet seed = proxy seed = SEED+i) against the proxy, which forwards "
          "every request once to a fresh `fleet stack --entitlement active --workers 16 --median-ms 400 --sigma 0.4` "
          f"and mangles a seeded {float(fraction):.0%} of the answers in one of {len(EXPECT)} ways. Memory is the "
          "bench's max RSS (`/usr/bin/time -v`).")
    print()
    print("| bar | " + " | ".join(f"run {i + 1}" for i in range(n)) + " |")
    print("|---|" + "---|" * n)
    for bar in runs[0]["bars"]:
        print(f"| {bar} | " + " | ".join("yes" if r["bars"][bar] else "**no**" for r in runs) + " |")
    print()
    print("| run | load avg before | exit | wall s | max RSS MB | quests completed | warm-ups | requests | mangled | retries | out of patience |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, r in enumerate(runs):
        p = r["proxy"]
        print(f"| {i + 1} | {r['load']} | {r['exit']} | {r['wall']:.1f} | {r['rss']:.0f} | {r['completed']}/{USERS} "
              f"({r['pct']:.1f} %) | {r['warm']} | {p['requests']} | {p['mangled_total']} | "
              f"{r['counters'].get('retries', 0)} | {r['counters'].get('retries_out_of_patience', 0)} |")
    med = lambda k: statistics.median(r[k] for r in runs)
    print(f"| **median** | | | {med('wall'):.1f} | {med('rss'):.0f} | {med('completed'):.0f}/{USERS} ({med('pct'):.1f} %) | | | | | |")
    print()
    print(f"Manglings over all {n} runs, and what the client counted (a kind can come from several manglings; "
          "a `204` has no body by definition — HTTP clients ignore its `Content-Length` — so `cl_short`/`cl_long` "
          "of `204` answers (most upload answers are `204`s), and a `fake_gzip` of one, which has no bytes to decode, "
          "rightly pass):")
    print()
    print("| mangling | API answers | upload answers | counted by the client as | client count |")
    print("|---|---:|---:|---|---:|")
    codes = {}
    for r in runs:
        for k, v in r["codes"].items():
            codes[k] = codes.get(k, 0) + v
    for k, e in EXPECT.items():
        api = sum(r["proxy"]["mangled"][k]["api"] for r in runs)
        up = sum(r["proxy"]["mangled"][k]["upload"] for r in runs)
        print(f"| `{k}` | {api} | {up} | {('`' + e + '`') if e else 'success (legal HTTP)'} | {codes.get(e, 0) if e else '–'} |")
    print()
    print("Client error codes, all runs: " + ", ".join(f"`{k}` {v}" for k, v in sorted(codes.items())))
    sys.exit(0 if all(all(r["bars"].values()) for r in runs) else 1)


if __name__ == "__main__":
    main()
