"""The CPU a `fleet run` spent walking its users, from its results.json: shared by the scripts
that report CPU per request or per quest (overhead.sh, cpu-ab.sh, peers-journey.sh).

The health samples carry the process's cumulative CPU at the end of each window, start-up
included (process launch, corpus load and check, the stack, connections). What the users cost
starts from the CPU when they began to walk:
  - the sample before the first window with an active user, when there is one;
  - else meta.startCpuSeconds, which fleet records since 2026-12-07 (issue 18, 24th pass);
  - else (an older binary whose first window already had users) the first sample less one
    window at the next window's rate: an estimate, and every report says how many it made.
Before this module, overhead.sh and cpu-ab.sh took 0 in the last case: a run's start-up was
counted in its CPU per request: 0.03-0.04 s (meta.startCpuSeconds, 2026-12-07) over ~4,800
requests with the corpus check cached, ~7 us a request; 6.5 s when it was not.
"""


def walking_cpu_start(res, health, first_active, estimate=False):
    """(CPU seconds when the users began, how it was found: 'sample', 'meta' or 'estimated').
    estimate=True skips meta.startCpuSeconds, so that runs of a newer binary can be taken
    alike with an older one's."""
    if first_active > 0:
        return health[first_active - 1]["cpuSeconds"], "sample"
    at_start = res.get("meta", {}).get("startCpuSeconds")
    if at_start is not None and not estimate:
        return at_start, "meta"
    if len(health) > 1:
        return health[0]["cpuSeconds"] - (health[1]["cpuSeconds"] - health[0]["cpuSeconds"]), "estimated"
    return 0.0, "estimated"


def how_line(hows):
    """One sentence for a report: where each run's start-up CPU came from."""
    n = {k: sum(1 for h in hows if h == k) for k in ("sample", "meta", "estimated")}
    parts = [f"{n['sample']} from the sample before the first active window",
             f"{n['meta']} from results.json's meta.startCpuSeconds"]
    if n["estimated"]:
        parts.append(f"{n['estimated']} estimated (a binary older than meta.startCpuSeconds: the first window less one"
                     " window at the next one's rate)")
    return f"Start-up CPU left out of each of the {len(hows)} fleet runs: " + ", ".join(parts) + "."
