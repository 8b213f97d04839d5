"""Reads the output of sidebyside.sh and prints each round's times, the
medians over the rounds and the ratios Go / PyTorch against issue 51's bars.
A PyTorch script that ran more than once in a round (under both OpenMP wait
policies) counts with its fastest run. Needs no PyTorch:

    python3 bench/pytorch/summary.py FILE      (or the output on standard input)
"""
import re
import statistics
import sys

# name in the tables, pattern of its output lines
ROWS = [
    ("go m-pc float64", r"^BenchmarkStepLossMPC(-\d+)?\s"),
    ("go m-pc float32", r"^BenchmarkStepLossPrecision/m-pc/float32(-\d+)?\s"),
    ("torch m-pc float32", r"^torch-steploss/m-pc/float32\s"),
    ("go banert adam step float64", r"^BenchmarkAdamStep96(-\d+)?\s"),
    ("torch banert adam step float32", r"^torch-banert/adam-step/float32\s"),
]
# ratio numerator, denominator, bar (issue 51)
RATIOS = [
    ("go m-pc float64", "torch m-pc float32", 0.35),
    ("go m-pc float32", "torch m-pc float32", 0.27),
    ("go banert adam step float64", "torch banert adam step float32", 1.5),
]


def measure(line):
    """(wall ms, CPU ms or None, OpenMP policy or "", wall ms of the fastest
    run or None) of one benchmark line (CPU from cpu-ms/op, or from
    cpu-s/step as BenchmarkAdamStep96 reports it; the fastest run from
    min-wall-ms or min-s/step)."""
    m = re.search(r"([\d.]+) ns/op", line)
    wall = float(m.group(1)) / 1e6 if m else float(re.search(r"([\d.]+) wall-ms/op", line).group(1))
    c = re.search(r"([\d.]+) cpu-ms/op", line)
    cpu = float(c.group(1)) if c else None
    if c is None and (c := re.search(r"([\d.]+) cpu-s/step", line)):
        cpu = float(c.group(1)) * 1e3
    p = re.search(r"OMP_WAIT_POLICY (\w+)", line)
    b = re.search(r"([\d.]+) min-wall-ms", line) or re.search(r"([\d.]+) min-s/step", line)
    best = None if b is None else float(b.group(1)) * (1e3 if "min-s/step" in b.group(0) else 1)
    return wall, cpu, p.group(1) if p else "", best


def parse(text):
    """Per round, per row: the fastest measurement."""
    rounds = []
    for line in text.splitlines():
        if line.startswith("## round "):
            rounds.append({})
            continue
        for name, pat in ROWS:
            if rounds and re.search(pat, line):
                m = measure(line)
                if name not in rounds[-1] or m[0] < rounds[-1][name][0]:
                    rounds[-1][name] = m
    return rounds


def fmt(m):
    wall, cpu, policy, _ = m
    s = f"{wall:.2f} / " + (f"{cpu:.2f}" if cpu is not None else "–")
    return s + (f" ({policy})" if policy else "")


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    rounds = parse(text)
    bad = [f"round {i + 1}: {n}" for i, r in enumerate(rounds) for n, _ in ROWS if n not in r]
    if not rounds or bad:
        sys.exit("summary: no result for " + (", ".join(bad) or "any round") +
                 ": did a benchmark fail or change its name?")
    print("wall / CPU ms per operation (CPU: all threads; PyTorch: the faster OpenMP wait policy)")
    print()
    print("| benchmark | " + " | ".join(f"round {i + 1}" for i in range(len(rounds))) + " | median wall |")
    print("| --- |" + " ---: |" * (len(rounds) + 1))
    for name, _ in ROWS:
        walls = [r[name][0] for r in rounds]
        print(f"| {name} | " + " | ".join(fmt(r[name]) for r in rounds) + f" | {statistics.median(walls):.2f} |")
    print()
    print("| ratio Go / PyTorch float32 | per round, wall | median, wall | median, CPU | fastest runs, per round | bar |")
    print("| --- | --- | ---: | ---: | --- | --- |")
    for num, den, bar in RATIOS:
        per = [r[num][0] / r[den][0] for r in rounds]
        cpus = [r[num][1] / r[den][1] for r in rounds if r[num][1] and r[den][1]]
        cpu = f"{statistics.median(cpus):.2f}" if cpus else "–"
        bests = [r[num][3] / r[den][3] for r in rounds if r[num][3] and r[den][3]]
        best = ", ".join(f"{x:.2f}" for x in bests) or "–"
        wall = statistics.median(per)
        print(f"| {num} / {den} | {', '.join(f'{x:.2f}' for x in per)} | {wall:.2f} | {cpu} | {best} | "
              f"≤ {bar}: {'met' if wall <= bar else 'not met'} |")


if __name__ == "__main__":
    main()
