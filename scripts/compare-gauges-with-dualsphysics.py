#!/usr/bin/env python3
"""SPHERIC Test 2 at DualSPHysics' settings: Surge's gauges beside DualSPHysics' own, from one pair of runs.

Issue 13 asks that Surge be faster than DualSPHysics at an accuracy shown to be no worse. DualSPHysics v5.0
writes no particle pressures or densities one could read without its post-processing tools, but it samples
gauges during the run: water level along a vertical line (`swl`, the highest point where the kernel sum of
fluid mass reaches half a particle's: Surge's `level` gauge is the same definition) and the force on a boundary
object (`force`, on mkbound 1: the box). Both runs sample every millisecond; Surge's rows (taken at the first
step at or after each millisecond) are interpolated to DualSPHysics' times.

Usage: compare-gauges-with-dualsphysics.py SURGE_GAUGES_CSV DUALSPHYSICS_OUT_DIR
Surge's CSV needs columns H1-H4 and Fbox_fx; the folder DualSPHysics' GaugesSWL_H1..H4.csv and
GaugesForce_Fbox.csv. Prints, per level gauge, the arrival (first level above 1 cm at H1-H3), the mean absolute
difference over the run normalised by DualSPHysics' largest level there, and the largest difference; for the
box, the x force's largest value and its time, and both means over the last 50 ms. Pure Python.
"""
import csv
import glob
import os
import sys


def read_surge(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {name: [float(r[name]) for r in rows] for name in rows[0]}


def read_dualsphysics(directory, pattern, wanted):
    """(times, values) of the first column whose header contains one of `wanted` (tried in order), from
    DualSPHysics' Gauges*_NAME.csv (';')."""
    paths = glob.glob(os.path.join(directory, "**", pattern), recursive=True)
    if not paths:
        sys.exit(f"{directory}: no {pattern}")
    with open(paths[0]) as f:
        lines = [line.strip() for line in f if line.strip()]
    header = next(k for k, line in enumerate(lines) if line.lower().startswith("time"))
    names = [n.strip() for n in lines[header].split(";")]
    column = next((k for w in wanted for k, n in enumerate(names) if k > 0 and w in n.lower()), None)
    if column is None:
        sys.exit(f"{paths[0]}: no column with '{wanted}' in {names}")
    print(f"# {os.path.basename(paths[0])}: columns {names}; reading '{names[column]}'", file=sys.stderr)
    times, values = [], []
    for line in lines[header + 1:]:
        cells = line.split(";")
        times.append(float(cells[0]))
        values.append(float(cells[column]))
    return times, values


def interpolate(times, values, at):
    out, k = [], 0
    for t in at:
        while k + 1 < len(times) - 1 and times[k + 1] < t:
            k += 1
        t0, t1 = times[k], times[k + 1]
        w = 0.0 if t1 == t0 else min(max((t - t0) / (t1 - t0), 0.0), 1.0)
        out.append(values[k] + w * (values[k + 1] - values[k]))
    return out


def arrival(times, levels, threshold=0.01):
    return next((t for t, h in zip(times, levels) if h > threshold), None)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    surge = read_surge(sys.argv[1])
    directory = sys.argv[2]
    end = surge["time_s"][-1]

    def side_by_side(pattern, wanted, column):
        """DualSPHysics' times within Surge's run, its values there, and Surge's column interpolated to them."""
        times, peer = read_dualsphysics(directory, pattern, wanted)
        keep = [k for k, t in enumerate(times) if surge["time_s"][0] <= t <= end]
        times, peer = [times[k] for k in keep], [peer[k] for k in keep]
        return times, peer, interpolate(surge["time_s"], surge[column], times)

    print("| gauge | arrival Surge [s] | arrival DualSPHysics [s] | mean abs. difference / DualSPHysics' max | largest difference [m] |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in ("H1", "H2", "H3", "H4"):
        times, peer, ours = side_by_side(f"GaugesSWL_{name}.csv", ("swlz", "swl.z"), name)
        differences = [abs(a - b) for a, b in zip(ours, peer)]
        scale = max(peer) if max(peer) > 0 else 1.0
        a_s, a_d = arrival(times, ours), arrival(times, peer)
        fmt = lambda a: "—" if a is None or name == "H4" else f"{a:.3f}"
        print(f"| {name} | {fmt(a_s)} | {fmt(a_d)} | {sum(differences) / len(differences) / scale:.3f} | "
              f"{max(differences):.3f} |")
    times, peer, ours = side_by_side("GaugesForce_Fbox.csv", ("forcex", "force.x", "fx", "x"), "Fbox_fx")
    print()
    print("| box, x force | largest [N] | at [s] | mean over the last 50 ms [N] |")
    print("| --- | ---: | ---: | ---: |")
    last = [k for k, t in enumerate(times) if t >= end - 0.05]
    for code, series in (("Surge", ours), ("DualSPHysics", peer)):
        # The water pushes the box towards -x (it comes from +x): the largest push is the most negative.
        k = min(range(len(series)), key=lambda i: series[i])
        print(f"| {code} | {series[k]:.1f} | {times[k]:.3f} | {sum(series[i] for i in last) / len(last):.1f} |")


if __name__ == "__main__":
    main()
