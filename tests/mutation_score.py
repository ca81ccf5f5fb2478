"""Print the kill rate of the mutants that `make mutate` ran, per module: python -m
tests.mutation_score PATTERN... (the same mutant name patterns given to `mutmut run`).

A survivor reviewed as equivalent (no input can tell it from the original) is listed in
tests/mutation_equivalent.py with why; the rate that matters is over the others. Exits
non-zero when a module kills fewer than 90% of its non-equivalent mutants.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict
from fnmatch import fnmatch

from tests.mutation_equivalent import EQUIVALENT

# Verdicts that mean a test noticed the mutant (a timeout is a mutant that hangs the code).
CAUGHT = {"killed", "timeout", "caught by type check"}
REQUIRED = 0.90


def module_of(mutant: str) -> str:
    # "dispatch.services.offers.answers.x_offer_accept__mutmut_3": the function part has no dots.
    return mutant.rsplit(".", 1)[0]


def main(patterns: list[str]) -> int:
    listing = subprocess.run(
        [".venv/bin/mutmut", "results", "--all", "true"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    verdicts: dict[str, str] = {}
    for line in listing.splitlines():
        name, _, verdict = line.strip().rpartition(": ")
        if name and verdict != "not checked" and any(fnmatch(name, p) for p in patterns):
            verdicts[name] = verdict
    if not verdicts:
        print("No mutants checked.")
        return 1
    by_module: dict[str, Counter] = defaultdict(Counter)
    for name, verdict in verdicts.items():
        kind = "caught" if verdict in CAUGHT else "equivalent" if name in EQUIVALENT else "missed"
        by_module[module_of(name)][kind] += 1
    print(f"{'module':<34}{'mutants':>8}{'caught':>8}{'equiv.':>8}{'missed':>8}  kill rate")
    failing = []
    for module, counts in sorted(by_module.items()):
        total = sum(counts.values())
        judged = counts["caught"] + counts["missed"]
        rate = counts["caught"] / judged if judged else 1.0
        print(
            f"{module:<34}{total:>8}{counts['caught']:>8}{counts['equivalent']:>8}"
            f"{counts['missed']:>8}  {100 * rate:.1f}%"
        )
        if rate < REQUIRED:
            failing.append(module)
    totals = Counter()
    for counts in by_module.values():
        totals.update(counts)
    judged = totals["caught"] + totals["missed"]
    print(f"All: {totals['caught']}/{judged} non-equivalent mutants caught", end="")
    print(f" = {100 * totals['caught'] / judged:.1f}%" if judged else "")
    for name, verdict in sorted(verdicts.items()):
        if verdict not in CAUGHT:
            why = EQUIVALENT.get(name)
            print(f"  {verdict}: {name}" + (f"  [equivalent: {why}]" if why else ""))
    if failing:
        print(f"Below {REQUIRED:.0%} of non-equivalent mutants: {', '.join(failing)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["*"]))
