"""Reads the output of sidebyside.sh and prints each round's times, the
medians over the rounds and the ratios Go/PyTorch against issue 51's bars.
Needs no PyTorch: python3 bench/pytorch/summary.py FILE (or standard input)."""
import re
import statistics
import sys

# name in the table -> (pattern of the output line, bar of the ratio's numerator or None)
ROWS = [
    ("go m-pc float64", r"^BenchmarkStepLossMPC(-\d+)?\s", 0.35),
    ("go m-pc float32", r"^BenchmarkStepLossPrecision/m-pc/float32(-\d+)?\s", 0.27),
    ("torch m-pc float32", r"^torch-steploss/m-pc/float32\s", None),
    ("go banert adam step float64", r"^BenchmarkAdamStep96(-\d+)?\s", 1.5),
    ("torch banert adam step float32", r"^torch-banert/adam-step/float32\s", None),
]
REFERENCE = {"go m-pc float64": "torch m-pc float32", "go m-pc float32": "torch m-pc float32",
             "go banert adam step float64": "torch banert adam step float32"}


def times(line):
    """(wall ms, CPU ms or None) of one benchmark line."""
    m = re.search(r"([\d.]+) ns/op", line)
    if m:
        wall = float(m.group(1)) / 1e6
    else:
        wall = float(re.search(r"([\d.]+) wall-ms/op", line).group(1))
    c = re.search(r"([\d.]+) cpu-ms/op", line)
    return wall, float(c.group(1)) if c else None


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    rounds = {name: [] for name, _, _ in ROWS}
    for line in text.splitlines():
        for name, pat, _ in ROWS:
            if re.search(pat, line):
                rounds[name].append(times(line))
    missing = [n for n, v in rounds.items() if not v]
    if missing:
        sys.exit(f"summary: no result for {', '.join(missing)}: did a benchmark fail or change its name?")
    n = max(len(v) for v in rounds.values())
    print("| benchmark | " + " | ".join(f"round {i + 1} wall / cpu ms" for i in range(n)) + " | median wall / cpu ms |")
    print("| --- | " + " | ".join("---:" for _ in range(n + 1)) + " |")
    med = {}
    for name, _, _ in ROWS:
        v = rounds[name]
        cells = [f"{w:.2f} / {c:.2f}" if c is not None else f"{w:.2f} / –" for w, c in v]
        cells += [""] * (n - len(v))
        cpus = [c for _, c in v if c is not None]
        med[name] = (statistics.median(w for w, _ in v), statistics.median(cpus) if cpus else None)
        mw, mc = med[name]
        print(f"| {name} | " + " | ".join(cells) + f" | {mw:.2f} / {mc:.2f} |" if mc is not None
              else f"| {name} | " + " | ".join(cells) + f" | {mw:.2f} / – |")
    print()
    print("| ratio Go / PyTorch float32 | wall (median of rounds) | per round, wall | cpu (median) | bar |")
    print("| --- | ---: | --- | ---: | ---: |")
    for name, _, bar in ROWS:
        if bar is None:
            continue
        ref = REFERENCE[name]
        per = [g[0] / t[0] for g, t in zip(rounds[name], rounds[ref])]
        wall = statistics.median(per)
        cpu = f"{med[name][1] / med[ref][1]:.2f}" if med[name][1] and med[ref][1] else "–"
        verdict = "met" if wall <= bar else "not met"
        print(f"| {name} / {ref} | {wall:.2f} | {', '.join(f'{r:.2f}' for r in per)} | {cpu} | ≤ {bar} ({verdict}) |")


if __name__ == "__main__":
    main()
