"""Intake formats: how a sender's own payload becomes the one intake request.

The one intake request is typed (``partners.services.intake_request``): an
``IntakeBatch`` of ``IntakeJob`` objects, each the sender's reference, an action and the
``bookings.admission.BookingRequest`` that admission takes. It is received by
``partners.services.batches.intake_batch_receive`` (who may push, rate, admission, apply;
all-or-nothing for a trip's legs), which never sees a format. Each format is one module
or small package here that

1. reads its payload into that request (its references become jobRefs, so retries are
   idempotent on the intake's (account, jobRef) constraint): a reader handed to
   ``intake_batch_receive``, and
2. renders outcomes and read models (``partners.selectors``) in its own shapes;

and its door (views and URLs inside the package, or ``partners/api/`` for the native
format). An account names its format (``Account.intake_format``); each door takes only
its own.

| format | package | door |
|---|---|---|
| PartnerJob (seed 2.10) | ``partners.intake_formats.partner_job`` | ``partners.api.views`` |
| TOMP-API 1.6.1 | ``partners.intake_formats.tomp`` | ``partners.intake_formats.tomp.views`` at ``/api/tomp/`` |

The Suntransfers format (ST SPEC v1) was removed on 2026-11-27: its specification's licence
grants use only to Suntransfers' authorised suppliers, for that integration alone, and
forbids reproducing it or building systems for other platforms with it, so an open-source
project that is no licensee may not carry a module built from it. A deployment that holds
that licence can add it here as a format module of its own, with its door under
``partners/api/``.
"""
