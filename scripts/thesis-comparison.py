#!/usr/bin/env python3
"""Builds results/thesis-comparison/comparison.csv and whatif.csv from the simulated run folders beside them.

The run folders are written by scripts/thesis-comparison.sh (simulate, 64 cores, 400 s). Every figure of the thesis
column is from Fenech 2013, chapter 7 (sections 7.5.1 to 7.5.3). Prints the what-if and comparison tables as
Markdown. Usage: scripts/thesis-comparison.py [folder] (default results/thesis-comparison).
"""
import csv
import json
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "results/thesis-comparison"
FREE, PINNED = "oversubscribed-free", "oversubscribed-pinned"


def load(name):
    """Scheme -> {stp, antt, rsd (mean RSD of the programs' NTT), moves, handovers, decisions}; None if absent."""
    folder = os.path.join(ROOT, name)
    path = os.path.join(folder, "summary.json")
    if not os.path.exists(path):
        return None
    data = json.load(open(path))["data"]
    result = {}
    for scheme in data["schemes"]:
        m = scheme["metrics"]
        rsds = [p["ntt"]["relativeStandardDeviation"] for p in m["programs"]]
        result[scheme["scheme"]] = {"stp": m["stp"], "antt": m["antt"], "rsd": sum(rsds) / len(rsds)}
    label = open(os.path.join(folder, "simulation.md")).read()
    for line in label.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0] in result:
            result[cells[0]].update(moves=int(cells[5]), handovers=int(cells[6]), decisions=int(cells[7]))
    # The thesis's dynamic policy is the scheme named task-availability since the learned policy became "dynamic";
    # folders written before that call it dynamic. The comparisons below are the thesis's, so they read it.
    if "task-availability" in result:
        result["dynamic"] = result.pop("task-availability")
    return result


def pct(a, b):
    return a / b - 1


def best(run, key="stp"):
    pick = max if key == "stp" else min
    return pick(run, key=lambda s: run[s][key])


# (mix, comparison, thesis text, value function returning (text, agrees-in-direction))
def rel(x, y, key="stp", lower_better=False, sign=+1):
    def f(run):
        v = pct(run[x][key], run[y][key])
        if lower_better:
            v = -v
        return f"{v * 100:+.1f}%", (v > 0) == (sign > 0)
    return f


def shared_best(run):
    b = best(run)
    return b, b in ("shared", "default")


def dynamic_best(run):
    b, a = best(run), best(run, "antt")
    return f"STP {b}, ANTT {a}", b == "dynamic" and a == "dynamic"


def rsd_order(run):
    shared = (run["shared"]["rsd"] + run["default"]["rsd"]) / 2
    over = (run[FREE]["rsd"] + run[PINNED]["rsd"]) / 2
    dyn, sta = run["dynamic"]["rsd"], run["static"]["rsd"]
    text = f"{shared * 100:.0f}% / {over * 100:.0f}% / {dyn * 100:.0f}% / {sta * 100:.0f}%"
    return text, shared > over > dyn > sta


COMPARISONS = [
    ("5", "shared-scheduler schemes (shared, default) give the best STP", "best", shared_best),
    ("5", "STP of shared over default", "+6%", rel("shared", "default")),
    ("5", "STP of free over pinned oversubscription", "+10%", rel(FREE, PINNED)),
    ("5", "STP of free oversubscription against shared", "-20%", rel(FREE, "shared", sign=-1)),
    ("5", "STP of dynamic against shared", "-24%", rel("dynamic", "shared", sign=-1)),
    ("5", "STP of dynamic over static", "+6%", rel("dynamic", "static")),
    ("5", "RSD of NTT, shared-scheduler / oversubscription / dynamic / static (decreasing)", "38% / 18% / 13% / 7%", rsd_order),
    ("3", "dynamic gives the best STP and ANTT", "best", dynamic_best),
    ("3", "STP of dynamic over default", "+5.5%", rel("dynamic", "default")),
    ("3", "STP of dynamic over shared", "+2%", rel("dynamic", "shared")),
    ("3", "STP of dynamic over free oversubscription", "+2%", rel("dynamic", FREE)),
    ("3", "ANTT of dynamic better than free oversubscription (lower)", "2.6% better", rel("dynamic", FREE, key="antt", lower_better=True)),
]
SOURCES = {"5": "Fenech 2013, section 7.5.1", "3": "Fenech 2013, sections 7.5.2 and 7.5.3"}

# Filled in by hand after reading the what-if runs: comparison index -> the committed run folder that flips it.
EXPLAINED_BY = {}
if os.path.exists(os.path.join(ROOT, "explained-by.json")):
    EXPLAINED_BY = json.load(open(os.path.join(ROOT, "explained-by.json")))


