"""Domain settings, one module per app that reads them, composed by ``config.settings.base``."""
