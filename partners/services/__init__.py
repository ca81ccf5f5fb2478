"""Partner, operator and supplier services, one module per concern.

``accounts``: creating accounts, keys and trials; ``intake``: applying pushed jobs;
``webhooks``: outbound status deliveries; ``status``: inbound status from job holders;
``operator``: the operator's own fleet dispatch.
"""

from partners.services.accounts import account_create, account_key_issue

__all__ = ["account_create", "account_key_issue"]
