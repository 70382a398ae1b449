#!/usr/bin/env python3
"""bench/plot.py - the end-to-end benchmark as a bar chart (PNG), from bench/results/<stamp>.json.

    bench/plot.py [RESULT.json ...] [-o docs/bench.png]

Horizontal bars, one per variant, median seconds over the run's repetitions, each labelled
with its value and its time relative to our JSON export (below 1x = faster than ours). One
panel per database size, side by side (1M and 10M after `bench/run.sh --scaling`). With no
argument it reads the newest result in bench/results/; with several, a size found in a later
file replaces the same size from an earlier one, so a 1M and a separate 10M run can be shown
together. Variants timed on the server (psql's \\timing: the floors and ours_json_select) are
marked "(server)". bench/run.sh calls this at the end of every run (bench/README.md).

Needs matplotlib (Debian: python3-matplotlib); draws off-screen.
"""

import argparse
import glob
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
RESULTS_DIR = os.path.join(BENCH_DIR, "results")

# Bar colours by variant group (bench.py's "group"): ours stands out, the DHIS2 peer too.
GROUP_COLOURS = {"ours": "#2a9d5c", "native": "#4a78b5", "floor": "#a0a0a0", "peer": "#d0602a"}
# Top to bottom: the product first, then what it is compared with.
GROUP_ORDER = ["ours", "peer", "native", "floor"]


def newest_result():
    paths = [p for p in glob.glob(os.path.join(RESULTS_DIR, "*.json")) if not p.endswith("-micro.json")]
    if not paths:
        sys.exit("plot.py: no results in bench/results/ (run bench/run.sh first)")
    return max(paths)  # names are UTC timestamps


def load_sizes(paths):
    """{values: (size dict, environment, reps, file)} over all files, later files winning."""
    import json

    sizes = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for size in data.get("sizes", []):
            if size.get("summary"):
                sizes[size["values"]] = (size, data.get("environment", {}), data.get("reps"), os.path.basename(path))
    if not sizes:
        sys.exit("plot.py: no measured sizes in " + ", ".join(paths))
    return [sizes[v] for v in sorted(sizes)]


def variant_order(summaries):
    """Variant names present in any size, grouped (ours, peer, native, floor), in bench order within a group."""
    names = []
    for summary in summaries:
        for name in summary:
            if name not in names:
                names.append(name)

    def group_rank(name):
        for summary in summaries:
            if name in summary:
                g = summary[name].get("group", "floor")
                return GROUP_ORDER.index(g) if g in GROUP_ORDER else len(GROUP_ORDER)
        return len(GROUP_ORDER)

    return sorted(names, key=lambda n: (group_rank(n), names.index(n)))


def draw(sizes, out_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summaries = [s["summary"] for s, _, _, _ in sizes]
    names = variant_order(summaries)
    height = 1.2 + 0.42 * len(names)
    fig, axes = plt.subplots(1, len(sizes), figsize=(max(9.0, 7.2 * len(sizes)), height + 0.3), squeeze=False,
                             sharey=True)
    for ax, (size, env, reps, source) in zip(axes[0], sizes):
        summary = size["summary"]
        ours = summary.get("ours_json", {}).get("median")
        y = list(range(len(names)))[::-1]  # first name at the top
        widest = max((summary[n]["median"] for n in names if n in summary), default=1.0)
        for yi, name in zip(y, names):
            if name not in summary:
                ax.text(0, yi, "  not measured", va="center", fontsize=8, color="#777777")
                continue
            s = summary[name]
            median = s["median"]
            ax.barh(yi, median, color=GROUP_COLOURS.get(s.get("group"), "#a0a0a0"), height=0.7)
            # the spread of the repetitions, when there were several
            if s.get("min") is not None and s.get("max") is not None and s["max"] > s["min"]:
                ax.plot([s["min"], s["max"]], [yi, yi], color="black", linewidth=0.8)
            label = f" {median:.2f} s"
            if ours and name != "ours_json":
                label += f"  ({median / ours:.2f}x our JSON)" if median / ours < 10 else f"  ({median / ours:.1f}x our JSON)"
            elif name == "ours_json":
                label += "  (reference)"
            ax.text(max(median, s.get("max") or 0), yi, label, va="center", fontsize=8)
        ax.set_xlim(0, widest * 1.55)
        ax.set_xlabel("seconds (median; line: min to max)")
        ax.set_title(f"{size['values']:,} values ({size['selected_rows']:,} exported), {reps} rep(s)", fontsize=10)
        ax.grid(axis="x", color="#e0e0e0", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    labels = []
    for name in names:
        timing = next((s[name].get("timing") for s in summaries if name in s), "wall")
        labels.append(name + (" (server)" if timing == "server" else ""))
    axes[0][0].set_yticks(list(range(len(names)))[::-1])
    axes[0][0].set_yticklabels(labels, fontsize=9)
    env = sizes[-1][1]
    sources = ", ".join(sorted({src for _, _, _, src in sizes}))
    fig.suptitle(
        "datavalue_export: one dataValueSets export, end to end (bench/run.sh)\n"
        f"{env.get('cpu', '?')}, {env.get('cores', '?')} cores, git {env.get('git', '?')}, bench/results/{sources}\n"
        f"load average {env.get('load', '?')}",
        fontsize=9,
    )
    present = [g for g in GROUP_ORDER if any(s.get(n, {}).get("group") == g for s in summaries for n in names)]
    names_of = {"ours": "datavalue_export", "peer": "DHIS2 2.42 writer (Java)", "native": "PostgreSQL COPY",
                "floor": "floors"}
    handles = [plt.Rectangle((0, 0), 1, 1, color=GROUP_COLOURS[g]) for g in present]
    legend = [names_of[g] for g in present]
    fig.legend(handles, legend, loc="lower center", ncol=len(legend), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    fig.savefig(out_path, dpi=110)
    print(f"plot.py: wrote {out_path}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="*", help="bench/results/<stamp>.json files (default: the newest)")
    ap.add_argument("-o", "--output", default=os.path.join(os.path.dirname(BENCH_DIR), "docs", "bench.png"))
    args = ap.parse_args()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit("plot.py: matplotlib is missing (apt-get install python3-matplotlib)")
    draw(load_sizes(args.results or [newest_result()]), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
