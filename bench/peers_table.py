"""bench/peers_table.py WORK DURATION PAIRS NAME… — the peers table from alternated rounds.

Reads WORK/NAME.ROUND.out and .time (from bench/peers.sh), computes each client's requests per
CPU-second per round, its ratio to wrk's in the same round, and prints a Markdown table with the
median ratio and its min–max over the rounds. Rounds whose run started loaded (WORK/load.log,
bench/lib.sh) are counted in the last column.
"""
import csv, os, re, statistics, sys

work, duration, pairs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
names = sys.argv[4:]
LABELS = {"wrk": "wrk", "h2load": "h2load --h1", "hey": "hey", "locust": "Locust (FastHttpUser)",
          "rawcurl": "raw libcurl multi (C)", "fleet": "fleet blast"}


def read(name):
    p = os.path.join(work, name)
    return open(p, errors="replace").read() if os.path.exists(p) else ""


def ms(text):
    m = re.match(r"([\d.]+)\s*(us|ms|s)$", text.strip())
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v


def wrk_like(out):
    req = re.search(r"(\d+) requests in ([\d.]+)s", out)
    p99 = re.search(r"^\s*99%\s+(\S+)", out, re.M)
    return (int(req.group(1)) if req else None, ms(p99.group(1)) if p99 else None)


def requests(name, r):
    """(requests, p99 ms) of one client's run in round r."""
    out = read(f"{name}.{r}.out")
    if name in ("wrk", "fleet", "rawcurl"):
        return wrk_like(out)
    if name == "h2load":
        req = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", out)
        durs = sorted(int(l.split("\t")[2]) for l in read(f"h2load.{r}.log").splitlines() if l.count("\t") >= 2)
        return (int(req.group(1)) if req else None, durs[int(0.99 * (len(durs) - 1))] / 1000 if durs else None)
    if name == "hey":
        codes = re.findall(r"\[\d+\]\s+(\d+) responses", out)
        p99 = re.search(r"99% in ([\d.]+) secs", out)
        return (sum(map(int, codes)) if codes else None, float(p99.group(1)) * 1000 if p99 else None)
    if name == "locust":
        p = os.path.join(work, f"locust.{r}_stats.csv")
        if os.path.exists(p):
            for row in csv.DictReader(open(p)):
                if row.get("Name") == "Aggregated":
                    p99 = row.get("99%")
                    return (int(row["Request Count"]), float(p99) if p99 not in (None, "", "N/A") else None)
    return (None, None)


def cpu(name, r):
    t = read(f"{name}.{r}.time").split()
    try:
        return float(t[-2]) + float(t[-1])
    except (IndexError, ValueError):
        return None


loaded = {}
for line in read("load.log").splitlines():
    parts = line.split()
    label, flag = parts[0], parts[-1]
    loaded[label] = flag == "loaded"


def spread(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return "n/a"
    return f"{statistics.median(v):.2f} ({v[0]:.2f}–{v[-1]:.2f})"


def med(values, fmt):
    v = [x for x in values if x is not None]
    return fmt % statistics.median(v) if v else "n/a"


effs = {n: [] for n in names}
for r in range(1, pairs + 1):
    for n in names:
        req, _ = requests(n, r)
        c = cpu(n, r)
        effs[n].append(req / c if req and c else None)

print("| client | req/s (median) | req per client CPU-s (median) | × wrk, median (min–max) over rounds | p99 ms (median) | rounds | loaded rounds |")
print("|---|---:|---:|---:|---:|---:|---:|")
for n in names:
    ratios = [e / w if e and w else None for e, w in zip(effs[n], effs["wrk"])]
    rps = [requests(n, r)[0] / duration if requests(n, r)[0] else None for r in range(1, pairs + 1)]
    p99s = [requests(n, r)[1] for r in range(1, pairs + 1)]
    k = sum(1 for r in range(1, pairs + 1) if loaded.get(f"peers_one_{n}#{r}"))
    ok = sum(1 for e in effs[n] if e)
    print(f"| {LABELS.get(n, n)} | {med(rps, '%.0f')} | {med(effs[n], '%.0f')} | {spread(ratios)} | {med(p99s, '%.2f')} | {ok} | {k} |")