def comparison():
    runs = {}
    for mix in ("3", "5"):
        for programs in ("today-programs", "thesis-form"):
            for mechanism in ("thesis-mechanism", "today-mechanism"):
                runs[mix, programs, mechanism] = load(f"cyclic-{mix}-{programs}-{mechanism}")
    rows = []
    for i, (mix, what, thesis, f) in enumerate(COMPARISONS, 1):
        def value(programs, mechanism):
            run = runs[mix, programs, mechanism]
            return f(run) if run else ("not run", None)
        today, _ = value("today-programs", "thesis-mechanism")
        form, agrees = value("thesis-form", "thesis-mechanism")
        form_today, agrees_today = value("thesis-form", "today-mechanism")
        rows.append({
            "mix": f"{mix}-program", "comparison": what, "thesis": f"{thesis} ({SOURCES[mix]})",
            "today_programs": today, "thesis_form": form, "agrees": "yes" if agrees else "no" if agrees is not None else "",
            "explained_by": "" if agrees else EXPLAINED_BY.get(str(i), ""),
            "_form_today": form_today, "_agrees_today": agrees_today,
        })
    with open(os.path.join(ROOT, "comparison.csv"), "w", newline="") as out:
        w = csv.DictWriter(out, ["mix", "comparison", "thesis", "today_programs", "thesis_form", "agrees", "explained_by"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print("| mix | comparison | thesis | today's programs | thesis form | agrees | thesis form, today's mechanism | agrees |")
    print("| --- | --- | --- | ---: | ---: | :---: | ---: | :---: |")
    for r in rows:
        yes = {True: "yes", False: "no", None: ""}[r["_agrees_today"]]
        print(f"| {r['mix']} | {r['comparison']} | {r['thesis'].split(' (')[0]} | {r['today_programs']} | {r['thesis_form']} | {r['agrees']} | {r['_form_today']} | {yes} |")
    agree = sum(r["agrees"] == "yes" for r in rows)
    agree_today = sum(bool(r["_agrees_today"]) for r in rows)
    print(f"\nthesis form, thesis mechanism: {agree} of {len(rows)} agree; thesis form, today's mechanism: {agree_today} of {len(rows)}")


WHATIFS = [
    ("today's mechanism (100 ms, standby, lending, queued)", "whatif-{mix}-today-mechanism"),
    ("decision interval 10 ms", "whatif-{mix}-interval-10"),
    ("decision interval 1000 ms", "whatif-{mix}-interval-1000"),
    ("no standby handover", "whatif-{mix}-no-standby"),
    ("no lending", "whatif-{mix}-no-lending"),
    ("availability: queued + running", "whatif-{mix}-queued-running"),
    ("availability: smoothed history", "whatif-{mix}-smoothed"),
    ("thesis mechanism (100 ms, no standby, no lending, queued)", "whatif-{mix}-thesis-mechanism"),
    ("thesis mechanism, decision interval 10 ms", "whatif-{mix}-thesis-interval-10"),
    ("thesis mechanism, decision interval 1000 ms", "whatif-{mix}-thesis-interval-1000"),
]


def whatif():
    header = ["mix", "setting", "folder", "static_stp", "dynamic_stp", "dynamic_vs_static", "static_antt", "dynamic_antt",
              "dynamic_moves", "dynamic_handovers", "dynamic_decisions", "static_moves", "dynamic_ntt_rsd", "cost_terms"]
    rows = []
    for mix in ("3", "5"):
        for setting, pattern in WHATIFS:
            folder = pattern.format(mix=mix)
            run = load(folder)
            if not run:
                continue
            s, d = run["static"], run["dynamic"]
            rows.append([f"{mix}-program", setting, folder, f"{s['stp']:.3f}", f"{d['stp']:.3f}", f"{pct(d['stp'], s['stp']) * 100:+.1f}%",
                         f"{s['antt']:.3f}", f"{d['antt']:.3f}", d.get("moves", ""), d.get("handovers", ""), d.get("decisions", ""), s.get("moves", ""),
                         f"{d['rsd'] * 100:.0f}%", "none (not modelled yet)"])
    with open(os.path.join(ROOT, "whatif.csv"), "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(header)
        w.writerows(rows)
    print("| mix | setting | static STP | dynamic STP | dynamic vs static | static ANTT | dynamic ANTT | dynamic moves | handovers | decisions | dynamic NTT RSD |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print("| " + " | ".join(str(c) for c in (r[0], r[1], *r[3:11], r[12])) + " |")


whatif()
print()
comparison()
