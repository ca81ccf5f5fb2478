"""Print the kill rate of the mutants that `make mutate` ran: python -m tests.mutation_score
PATTERN... (the same mutant name patterns given to `mutmut run`)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from fnmatch import fnmatch

# Verdicts that mean a test noticed the mutant (a timeout is a mutant that hangs the code).
CAUGHT = {"killed", "timeout", "caught by type check"}


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
        if name and any(fnmatch(name, pattern) for pattern in patterns):
            verdicts[name] = verdict
    counts = Counter(verdicts.values())
    checked = sum(n for verdict, n in counts.items() if verdict != "not checked")
    caught = sum(counts[verdict] for verdict in CAUGHT)
    for verdict, n in sorted(counts.items()):
        print(f"  {verdict:>20}: {n}")
    if not checked:
        print("No mutants checked.")
        return 1
    print(f"Kill rate: {caught}/{checked} = {100 * caught / checked:.1f}%")
    for name, verdict in sorted(verdicts.items()):
        if verdict not in CAUGHT:
            print(f"  {verdict}: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["*"]))
