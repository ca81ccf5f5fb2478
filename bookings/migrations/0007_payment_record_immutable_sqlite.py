"""On SQLite too, refuse UPDATE and DELETE on payment records in the database itself
(issue 13: the trigger of 0003 was PostgreSQL-only, so the embedded default let raw SQL
and bulk ORM calls rewrite the settlement log, seed 2.8)."""

from django.db import migrations

TRIGGERS = {
    "bookings_paymentrecord_no_update": "UPDATE",
    "bookings_paymentrecord_no_delete": "DELETE",
}

FORWARD = [
    f"""
CREATE TRIGGER IF NOT EXISTS {name} BEFORE {operation} ON bookings_paymentrecord
BEGIN
    SELECT RAISE(ABORT, 'payment records are immutable ({operation} on bookings_paymentrecord)');
END;
"""
    for name, operation in TRIGGERS.items()
]

BACKWARD = [f"DROP TRIGGER IF EXISTS {name};" for name in TRIGGERS]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("bookings", "0006_event_booking_index_from_unique")]
    operations = [migrations.RunPython(forward, backward)]
