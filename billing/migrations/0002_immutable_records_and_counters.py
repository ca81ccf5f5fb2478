"""Counter rows for gapless numbering, and on PostgreSQL triggers that keep issued
invoices, their lines and credit notes immutable even against raw SQL or bulk updates.
Only collection state (status, due/paid dates, payment reference) of an invoice may change.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION billing_record_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'billing records are immutable (%% on %%)', TG_OP, TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER billing_invoiceline_no_update_delete
    BEFORE UPDATE OR DELETE ON billing_invoiceline
    FOR EACH ROW EXECUTE FUNCTION billing_record_immutable();
CREATE TRIGGER billing_creditnote_no_update_delete
    BEFORE UPDATE OR DELETE ON billing_creditnote
    FOR EACH ROW EXECUTE FUNCTION billing_record_immutable();
CREATE TRIGGER billing_invoice_no_delete
    BEFORE DELETE ON billing_invoice
    FOR EACH ROW EXECUTE FUNCTION billing_record_immutable();
CREATE TRIGGER billing_invoice_amounts_frozen
    BEFORE UPDATE OF number, driver_id, week_start, period_start, period_end, earnings,
        fee_decision, subtotal_fee, subtotal_pass_through, total, currency, issued_at
    ON billing_invoice
    FOR EACH ROW
    WHEN (
        (OLD.number, OLD.driver_id, OLD.week_start, OLD.period_start, OLD.period_end,
         OLD.earnings, OLD.fee_decision, OLD.subtotal_fee, OLD.subtotal_pass_through,
         OLD.total, OLD.currency, OLD.issued_at)
        IS DISTINCT FROM
        (NEW.number, NEW.driver_id, NEW.week_start, NEW.period_start, NEW.period_end,
         NEW.earnings, NEW.fee_decision, NEW.subtotal_fee, NEW.subtotal_pass_through,
         NEW.total, NEW.currency, NEW.issued_at)
    )
    EXECUTE FUNCTION billing_record_immutable();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS billing_invoice_amounts_frozen ON billing_invoice;
DROP TRIGGER IF EXISTS billing_invoice_no_delete ON billing_invoice;
DROP TRIGGER IF EXISTS billing_creditnote_no_update_delete ON billing_creditnote;
DROP TRIGGER IF EXISTS billing_invoiceline_no_update_delete ON billing_invoiceline;
DROP FUNCTION IF EXISTS billing_record_immutable();
"""

COUNTERS = ("invoice", "credit_note")


def forward(apps, schema_editor):
    NumberSequence = apps.get_model("billing", "NumberSequence")
    for name in COUNTERS:
        NumberSequence.objects.using(schema_editor.connection.alias).get_or_create(name=name)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("billing", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
