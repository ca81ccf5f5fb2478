"""Drop the ``varchar_pattern_ops`` index PostgreSQL's backend adds beside the unique
index of ``Booking.reference`` (issue 41).

That second index serves only ``LIKE 'prefix%'`` on the bare column, and no query asks
one: references are looked up by equality or ``IN`` (the unique index
``bookings_booking_reference_key``, which the constraint keeps), and the back office's
search is ``icontains``, ``UPPER(reference) LIKE '%...%'``, which no index on the column
serves. Every new booking paid for its entry: 20,000 rows inserted into copies of the
table, with and without it, took 124-142 against 106-109 us a row (load 15-18).

Django's migration state is unchanged (the field stays ``unique=True``); a later change
of the field's type may create the index again, and this drop should then be repeated.
"""

from django.db import migrations


def _like_index(schema_editor, apps) -> tuple[str, str, str]:
    model = apps.get_model("bookings", "Booking")
    table = model._meta.db_table
    column = model._meta.get_field("reference").column
    name = schema_editor._create_index_name(table, [column], suffix="_like")
    qn = schema_editor.quote_name
    return qn(name), qn(table), qn(column)


def drop_like_index(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # only PostgreSQL's backend creates it
    name, _table, _column = _like_index(schema_editor, apps)
    schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


def create_like_index(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    name, table, column = _like_index(schema_editor, apps)
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column} varchar_pattern_ops)"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("bookings", "0017_booking_unassigned"),
    ]

    operations = [
        migrations.RunPython(drop_like_index, create_like_index, elidable=False),
    ]
