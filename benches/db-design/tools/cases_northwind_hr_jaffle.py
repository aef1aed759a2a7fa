"""The Northwind, HR and jaffle_shop cases (see cases.py for the fields)."""

NORTHWIND = [
    dict(name="northwind-discontinued", size="simple", kind="answer",
         prompt="How many products are discontinued?",
         answer="SELECT count(*) FROM Products WHERE Discontinued = '1'"),
    dict(name="northwind-refs-orders", size="simple", kind="answer",
         prompt="Which table has a foreign key to Orders?", answer_regex=r"(?i)order\s*details"),
    dict(name="northwind-orders-of-customer", size="simple", kind="answer",
         prompt="How many orders did the customer QUICK place?",
         answer="SELECT count(*) FROM Orders WHERE CustomerID = 'QUICK'"),
    dict(name="northwind-customer-email", size="simple", kind="answer",
         prompt="Add an Email column to Customers.",
         checks=[{"column": "Customers.Email", "exists": True},
                 {"check": "SELECT group_concat(CompanyName, '|') FROM (SELECT CompanyName FROM Customers ORDER BY CustomerID)"}],
         solution="ALTER TABLE Customers ADD COLUMN Email TEXT;"),
    dict(name="northwind-rename-order-details", size="simple", kind="answer",
         prompt="Rename the table \"Order Details\" to OrderLines.",
         checks=[{"table": "Order Details", "exists": False},
                 {"check": "SELECT count(*) FROM OrderLines", "before": "SELECT count(*) FROM \"Order Details\""},
                 {"check": "SELECT sum(UnitPrice * Quantity) FROM OrderLines",
                  "before": "SELECT sum(UnitPrice * Quantity) FROM \"Order Details\""},
                 {"check": "SELECT count(*) FROM \"Order Subtotals\""}],
         touches=["Order Details", "OrderLines"],
         solution="ALTER TABLE \"Order Details\" RENAME TO OrderLines;"),
    dict(name="northwind-index-shipped-date", size="simple", kind="answer",
         prompt="Add an index on Orders.ShippedDate.",
         checks=[{"index_on": "Orders", "columns": ["ShippedDate"]}],
         solution="CREATE INDEX IX_Orders_ShippedDate ON Orders (ShippedDate);"),
    dict(name="northwind-orders-customer-required", size="complex", kind="checklist",
         prompt="Every order must have a customer: make Orders.CustomerID NOT NULL, keeping every order, its lines "
                "and the views that read Orders.",
         checks=[{"column": "Orders.CustomerID", "exists": True, "notnull": True},
                 {"fails": "INSERT INTO Orders (OrderID, CustomerID, EmployeeID) VALUES (99999, NULL, 1)"},
                 {"check": "SELECT group_concat(k, '|') FROM (SELECT OrderID || ':' || CustomerID || ':' || "
                           "coalesce(ShippedDate, '') AS k FROM Orders ORDER BY OrderID)"},
                 {"check": "SELECT count(*) FROM \"Orders Qry\""},
                 {"check": "SELECT count(*) FROM Invoices"},
                 {"check": "SELECT count(*) FROM \"Order Subtotals\""},
                 {"foreign_key": "Orders.CustomerID", "references": "Customers"},
                 {"foreign_key": "Order Details.OrderID", "references": "Orders"}],
         solution="""
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE Orders_new (
   OrderID INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
   CustomerID TEXT NOT NULL,
   EmployeeID INTEGER, OrderDate DATETIME, RequiredDate DATETIME, ShippedDate DATETIME, ShipVia INTEGER,
   Freight NUMERIC DEFAULT 0, ShipName TEXT, ShipAddress TEXT, ShipCity TEXT, ShipRegion TEXT,
   ShipPostalCode TEXT, ShipCountry TEXT,
   FOREIGN KEY (EmployeeID) REFERENCES Employees (EmployeeID) ON DELETE NO ACTION ON UPDATE NO ACTION,
   FOREIGN KEY (CustomerID) REFERENCES Customers (CustomerID) ON DELETE NO ACTION ON UPDATE NO ACTION,
   FOREIGN KEY (ShipVia) REFERENCES Shippers (ShipperID) ON DELETE NO ACTION ON UPDATE NO ACTION);
INSERT INTO Orders_new SELECT * FROM Orders;
DROP TABLE Orders;
PRAGMA legacy_alter_table = ON;
ALTER TABLE Orders_new RENAME TO Orders;
PRAGMA legacy_alter_table = OFF;
COMMIT;
PRAGMA foreign_keys = ON;
"""),
    dict(name="northwind-addresses", size="complex", kind="checklist",
         prompt="Normalise the addresses: create a table Addresses (AddressID INTEGER PRIMARY KEY, Address, City, "
                "Region, PostalCode, Country), give Customers and Suppliers an AddressID referencing it, move their "
                "addresses into it, drop their old address columns, and keep every view working.",
         checks=[{"table": "Addresses", "exists": True},
                 {"foreign_key": "Customers.AddressID", "references": "Addresses"},
                 {"foreign_key": "Suppliers.AddressID", "references": "Addresses"},
                 {"column": "Customers.City", "exists": False},
                 {"column": "Suppliers.City", "exists": False},
                 {"check": "SELECT group_concat(k, '|') FROM (SELECT coalesce(a.Address,'')||'/'||coalesce(a.City,'')||'/'||"
                           "coalesce(a.Country,'') AS k FROM Customers c JOIN Addresses a ON a.AddressID = c.AddressID "
                           "ORDER BY c.CustomerID)",
                  "before": "SELECT group_concat(k, '|') FROM (SELECT coalesce(Address,'')||'/'||coalesce(City,'')||'/'||"
                            "coalesce(Country,'') AS k FROM Customers ORDER BY CustomerID)"},
                 {"check": "SELECT group_concat(k, '|') FROM (SELECT coalesce(a.Address,'')||'/'||coalesce(a.City,'')||'/'||"
                           "coalesce(a.Country,'') AS k FROM Suppliers s JOIN Addresses a ON a.AddressID = s.AddressID "
                           "ORDER BY s.SupplierID)",
                  "before": "SELECT group_concat(k, '|') FROM (SELECT coalesce(Address,'')||'/'||coalesce(City,'')||'/'||"
                            "coalesce(Country,'') AS k FROM Suppliers ORDER BY SupplierID)"},
                 {"check": "SELECT count(*) FROM \"Customer and Suppliers by City\""},
                 {"check": "SELECT count(*) FROM Invoices"},
                 {"check": "SELECT count(*) FROM \"Orders Qry\""}],
         touches=["Addresses"]),
    dict(name="northwind-products-audit", size="complex", kind="checklist",
         prompt="Audit the products: create a table ProductsAudit (AuditID INTEGER PRIMARY KEY, ProductID, Operation, "
                "ChangedAt, OldUnitPrice, NewUnitPrice) and triggers that record every insert, update and delete "
                "on Products.",
         checks=[{"table": "ProductsAudit", "exists": True},
                 {"check": "SELECT count(*) FROM ProductsAudit", "equals": 0},
                 {"trigger_on": "Products"},
                 {"run": ["UPDATE Products SET UnitPrice = UnitPrice + 1 WHERE ProductID = 1"],
                  "check": "SELECT count(*) FROM ProductsAudit WHERE ProductID = 1 AND NewUnitPrice > OldUnitPrice",
                  "equals": 1},
                 {"run": ["INSERT INTO Products (ProductID, ProductName, UnitPrice, Discontinued) VALUES (1000, 'Test', 3, '0')"],
                  "check": "SELECT count(*) FROM ProductsAudit WHERE ProductID = 1000", "equals": 1},
                 {"run": ["INSERT INTO Products (ProductID, ProductName, UnitPrice, Discontinued) VALUES (1000, 'Test', 3, '0')",
                          "DELETE FROM Products WHERE ProductID = 1000"],
                  "check": "SELECT count(*) FROM ProductsAudit WHERE ProductID = 1000", "equals": 2}],
         touches=["ProductsAudit"],
         solution="""
CREATE TABLE ProductsAudit (
  AuditID INTEGER PRIMARY KEY, ProductID INTEGER NOT NULL, Operation TEXT NOT NULL,
  ChangedAt DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, OldUnitPrice NUMERIC, NewUnitPrice NUMERIC);
CREATE TRIGGER Products_audit_insert AFTER INSERT ON Products BEGIN
  INSERT INTO ProductsAudit (ProductID, Operation, NewUnitPrice) VALUES (new.ProductID, 'INSERT', new.UnitPrice); END;
CREATE TRIGGER Products_audit_update AFTER UPDATE ON Products BEGIN
  INSERT INTO ProductsAudit (ProductID, Operation, OldUnitPrice, NewUnitPrice)
  VALUES (new.ProductID, 'UPDATE', old.UnitPrice, new.UnitPrice); END;
CREATE TRIGGER Products_audit_delete AFTER DELETE ON Products BEGIN
  INSERT INTO ProductsAudit (ProductID, Operation, OldUnitPrice) VALUES (old.ProductID, 'DELETE', old.UnitPrice); END;
"""),
    dict(name="northwind-unclear-cleanup", size="complex", kind="question", unclear=True,
         prompt="Clean up this schema, it's a mess."),
]

