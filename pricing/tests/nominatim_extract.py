"""A small OpenStreetMap extract for a real Nominatim in tests (issue 40).

Three streets of the issue, written as OSM XML: Oxford's High Street with a house "10",
Deansgate (Manchester) with a house "1" at its north end, and Briggate (Leeds), each
with its town as a ``place`` node. This is a synthetic extract, not OpenStreetMap's own
geometry: each street is a straight way between published points (what the test checks
is that the engine's answer is the one the quote is priced from, and its precision), so
each point says where it comes from:

- High Street, Oxford: its mid-point, 51.7525, -1.252 (Wikipedia, "High Street, Oxford"),
  from Carfax (the Oxford town point of pricing/data/places.tsv) eastwards;
- Briggate, Leeds: 53.7969, -1.5424 (Wikipedia, "Briggate"), 250 m either side north-south;
- Deansgate: from Deansgate station to Manchester Victoria station, its two ends
  (pricing/data/gb_rail_stations.tsv), "No. 1 Deansgate" at the north end;
- the towns: pricing/data/places.tsv.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

# name -> (lat, lng, place type)
TOWNS = {
    "Oxford": (51.75222, -1.25596, "city"),
    "Leeds": (53.79648, -1.54785, "city"),
    "Manchester": (53.48095, -2.23743, "city"),
}
# street -> (town, [(lat, lng), ...] along the way, {house number: node index})
STREETS = {
    "High Street": (
        "Oxford",
        [(51.75199, -1.25775), (51.7525, -1.252), (51.75252, -1.24600)],
        {"10": 1},
    ),
    "Briggate": ("Leeds", [(53.79465, -1.54240), (53.7969, -1.5424), (53.79915, -1.54240)], {}),
    "Deansgate": ("Manchester", [(53.47396, -2.25006), (53.48747, -2.24261)], {"1": 1}),
}
# Where the test expects each text to be placed, and at what precision.
EXPECTED = {
    "10 High Street, Oxford": ((51.7525, -1.252), "address"),
    "1 Deansgate, Manchester": ((53.48747, -2.24261), "address"),
    "Briggate, Leeds": ((53.7969, -1.5424), "street"),
}


def extract_xml() -> str:
    """The extract as OSM XML (version 0.6)."""
    nodes, ways = [], []
    next_id = 1

    def node(lat: float, lng: float, tags: dict[str, str]) -> int:
        nonlocal next_id
        node_id, next_id = next_id, next_id + 1
        body = "".join(f"<tag k={quoteattr(k)} v={quoteattr(v)}/>" for k, v in tags.items())
        nodes.append(f'<node id="{node_id}" version="1" lat="{lat}" lon="{lng}">{body}</node>')
        return node_id

    for name, (lat, lng, kind) in TOWNS.items():
        node(lat, lng, {"place": kind, "name": name})
    for way_id, (street, (town, points, houses)) in enumerate(STREETS.items(), start=1):
        refs = [node(lat, lng, {}) for lat, lng in points]
        body = "".join(f'<nd ref="{ref}"/>' for ref in refs)
        body += f'<tag k="highway" v="primary"/><tag k="name" v={quoteattr(street)}/>'
        ways.append(f'<way id="{way_id}" version="1">{body}</way>')
        for number, index in houses.items():
            lat, lng = points[index]
            node(
                lat,
                lng,
                {
                    "addr:housenumber": number,
                    "addr:street": street,
                    "addr:city": town,
                    "building": "yes",
                },
            )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="taxi-tests">\n'
        + "\n".join(nodes + ways)
        + "\n</osm>\n"
    )
