"""Tables from the trade (issue 33): a driver or a licensed operator sends in their
authority's table; two staff members put it live.

One door for every submitter:
:func:`pricing.submissions.sending.tariff_submission_create` (the driver app API and
the operator page call it). It takes

- the figures in the published form (``tariff.updated``'s field names, contract 5.3):
  bands with their hours, flag fall, increments and waiting time, and extras; distances
  in metres or yards (``distanceUnit``; yards converted at 0.9144 m with the original kept
  in ``source_units``, as the registry does);
- the date the table came into force, and the fares the card itself prints
  (``examples``), which the back office recomputes with the real meter
  (:func:`pricing.submissions.examples.submission_examples`,
  :func:`pricing.fares.fare_compute`);
- a photo of the table in the cab or the council's notice: an image (JPEG, PNG, WebP) or
  a PDF, recognised by its content, never its name; at most
  ``TARIFF_SUBMISSION_MAX_BYTES``; an image is re-encoded without its EXIF (where and when
  the photo was taken, the phone's make) before it is stored through Django's storage API.

A login may send ``TARIFF_SUBMISSIONS_PER_SUBMITTER`` tables per
``TARIFF_SUBMISSIONS_WINDOW_DAYS`` days (429 ``submission_limit``).

Review (``pricing.submissions.review``: ``submission_check``, ``submission_approve``,
``submission_reject``):
each action needs its own permission (``pricing.check_tariffsubmission``,
``approve_tariffsubmission``, ``reject_tariffsubmission``); the checker is never the
submitter, the approver is neither (a database constraint says it too). The approval
creates a new dated council :class:`~pricing.models.Tariff` through the registry's loader
with its source, dates the tables of that authority it replaces (``effective_to``), and
publishes them all to connected platforms (:func:`pricing.publication.tariff_publish`).

Modules: ``figures`` (the figures and the pages' form), ``photos`` (the upload),
``sending`` (a table sent in), ``examples`` (the card's fares recomputed), ``review``.
"""
