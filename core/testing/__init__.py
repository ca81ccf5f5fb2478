"""Test support that every app's tests may import (app tests never import the top-level
``tests`` package, which holds the cross-app flows): ``race`` (concurrency), the places
test journeys run between (places), the production-module scanner (sources), the UK clock
instants that expose a UTC/UK mix-up (clock) and a port nothing listens on (network).
Data builders of one app's models live in that app's ``tests/factories.py``."""
