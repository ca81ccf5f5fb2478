"""The settings the agents app reads. AI agents (issue 14): the MCP server at /mcp and its OAuth
2.1 server.

Star-imported by ``config.settings.base``; a new agents setting goes here.
"""

from config.settings.environment import env

# Tokens are bound to {connected domain}/mcp (RFC 8707); scopes are what a tool needs.
OAUTH2_PROVIDER = {
    "SCOPES": {
        "quotes": "See prices and service information",
        "bookings": "Book, look up and cancel rides in your name",
    },
    "DEFAULT_SCOPES": ["quotes"],
    "PKCE_REQUIRED": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],  # http: RFC 8252 loopback clients
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_ACCESS_TOKEN_SECONDS", default=3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_REFRESH_TOKEN_SECONDS", default=30 * 86400),
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 120,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
        "none",
        "client_secret_post",
        "client_secret_basic",
    ],
    # RFC 9700 (OAuth 2.0 Security BCP): every behaviour gate on. PKCE S256 only, no
    # implicit or password grant, no tokens in query strings, RFC 9207 ``iss`` on the
    # authorization response, tokens stored hashed.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    # Agents register themselves: RFC 7591 dynamic registration (open, as MCP clients
    # expect) and client ID metadata documents (an https URL as the client_id).
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "CIMD_ENABLED": True,
    "OAUTH2_PROTECTED_RESOURCE_NAME": "Direct-to-Driver taxi booking (MCP)",
}
# Native MCP clients (desktop apps, CLIs) receive the authorization code on an http
# loopback redirect (RFC 8252 s7.3), so "http" stays allowed for redirect URIs and DOT's
# RFC 9700 warning about it is acknowledged here; every other RFC 9700 gate is on.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
# A confirmation token from start_booking's preview is good this long (and never past the
# quote's own expiry).
AGENT_CONFIRMATION_TTL_SECONDS = env.int("AGENT_CONFIRMATION_TTL_SECONDS", default=30 * 60)
AGENT_SIGN_IN_CODE_TTL_SECONDS = 10 * 60
AGENT_SIGN_IN_CODE_MAX_ATTEMPTS = 5
# The MCP server answers from several worker processes: legacy (2025) clients are served
# statelessly too, so no session is tied to one process.
MCP_PATH = "/mcp"
