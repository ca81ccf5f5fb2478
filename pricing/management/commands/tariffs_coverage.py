"""``manage.py tariffs_coverage``: the share of UK postcodes, and the basis of each of the 30
largest markets, on each basis (table, uprated, calibrated, network): pricing.coverage."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from pricing.coverage import MARKET_COUNT, coverage_measure, markets_write
from pricing.models import TariffBasis


class Command(BaseCommand):
    help = "Print on what basis UK postcodes and the largest markets are priced."

    def add_arguments(self, parser):
        parser.add_argument(
            "--write-markets",
            action="store_true",
            help="Rebuild pricing/data/largest_markets.json from the postcode file first.",
        )

    def handle(self, *args, write_markets=False, **options):
        if write_markets:
            markets = markets_write()
            self.stdout.write(f"Wrote the {len(markets)} largest markets.\n")
        result = coverage_measure()
        self.stdout.write("Share of UK postcodes by basis (weekday daytime, 2 miles, today):\n")
        for basis in TariffBasis.values:
            self.stdout.write(f"  {basis:<11} {result.postcodes[basis]:5.1f} %\n")
        self.stdout.write(f"  own basis   {result.own_basis_pct:5.1f} %\n")
        self.stdout.write(f"The {MARKET_COUNT} largest markets:\n")
        for authority, basis in result.markets:
            self.stdout.write(f"  {authority:<45} {basis}\n")
        own = len(result.markets) - result.markets_on(TariffBasis.NETWORK)
        exact = result.markets_on(TariffBasis.TABLE, TariffBasis.UPRATED)
        self.stdout.write(
            f"  on their own basis: {own} of {len(result.markets)}; on table or uprated: {exact}\n"
        )
