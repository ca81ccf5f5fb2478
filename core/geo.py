"""Distances on the Earth's surface, and the SQL form the matcher uses to rank by them.

Within the few tens of kilometres the matcher searches, an equirectangular projection
around the pickup is within 0.5 % of the great-circle distance, which is plenty for ranking
and keeps the SQL portable (plain arithmetic on indexed float columns, no GIS extension).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import ExpressionWrapper, F, FloatField, Value

EARTH_RADIUS_KM = 6371.0088
KM_PER_DEGREE = math.pi * EARTH_RADIUS_KM / 180  # about 111.2 km per degree of latitude
KM_PER_MILE = 1.609344


def haversine_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = phi2 - phi1
    dlmb = math.radians(lng2 - lng1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))


def km_to_miles(km: float) -> Decimal:
    return Decimal(str(km / KM_PER_MILE)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def bounding_box(lat: float, lng: float, radius_km: float) -> tuple[float, float, float, float]:
    """(min_lat, max_lat, min_lng, max_lng) enclosing a circle of ``radius_km``."""
    dlat = radius_km / KM_PER_DEGREE
    dlng = radius_km / (KM_PER_DEGREE * max(0.01, math.cos(math.radians(lat))))
    return lat - dlat, lat + dlat, lng - dlng, lng + dlng


def distance_sq_km_expression(lat_field: str, lng_field: str, lat: float, lng: float):
    """SQL for the squared planar distance in km² from (lat_field, lng_field) to (lat, lng)."""
    ky = KM_PER_DEGREE
    kx = KM_PER_DEGREE * math.cos(math.radians(lat))
    dy = (F(lat_field) - Value(lat)) * Value(ky)
    dx = (F(lng_field) - Value(lng)) * Value(kx)
    return ExpressionWrapper(dy * dy + dx * dx, output_field=FloatField())
