"""OAuth 2.1 for the MCP server (django-oauth-toolkit views under its own namespace, with
our consent page) and the passenger's pages."""

from django.urls import include, path
from oauth2_provider import views as oauth_views

from agents import views

# Reversed by django-oauth-toolkit as "oauth2_provider:<name>" (metadata, DCR responses).
oauth_patterns = [
    # RFC 8414 and RFC 9728 documents live at the site root.
    path(
        ".well-known/oauth-authorization-server",
        oauth_views.OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource",
        views.MCPResourceMetadataView.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        views.MCPResourceMetadataView.as_view(),
        name="oauth-resource-metadata-mcp",
    ),
    path("oauth/authorize/", views.PassengerAuthorizationView.as_view(), name="authorize"),
    path("oauth/token/", oauth_views.TokenView.as_view(), name="token"),
    path("oauth/revoke/", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register/", views.ClientRegistrationView.as_view(), name="dcr-register"),
    path(
        "oauth/register/<str:client_id>/",
        views.ClientRegistrationManagementView.as_view(),
        name="dcr-register-management",
    ),
]

agent_patterns = [
    path("sign-in/", views.SignInView.as_view(), name="sign-in"),
    path("", views.AuthorizedAgentsView.as_view(), name="authorized"),
]

urlpatterns = [
    path("", include((oauth_patterns, "oauth2_provider"))),
    path("agents/", include((agent_patterns, "agents"))),
]
