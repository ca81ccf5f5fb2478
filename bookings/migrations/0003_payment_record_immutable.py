"""On PostgreSQL, refuse UPDATE and DELETE on payment records in the database itself, so
that not even raw SQL or a bulk ORM call can rewrite the settlement log (seed 2.8)."""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION bookings_paymentrecord_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'payment records are immutable (%% on %%)', TG_OP, TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER bookings_paymentrecord_no_update_delete
    BEFORE UPDATE OR DELETE ON bookings_paymentrecord
    FOR EACH ROW EXECUTE FUNCTION bookings_paymentrecord_immutable();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS bookings_paymentrecord_no_update_delete ON bookings_paymentrecord;
DROP FUNCTION IF EXISTS bookings_paymentrecord_immutable();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("bookings", "0002_initial")]
    operations = [migrations.RunPython(forward, backward)]
