"""localstripe without its disk persistence: ``python -m billing.tests.localstripe_in_memory
--port N``, what the billing benchmark charges against.

localstripe (PyPI, 1.15) writes its whole store to ``/tmp/localstripe.pickle`` each time it
stores an object (``Store.__setitem__`` calls ``Store.dump_to_disk``) and again after every
POST. A charge stores about eight objects (the PaymentIntent, its charge, the balance
transaction, events), and each write pickles everything stored so far, so a charge costs
localstripe time in proportion to every customer, card and charge before it. Measured on
this machine (bench/README figures): 54.7 ms of localstripe CPU per charge with about
1,200 objects stored, 6.9 ms with the writes off, and the first grows with the store.
Stripe does nothing like it, so at 100,000 drivers the benchmark would measure
localstripe's persistence, not our charging. This runs the same server, same API and
behaviour, with that one public method of its store turned into a no-op; it also keeps
the benchmark from writing the ``/tmp`` path every localstripe on the machine shares.
The tests keep the stock server (``LocalStripe()``), whose stores stay small.
"""

from __future__ import annotations

from localstripe import resources, server


def main() -> None:
    resources.Store.dump_to_disk = lambda self: None  # what is stored stays in memory
    server.start()  # reads --port and --from-scratch from the command line


if __name__ == "__main__":
    main()
