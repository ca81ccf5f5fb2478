"""INSERTs compiled once per model, for the rows the busiest endpoints write.

``Model.save()`` compiles its INSERT afresh on every call: it quotes each column name,
builds a placeholder per field and walks the model's relations, which for a booking (40
columns) costs more CPU than the PostgreSQL round trip. The SQL of one model's
single-row INSERT never changes, so :class:`RowInsert` compiles it once per database
vendor and per call only computes the values, through the same ``pre_save`` and
``get_db_prep_save`` that ``save()`` uses (defaults, ``auto_now``, JSON and Decimal
adaptation).

Text and boolean fields whose save path is Django's own, unchanged, store a ``str`` (or
``bool``) or ``None`` exactly as it is: for those values the six calls of that path are
skipped (:func:`_stored_as_is`). Anything else takes the field's own methods.

Model signals are honoured: when a ``pre_save`` or ``post_save`` receiver is connected to
the model, :meth:`RowInsert.insert` falls back to ``save(force_insert=True)``.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import connections, router
from django.db.models import BooleanField, CharField, Field, Model, TextField, signals


def _stored_as_is(field: Field) -> type | None:
    """``str`` for a text field, ``bool`` for a boolean one, whose every save step is
    Django's stock method: such a field stores a value of that type, or ``None``, as it
    is (no ``pre_save`` default, no conversion, no adaptation). ``None`` otherwise."""
    cls = type(field)
    if not (
        cls.pre_save is Field.pre_save
        and cls.get_db_prep_save is Field.get_db_prep_save
        and cls.get_db_prep_value is Field.get_db_prep_value
    ):
        return None
    for base, kind in ((CharField, str), (TextField, str), (BooleanField, bool)):
        if cls.get_prep_value is base.get_prep_value and cls.to_python is base.to_python:
            return kind
    return None


class RowInsert:
    """The single-row INSERT of one model, compiled on first use per database vendor."""

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        meta = model._meta
        # An auto-increment key is the database's to assign; any other key (a UUID) is sent.
        self.fields = [
            field
            for field in meta.local_concrete_fields
            if field is not meta.auto_field and not getattr(field, "generated", False)
        ]
        if any(hasattr(field, "get_placeholder") for field in self.fields):
            # Their placeholder depends on the value: nothing to compile ahead.
            raise TypeError(f"{model.__name__} has fields with their own placeholders.")
        self._columns = [(field, field.attname, _stored_as_is(field)) for field in self.fields]
        self._sql: dict[tuple, str] = {}

    def has_signal_receivers(self) -> bool:
        return signals.pre_save.has_listeners(self.model) or signals.post_save.has_listeners(
            self.model
        )

    def sql(
        self, connection, *, rows: int = 1, expressions: Mapping[str, str] | None = None
    ) -> str:
        """``INSERT INTO t (c1, ...) VALUES (%s, ...)[, (...)]`` with no RETURNING clause.

        ``rows`` rows of placeholders. ``expressions`` replaces the placeholder of the
        named columns with SQL; :meth:`params` must then skip the same columns.
        """
        return self._compiled(connection, "VALUES", rows, expressions or {})

    def select_sql(self, connection, *, source: str, expressions: Mapping[str, str]) -> str:
        """``INSERT INTO t (c1, ...) SELECT ... FROM <source>``: one row per row of
        ``source`` (a CTE), the named columns computed from it, the others parameters."""
        return self._compiled(connection, source, 1, expressions)

    def _compiled(self, connection, source: str, rows: int, expressions: Mapping[str, str]) -> str:
        key = (connection.vendor, source, rows, tuple(sorted(expressions.items())))
        sql = self._sql.get(key)
        if sql is None:
            qn = connection.ops.quote_name
            columns = ", ".join(qn(field.column) for field in self.fields)
            values = ", ".join(expressions.get(field.column, "%s") for field in self.fields)
            table = qn(self.model._meta.db_table)
            # Identifiers come from the model's metadata; values are always parameters.
            sql = f"INSERT INTO {table} ({columns}) "  # noqa: S608
            if source == "VALUES":
                sql += "VALUES " + ", ".join([f"({values})"] * rows)
            else:
                sql += f"SELECT {values} FROM {source}"  # noqa: S608
            self._sql[key] = sql
        return sql

    def params(self, obj: Model, connection, *, skip: tuple[str, ...] = ()) -> list:
        """The values of one row, in column order, as ``save()`` would send them."""
        params = []
        for field, attname, as_is in self._columns:
            if skip and field.column in skip:
                continue
            if as_is is not None:
                value = getattr(obj, attname)
                if value is None or isinstance(value, as_is):
                    params.append(value)
                    continue
            params.append(field.get_db_prep_save(field.pre_save(obj, True), connection))
        return params

    def insert(self, obj: Model, *, using: str | None = None) -> Model:
        """INSERT ``obj`` as ``save(force_insert=True)`` would, setting an assigned key."""
        using = using or router.db_for_write(self.model, instance=obj)
        if self.has_signal_receivers():
            obj.save(force_insert=True, using=using)
            return obj
        connection = connections[using]
        sql = self.sql(connection)
        params = self.params(obj, connection)
        auto_field = self.model._meta.auto_field
        with connection.cursor() as cursor:
            if auto_field is None:
                cursor.execute(sql, params)
            elif connection.features.can_return_columns_from_insert:
                returning = connection.ops.quote_name(auto_field.column)
                cursor.execute(f"{sql} RETURNING {returning}", params)
                obj.pk = cursor.fetchone()[0]
            else:
                cursor.execute(sql, params)
                obj.pk = connection.ops.last_insert_id(
                    cursor, self.model._meta.db_table, auto_field.column
                )
        row_saved(obj, using)
        return obj


def row_saved(obj: Model, using: str) -> None:
    """Mark ``obj`` as a stored row of database ``using``, as ``save()`` does."""
    obj._state.adding = False
    obj._state.db = using
