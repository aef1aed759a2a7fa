"""The benchmark's schema-change requests, read by make_dataset.py.

Each case: `name`, `schema`, `size` (simple | complex), `kind` (the route expected:
answer | checklist | question), `prompt`, and
- `checks`: invariants (see ../invariants.py). A `check` without `equals`, `at_least`,
  `at_most` or `rows` expects the value it has on the original database (or the value of
  `before`, a query run on the original database, when given): make_dataset.py fills it in.
- `touches`: the tables whose row count may change (or that go away); every other table's
  row count is checked as it was.
- `answer`: for a question, a query on the original database whose value the reply must
  contain (or `answer_regex`, a pattern).
- `solution`: a reference migration (SQLite), applied by `make_dataset.py --selftest`.
A question or an unclear request also gets `schema_unchanged`: nothing may change.
"""

from cases_chinook_sakila import CHINOOK, SAKILA
from cases_northwind_hr_jaffle import HR, JAFFLE, NORTHWIND

SCHEMAS = {"chinook": CHINOOK, "sakila": SAKILA, "northwind": NORTHWIND, "hr": HR, "jaffle_shop": JAFFLE}
