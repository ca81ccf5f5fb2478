"""Places the tests travel between: the two ends of most journeys, and a way to stand a
driver a given distance north of a point."""

from __future__ import annotations

# Leeds station and York, the two ends of most test journeys.
LEEDS = (53.7950, -1.5475)
YORK = (53.9590, -1.0815)
LONDON = (51.5308, -0.1238)
KM_LAT = 1 / 111.2  # degrees of latitude per km


def north_of(point: tuple[float, float], km: float) -> tuple[float, float]:
    return point[0] + km * KM_LAT, point[1]
