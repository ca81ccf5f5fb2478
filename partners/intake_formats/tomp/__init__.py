"""TOMP-API 1.6.1 (Transport Operator MaaS Provider API): this service as the Transport
Operator for taxis, through the intake seam.

The specification ships beside this package (``spec/TOMP-API-1.6.1.yaml``, Apache 2.0,
see ``NOTICE``). What is implemented follows the working group's taxi profile ("How do
I implement a taxi operator"): planning (``POST /plannings``), booking (``POST
/bookings``, postponed commit), commit and cancellation (``POST /bookings/{id}/events``),
reading a booking and its leg (``GET /bookings/{id}``, ``GET /legs/{id}``) whose state
follows the driver's progress, support (``POST /support/``, ``GET /support/{id}/status``)
and ``GET /operator/meta``; and the messages the operator sends the provider as the
driver goes (``/bookings/{id}/events`` COMMIT, DENY, CANCEL; ``/legs/{id}/events``
PREPARE, SET_IN_USE, FINISH; ``/bookings/{id}/notifications``). Authentication: the
specification's Bearer and ``X-API-Key`` schemes carry a partner account's API key.

- ``payload``: TOMP bodies read into the typed intake request (and a journey to price);
- ``shapes``: our quotes and bookings rendered as TOMP planning, booking, leg, meta;
- ``operations``: the use cases, each calling the shared services (pricing's quote, the
  batch intake service, the sender's read-back in ``partners.selectors``), and support;
- ``messages``: booking events as TOMP messages to the provider, delivered by the partner
  webhook machinery (``partners.receivers`` calls it beside the other deliveries);
- ``views`` and ``urls``: the door, mounted at ``/api/tomp/`` by one line in
  ``config/urls.py``.
"""
