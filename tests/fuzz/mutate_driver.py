"""The driver the seeded mutation tests share (report_mutate.py, bench_mutate.py): read the
corpus, run the reader on each input, then on mutations of them for --seconds or --runs;
an input that raises is saved under --crash-dir with its traceback, and the run fails.
Prints "NAME: done: ..." on success (tests/fuzz/run reads that line)."""
import argparse
import os
import random
import time
import traceback


def save_crash(crash_dir, prefix, data, tb):
    os.makedirs(crash_dir, exist_ok=True)
    path = os.path.join(crash_dir, "%s-crash-%08x" % (prefix, hash(data) & 0xffffffff))
    with open(path, "wb") as f:
        f.write(data)
    with open(path + ".txt", "w") as f:
        f.write(tb)
    return path


def mutate_lines(rng, data, value_span, awkward, noise):
    """One to four line-wise mutations of data: a line deleted, doubled, swapped, cut short,
    a value (value_span(rng, line): the (start, end) of one, or None) replaced by one of
    awkward, one of noise inserted, or a bit flipped."""
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(9)
        i = rng.randrange(len(lines))
        if op == 0 and len(lines) > 1:
            del lines[i]
        elif op == 1:
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and lines[i]:
            lines[i] = lines[i][:rng.randrange(len(lines[i]))]
        elif op in (4, 5):
            span = value_span(rng, lines[i])
            if span:
                lines[i] = lines[i][:span[0]] + rng.choice(awkward) + lines[i][span[1]:]
        elif op in (6, 7):
            pos = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:pos] + rng.choice(noise) + lines[i][pos:]
        elif lines[i]:
            b = bytearray(lines[i])
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            lines[i] = bytes(b)
    return b"\n".join(lines)


def main(name, doc, root, corpus, run_reader, mutate):
    """name: the script's name in its lines; corpus: the default corpus folder (from root);
    run_reader(data) raises on a finding; mutate(rng, data) returns new bytes. Returns the
    exit status."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=os.path.join(root, corpus))
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=-1, help="stop after this many (-1: no limit)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--crash-dir", default=os.path.join(root, "build/fuzz/artifacts"))
    ap.add_argument("--replay", metavar="FILE", help="run one saved input and exit")
    args = ap.parse_args()
    prefix = name.split("_")[0]

    if args.replay:
        with open(args.replay, "rb") as f:
            run_reader(f.read())
        print("%s: %s: no finding" % (name, args.replay))
        return 0

    seeds = []
    for entry in sorted(os.listdir(args.corpus)):
        with open(os.path.join(args.corpus, entry), "rb") as f:
            seeds.append(f.read())
    rng = random.Random(args.seed)
    start = time.monotonic()
    runs = 0

    def one(data, what):
        try:
            run_reader(data)
        except Exception:
            path = save_crash(args.crash_dir, prefix, data, traceback.format_exc())
            print("%s: %s raised; input saved as %s\n%s" % (name, what, path, traceback.format_exc()))
            return False
        return True

    for data in seeds:              # the corpus itself first: regressions live there
        if not one(data, "corpus input"):
            return 1
        runs += 1
    while time.monotonic() - start < args.seconds and (args.runs < 0 or runs < args.runs):
        if not one(mutate(rng, rng.choice(seeds)), "run %d" % runs):
            return 1
        runs += 1
    print("%s: done: %d executions in %.0f s, seed %d, %d corpus inputs, "
          "mutation test (not coverage-guided)" % (name, runs, time.monotonic() - start, args.seed,
                                                   len(seeds)))
    return 0