HR = [
    dict(name="hr-it-manager", size="simple", kind="answer",
         prompt="Who manages the IT department?",
         answer="SELECT e.last_name FROM departments d JOIN employees e ON e.employee_id = d.manager_id "
                "WHERE d.department_name = 'IT'"),
    dict(name="hr-high-earners", size="simple", kind="answer",
         prompt="How many employees earn more than 10000?",
         answer="SELECT count(*) FROM employees WHERE salary > 10000"),
    dict(name="hr-middle-name", size="simple", kind="answer",
         prompt="Add a middle_name column to employees.",
         checks=[{"column": "employees.middle_name", "exists": True},
                 {"check": "SELECT count(*) FROM emp_details_view"},
                 {"check": "SELECT sum(salary) FROM employees"}],
         solution="ALTER TABLE employees ADD COLUMN middle_name VARCHAR(20);"),
    dict(name="hr-unique-department-name", size="simple", kind="answer",
         prompt="Department names must be unique: add a unique index on departments.department_name.",
         checks=[{"index_on": "departments", "columns": ["department_name"], "unique": True},
                 {"fails": "INSERT INTO departments (department_id, department_name) "
                           "SELECT 9990, department_name FROM departments LIMIT 1"}],
         solution="CREATE UNIQUE INDEX dept_name_uk ON departments (department_name);"),
    dict(name="hr-salary-history", size="complex", kind="checklist",
         prompt="Keep salaries with their history: create a table salaries (employee_id referencing employees, "
                "amount, valid_from DATE, valid_to DATE NULL while current) holding each employee's current salary "
                "from their hire date, then drop employees.salary, keeping emp_details_view working with the current "
                "salary.",
         checks=[{"table": "salaries", "exists": True},
                 {"check": "SELECT count(*) FROM salaries", "before": "SELECT count(salary) FROM employees"},
                 {"check": "SELECT sum(amount) FROM salaries WHERE valid_to IS NULL",
                  "before": "SELECT sum(salary) FROM employees"},
                 {"foreign_key": "salaries.employee_id", "references": "employees"},
                 {"column": "employees.salary", "exists": False},
                 {"check": "SELECT count(*) FROM emp_details_view"},
                 {"check": "SELECT sum(salary) FROM emp_details_view"},
                 {"check": "SELECT count(*) FROM salaries s JOIN employees e ON e.employee_id = s.employee_id "
                           "WHERE s.valid_from = e.hire_date", "before": "SELECT count(salary) FROM employees"}],
         touches=["salaries"],
         solution="""
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE salaries (
  employee_id INTEGER NOT NULL REFERENCES employees (employee_id),
  amount NUMERIC(8,2) NOT NULL CHECK (amount > 0),
  valid_from DATE NOT NULL,
  valid_to DATE,
  PRIMARY KEY (employee_id, valid_from));
INSERT INTO salaries (employee_id, amount, valid_from) SELECT employee_id, salary, hire_date FROM employees
  WHERE salary IS NOT NULL;
DROP VIEW emp_details_view;
CREATE TABLE employees_new (
  employee_id INTEGER NOT NULL PRIMARY KEY,
  first_name VARCHAR(20),
  last_name VARCHAR(25) NOT NULL,
  email VARCHAR(25) NOT NULL UNIQUE,
  phone_number VARCHAR(20),
  hire_date DATE NOT NULL,
  job_id VARCHAR(10) NOT NULL REFERENCES jobs (job_id),
  commission_pct NUMERIC(2,2),
  manager_id INTEGER REFERENCES employees (employee_id),
  department_id INTEGER REFERENCES departments (department_id));
INSERT INTO employees_new SELECT employee_id, first_name, last_name, email, phone_number, hire_date, job_id,
  commission_pct, manager_id, department_id FROM employees;
DROP TABLE employees;
ALTER TABLE employees_new RENAME TO employees;
CREATE INDEX emp_department_ix ON employees (department_id);
CREATE INDEX emp_job_ix ON employees (job_id);
CREATE INDEX emp_manager_ix ON employees (manager_id);
CREATE INDEX emp_name_ix ON employees (last_name, first_name);
CREATE VIEW emp_details_view AS
SELECT e.employee_id, e.job_id, e.manager_id, e.department_id, d.location_id, l.country_id,
       e.first_name, e.last_name, s.amount AS salary, e.commission_pct, d.department_name, j.job_title,
       l.city, l.state_province, c.country_name, r.region_name
FROM employees e
JOIN departments d ON e.department_id = d.department_id
JOIN jobs j ON j.job_id = e.job_id
JOIN locations l ON d.location_id = l.location_id
JOIN countries c ON l.country_id = c.country_id
JOIN regions r ON c.region_id = r.region_id
LEFT JOIN salaries s ON s.employee_id = e.employee_id AND s.valid_to IS NULL;
COMMIT;
PRAGMA foreign_keys = ON;
"""),
    dict(name="hr-employee-status", size="complex", kind="checklist",
         prompt="Add employment statuses: a table employee_statuses (status_id INTEGER PRIMARY KEY, name TEXT NOT NULL "
                "UNIQUE) with 'active', 'on_leave' and 'terminated', and a status_id column on employees referencing "
                "it, set to active for everyone.",
         checks=[{"check": "SELECT count(*) FROM employee_statuses", "equals": 3},
                 {"check": "SELECT count(*) FROM employee_statuses WHERE name IN ('active', 'on_leave', 'terminated')",
                  "equals": 3},
                 {"foreign_key": "employees.status_id", "references": "employee_statuses"},
                 {"check": "SELECT count(*) FROM employees e JOIN employee_statuses s ON s.status_id = e.status_id "
                           "WHERE s.name = 'active'", "before": "SELECT count(*) FROM employees"}],
         touches=["employee_statuses"],
         solution="""
CREATE TABLE employee_statuses (status_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO employee_statuses (status_id, name) VALUES (1, 'active'), (2, 'on_leave'), (3, 'terminated');
ALTER TABLE employees ADD COLUMN status_id INTEGER NOT NULL DEFAULT 1 REFERENCES employee_statuses (status_id);
CREATE INDEX emp_status_ix ON employees (status_id);
"""),
    dict(name="hr-job-history-trigger", size="complex", kind="checklist",
         prompt="When an employee's job_id changes, record the job they leave in job_history with a trigger: "
                "start_date is the day after their last job_history end_date, or else their hire_date; end_date is "
                "today; job_id and department_id are the old ones.",
         checks=[{"trigger_on": "employees"},
                 {"run": ["UPDATE employees SET job_id = 'IT_PROG' WHERE employee_id = 100"],
                  "check": "SELECT count(*) FROM job_history WHERE employee_id = 100 AND job_id = 'AD_PRES' "
                           "AND start_date = '2013-06-17' AND end_date = date('now')", "equals": 1},
                 {"run": ["UPDATE employees SET phone_number = phone_number WHERE employee_id = 101"],
                  "check": "SELECT count(*) FROM job_history WHERE employee_id = 101",
                  "before": "SELECT count(*) FROM job_history WHERE employee_id = 101"}],
         solution="""
CREATE TRIGGER employees_job_changed AFTER UPDATE OF job_id ON employees
WHEN old.job_id IS NOT new.job_id
BEGIN
  INSERT INTO job_history (employee_id, start_date, end_date, job_id, department_id)
  VALUES (old.employee_id,
          coalesce((SELECT date(max(end_date), '+1 day') FROM job_history WHERE employee_id = old.employee_id),
                   old.hire_date),
          date('now'), old.job_id, old.department_id);
END;
"""),
    dict(name="hr-unclear-organise", size="complex", kind="question", unclear=True,
         prompt="Employees need better organisation."),
    dict(name="hr-unclear-remove-old", size="complex", kind="question", unclear=True,
         prompt="Remove the old data."),
]

