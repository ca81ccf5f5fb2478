"""The back office's one rule for actions (issue 35): every action declares the permissions
it needs (``@admin.action(permissions=[...])``, answered by ``has_<name>_permission``), and
a POST naming a declared action the user may not take is refused with 403, not quietly
turned into "no action selected".

Django already hides such actions from the list (``ModelAdmin.get_actions`` filters by
``allowed_permissions``); the refusal makes a hand-made POST fail loudly too.
``tests/test_admin_permissions.py`` walks every registered admin and fails on an
action without declared permissions or on a custom admin URL."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied


def admin_action_names(model_admin: admin.ModelAdmin) -> set[str]:
    """Every action an admin knows of (its own and the site's), allowed to the user or not."""
    names = {name for name, _ in model_admin.admin_site.actions}
    for action in model_admin.actions or ():
        names.add(action if isinstance(action, str) else action.__name__)
    return names


class ActionPermissionsMixin:
    """Put before the ModelAdmin class in the bases of every registered admin."""

    def changelist_view(self, request, extra_context=None):
        if request.method == "POST":
            asked = set(request.POST.getlist("action")) & admin_action_names(self)
            if asked - set(self.get_actions(request)):
                raise PermissionDenied
        return super().changelist_view(request, extra_context)


class BackOfficeAdmin(ActionPermissionsMixin, admin.ModelAdmin):
    """The ModelAdmin every app's admin derives from."""
