"""The native intake format: PartnerJob (seed 2.10), one job, an array, or {"jobs": [...]}.

``payload`` reads a body into the typed intake request; ``guide`` documents it (OpenAPI
examples, the operator's connection guide). Outcomes render through
``partners.api.serializers.IntakeOutcomeOutputSerializer``.
"""
