"""Intake formats: how a sender's own payload becomes the one intake request.

The one intake request is a list of PartnerJob objects (seed 2.10,
``partners.services.partner_jobs``), received by
``partners.services.batches.intake_jobs_receive``: validated, admitted
(``bookings.admission``) and applied job by job. PartnerJob senders push it as it is
(``/v1/jobs``, ``/v1/operator/jobs``, ``/hooks/{supplier}-booking``). A sender with its
own payload gets one module here that

1. turns its payload into PartnerJob objects (its references become jobRefs, so retries
   are idempotent on the intake's (account, jobRef) constraint), and
2. renders the receipt (one outcome per job) in its own response format;

and a door under ``partners/api/`` that authenticates as the sender's spec says. An
account names its format (``Account.intake_format``); each door takes only its own.

| format | module | door |
|---|---|---|
| PartnerJob | ``partners.services.partner_jobs`` | ``partners.api.views`` |

The Suntransfers format (ST SPEC v1) was removed on 2026-11-27: its specification's licence
grants use only to Suntransfers' authorised suppliers, for that integration alone, and
forbids reproducing it or building systems for other platforms with it, so an open-source
project that is no licensee may not carry a module built from it. A deployment that holds
that licence can add it here as a format module of its own, with its door under
``partners/api/``.
"""