JAFFLE = [
    dict(name="jaffle-completed-orders", size="simple", kind="answer",
         prompt="How many orders are completed?",
         answer="SELECT count(*) FROM orders WHERE status = 'completed'"),
    dict(name="jaffle-total-payments", size="simple", kind="answer",
         prompt="What is the total of all payments in dollars? The amounts are stored in cents.",
         answer_regex=r"1,?672(\.00?)?\b"),
    dict(name="jaffle-customer-email", size="simple", kind="answer",
         prompt="Add an email column to customers.",
         checks=[{"column": "customers.email", "exists": True},
                 {"check": "SELECT group_concat(last_name, '|') FROM (SELECT last_name FROM customers ORDER BY id)"}],
         solution="ALTER TABLE customers ADD COLUMN email VARCHAR(100);"),
    dict(name="jaffle-index-status", size="simple", kind="answer",
         prompt="Add an index on orders.status.",
         checks=[{"index_on": "orders", "columns": ["status"]}],
         solution="CREATE INDEX orders_status_ix ON orders (status);"),
    dict(name="jaffle-rename-user-id", size="simple", kind="answer",
         prompt="Rename orders.user_id to customer_id, keeping its foreign key and index.",
         checks=[{"column": "orders.user_id", "exists": False},
                 {"foreign_key": "orders.customer_id", "references": "customers"},
                 {"index_on": "orders", "columns": ["customer_id"]},
                 {"check": "SELECT group_concat(customer_id, ',') FROM (SELECT customer_id FROM orders ORDER BY id)",
                  "before": "SELECT group_concat(user_id, ',') FROM (SELECT user_id FROM orders ORDER BY id)"}],
         solution="ALTER TABLE orders RENAME COLUMN user_id TO customer_id;"),
    dict(name="jaffle-full-name", size="simple", kind="answer",
         prompt="Add a full_name column to customers computed from first_name and last_name (first, a space, last).",
         checks=[{"check": "SELECT group_concat(full_name, '|') FROM (SELECT full_name FROM customers ORDER BY id)",
                  "before": "SELECT group_concat(n, '|') FROM (SELECT first_name || ' ' || last_name AS n "
                            "FROM customers ORDER BY id)"}],
         solution="ALTER TABLE customers ADD COLUMN full_name TEXT GENERATED ALWAYS AS (first_name || ' ' || last_name) VIRTUAL;"),
    dict(name="jaffle-amount-dollars", size="complex", kind="checklist",
         prompt="payments.amount holds cents as an integer. Replace it with amount_usd NUMERIC(10,2) holding dollars, "
                "keeping every value, and drop the cents column.",
         checks=[{"column": "payments.amount", "exists": False},
                 {"check": "SELECT count(amount_usd) FROM payments", "before": "SELECT count(amount) FROM payments"},
                 {"check": "SELECT round(sum(amount_usd), 2) FROM payments", "before": "SELECT sum(amount) / 100.0 FROM payments"},
                 {"check": "SELECT group_concat(c, ',') FROM (SELECT CAST(round(amount_usd * 100) AS INTEGER) AS c "
                           "FROM payments ORDER BY id)",
                  "before": "SELECT group_concat(amount, ',') FROM (SELECT amount FROM payments ORDER BY id)"}],
         solution="""
ALTER TABLE payments ADD COLUMN amount_usd NUMERIC(10,2);
UPDATE payments SET amount_usd = amount / 100.0;
ALTER TABLE payments DROP COLUMN amount;
"""),
    dict(name="jaffle-payment-methods", size="complex", kind="checklist",
         prompt="Payment methods are free text in payments. Introduce a table payment_methods (id INTEGER PRIMARY KEY, "
                "name TEXT NOT NULL UNIQUE), replace payments.payment_method with payment_method_id referencing it, "
                "and migrate the data.",
         checks=[{"check": "SELECT count(*) FROM payment_methods", "before": "SELECT count(DISTINCT payment_method) FROM payments"},
                 {"column": "payments.payment_method", "exists": False},
                 {"foreign_key": "payments.payment_method_id", "references": "payment_methods"},
                 {"check": "SELECT group_concat(m.name, ',') FROM (SELECT m.name FROM payments p "
                           "JOIN payment_methods m ON m.id = p.payment_method_id ORDER BY p.id) m",
                  "before": "SELECT group_concat(payment_method, ',') FROM (SELECT payment_method FROM payments ORDER BY id)"}],
         touches=["payment_methods"],
         solution="""
CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO payment_methods (name) SELECT DISTINCT payment_method FROM payments ORDER BY payment_method;
ALTER TABLE payments ADD COLUMN payment_method_id INTEGER REFERENCES payment_methods (id);
UPDATE payments SET payment_method_id = (SELECT id FROM payment_methods WHERE name = payments.payment_method);
ALTER TABLE payments DROP COLUMN payment_method;
CREATE INDEX payments_payment_method_id_ix ON payments (payment_method_id);
"""),
    dict(name="jaffle-status-history", size="complex", kind="checklist",
         prompt="Keep the history of order statuses: a table order_status_history (order_id referencing orders, "
                "old_status, new_status, changed_at) filled by a trigger whenever an order's status changes.",
         checks=[{"table": "order_status_history", "exists": True},
                 {"check": "SELECT count(*) FROM order_status_history", "equals": 0},
                 {"trigger_on": "orders"},
                 {"run": ["UPDATE orders SET status = 'return_pending' WHERE id = 1"],
                  "check": "SELECT count(*) FROM order_status_history WHERE order_id = 1 AND old_status = 'returned' "
                           "AND new_status = 'return_pending'",
                  "equals": 1}],
         touches=["order_status_history"],
         solution="""
CREATE TABLE order_status_history (
  order_id INTEGER NOT NULL REFERENCES orders (id), old_status VARCHAR(20), new_status VARCHAR(20) NOT NULL,
  changed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX order_status_history_order_id_ix ON order_status_history (order_id);
CREATE TRIGGER orders_status_changed AFTER UPDATE OF status ON orders WHEN old.status IS NOT new.status
BEGIN
  INSERT INTO order_status_history (order_id, old_status, new_status) VALUES (new.id, old.status, new.status);
END;
"""),
    dict(name="jaffle-unclear-faster", size="complex", kind="question", unclear=True,
         prompt="Make the orders table faster."),
]
