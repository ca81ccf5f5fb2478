"""The back office's action rule (core.admin_actions) applied to the admins other packages
register (Django's users and groups, DRF's tokens, API keys, axes, django-oauth-toolkit).

This app is the last in INSTALLED_APPS, so admin autodiscovery has registered every other
admin when this module runs. Each one is registered again as a subclass that refuses
actions the user may not take (403), with permissions declared on the few third-party
actions that declare none."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin

from core.admin_actions import ActionPermissionsMixin

# (admin class, action): what the action needs. Revoking a token changes it; clearing
# expired lock-out records deletes them.
THIRD_PARTY_ACTION_PERMISSIONS = {
    ("AccessTokenAdmin", "revoke_tokens"): ("change",),
    ("RefreshTokenAdmin", "revoke_tokens"): ("change",),
    ("AccessAttemptAdmin", "cleanup_expired_attempts"): ("delete",),
}


def _action_declared(original, permissions: tuple[str, ...]):
    def action(model_admin, request, queryset):
        return original(model_admin, request, queryset)

    action.__name__ = original.__name__
    return admin.action(
        description=getattr(original, "short_description", original.__name__),
        permissions=list(permissions),
    )(action)


def admin_class_with_declared_actions(admin_class: type[admin.ModelAdmin]) -> type:
    attrs: dict = {"__module__": __name__, "__doc__": admin_class.__doc__}
    for action in admin_class.actions or ():
        permissions = THIRD_PARTY_ACTION_PERMISSIONS.get((admin_class.__name__, action))
        if permissions:
            attrs[action] = _action_declared(getattr(admin_class, action), permissions)
    return type(admin_class.__name__, (ActionPermissionsMixin, admin_class), attrs)


for model in apps.get_models(include_auto_created=False):
    if not admin.site.is_registered(model):
        continue
    model_admin = admin.site.get_model_admin(model)
    if isinstance(model_admin, ActionPermissionsMixin):
        continue
    admin.site.unregister(model)
    admin.site.register(model, admin_class_with_declared_actions(type(model_admin)))
