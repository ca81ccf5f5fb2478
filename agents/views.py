"""Pages of the OAuth flow a passenger sees: sign in by emailed code, consent, and the
list of agents they have authorized (with revoke)."""

from __future__ import annotations

import json

from django import forms
from django.contrib.auth import login
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View
from oauth2_provider.views import (
    AuthorizationView,
    DynamicClientRegistrationManagementView,
    DynamicClientRegistrationView,
    OAuthProtectedResourceMetadataView,
)

from agents import services
from agents.grants import connected_origin_for, mcp_resource
from api.callers import client_ip
from core.callers import Caller
from core.errors import DomainError, LimitReached
from guards.ratelimits import limit_enforce

SIGN_IN_URL = reverse_lazy("agents:sign-in")
PENDING_EMAIL = "agents_sign_in_email"


class EmailForm(forms.Form):
    email = forms.EmailField(max_length=254)


class CodeForm(forms.Form):
    code = forms.RegexField(regex=r"^\s*\d{6}\s*$", max_length=12)


def _next_url(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("agents:authorized")


def _sign_in_page(request, form, *, status: int = 200):
    context = {"form": form, "next": _next_url(request)}
    return render(request, "agents/sign_in.html", context, status=status)


class SignInView(View):
    """Step 1: the passenger's email (input ``email``); step 2: the emailed code (``code``)."""

    def get(self, request):
        return _sign_in_page(request, EmailForm())

    def post(self, request):
        if "code" in request.POST:
            return self._check_code(request)
        form = EmailForm(request.POST)
        if not form.is_valid():
            return _sign_in_page(request, form, status=400)
        caller = Caller(ip=client_ip(request), source="agent", path=request.path)
        try:
            email = services.sign_in_code_send(caller=caller, email=form.cleaned_data["email"])
        except DomainError as error:
            form.add_error("email", error.detail)
            return _sign_in_page(request, form, status=400)
        request.session[PENDING_EMAIL] = email
        context = {"form": CodeForm(), "email": email, "next": _next_url(request)}
        return render(request, "agents/sign_in_code.html", context)

    def _check_code(self, request):
        email = request.session.get(PENDING_EMAIL, "")
        form = CodeForm(request.POST)
        context = {"form": form, "email": email, "next": _next_url(request)}
        if not email or not form.is_valid():
            return render(request, "agents/sign_in_code.html", context, status=400)
        try:
            user = services.sign_in_code_verify(email=email, code=form.cleaned_data["code"])
        except DomainError as error:
            form.add_error("code", error.detail)
            return render(request, "agents/sign_in_code.html", context, status=400)
        request.session.pop(PENDING_EMAIL, None)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return HttpResponseRedirect(_next_url(request))


class PassengerAuthorizationView(AuthorizationView):
    """The OAuth authorization endpoint: signed-in passengers see a consent page naming the
    client and what each scope lets it do."""

    login_url = SIGN_IN_URL
    template_name = "agents/authorize.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["scope_items"] = list(
            zip(context.get("scopes", []), context.get("scopes_descriptions", []), strict=False)
        )
        return context


class AuthorizedAgentsView(LoginRequiredMixin, View):
    """The agents this passenger has authorized, each with a button that revokes it."""

    login_url = SIGN_IN_URL

    def get(self, request):
        authorizations = services.agent_authorizations_list(user=request.user)
        return render(request, "agents/authorized.html", {"authorizations": authorizations})

    def post(self, request):
        application_id = request.POST.get("application", "")
        if application_id.isdigit():
            services.agent_authorization_revoke(
                user=request.user, application_id=int(application_id)
            )
        return HttpResponseRedirect(reverse("agents:authorized"))


class MCPResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728 metadata of the one protected resource here, the MCP server, at both the
    root and the path-suffixed well-known URLs. The resource is the MCP server at the
    connected domain the client reached (RFC 9728 s3.3: the client checks it against the
    URL it used), else at SITE_URL; the authorization server is SITE_URL
    (``OIDC_ISS_ENDPOINT``), on every process."""

    def get_resource(self, request):
        return mcp_resource(connected_origin_for(f"{request.scheme}://{request.get_host()}"))


class ClientRegistrationView(DynamicClientRegistrationView):
    """RFC 7591 registration, open to any client (as MCP clients expect) but limited per
    client IP, answered in RFC 7591's own error shape."""

    def post(self, request, *args, **kwargs):
        caller = Caller(ip=client_ip(request), source="agent", path=request.path)
        try:
            limit_enforce(caller, "oauth_register")
        except LimitReached as limit:
            response = JsonResponse(
                {"error": "too_many_requests", "error_description": limit.detail}, status=429
            )
            response["Retry-After"] = str(limit.retry_after)
            return response
        refused = _client_metadata_refusal(request)
        if refused is not None:
            return refused
        return super().post(request, *args, **kwargs)


def _client_metadata_refusal(request) -> JsonResponse | None:
    """RFC 7591's error for client metadata this server does not register, or None (a body
    that is not a JSON object is left to the library, which answers it)."""
    try:
        metadata = json.loads(request.body)
        if not isinstance(metadata, dict):
            return None
        services.oauth_client_metadata_require_allowed(metadata)
    except ValueError:
        return None
    except (DomainError, RecursionError) as refused:
        errors = getattr(refused, "errors", None) or {}
        error = "invalid_redirect_uri" if "redirect_uris" in errors else "invalid_client_metadata"
        detail = getattr(refused, "detail", "") or "The metadata nests too deeply."
        return JsonResponse({"error": error, "error_description": detail}, status=400)
    return None


class ClientRegistrationManagementView(DynamicClientRegistrationManagementView):
    """RFC 7592 updates are held to the same metadata rules as a registration."""

    def put(self, request, *args, **kwargs):
        refused = _client_metadata_refusal(request)
        if refused is not None:
            return refused
        return super().put(request, *args, **kwargs)
