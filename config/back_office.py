"""Which logins django-axes watches: the back office (admin) only.

``AXES_ONLY_ADMIN_SITE`` stops axes refusing other logins, but it would still count their
failures and answer the request that crosses the limit with its lockout page. The driver
app and the API have their own rate limits and problem responses, so their logins are
whitelisted here and never counted.
"""

from __future__ import annotations

from django.urls import reverse


def login_outside_back_office(request, credentials=None) -> bool:
    """AXES_WHITELIST_CALLABLE: true for any login that is not the admin site's."""
    return not request.path.startswith(reverse("admin:index"))
