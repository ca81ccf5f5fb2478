"""Survivors of `make mutate` reviewed as equivalent: no input the rule can receive tells the
mutant from the original. Each entry says why. tests.mutation_score leaves them out of the
kill rate and prints them. A mutant's name follows its function's source: re-review the
entries of a function that changes."""

EQUIVALENT: dict[str, str] = {}
