"""Billing services, by subdomain: subscriptions, invoicing, credit notes, collection."""
