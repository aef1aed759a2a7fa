-- hr: a bounded sample (at most 300 rows a table) of oracle-samples/db-sample-schemas at 6660bad68c07, made by benches/db-design/tools/make_schemas.py; see SOURCES.md for its license.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE regions (
  region_id INTEGER NOT NULL PRIMARY KEY,
  region_name VARCHAR(25)
);
CREATE TABLE countries (
  country_id CHAR(2) NOT NULL PRIMARY KEY,
  country_name VARCHAR(60),
  region_id INTEGER REFERENCES regions (region_id)
);
CREATE TABLE locations (
  location_id INTEGER NOT NULL PRIMARY KEY,
  street_address VARCHAR(40),
  postal_code VARCHAR(12),
  city VARCHAR(30) NOT NULL,
  state_province VARCHAR(25),
  country_id CHAR(2) REFERENCES countries (country_id)
);
CREATE TABLE departments (
  department_id INTEGER NOT NULL PRIMARY KEY,
  department_name VARCHAR(30) NOT NULL,
  manager_id INTEGER REFERENCES employees (employee_id),
  location_id INTEGER REFERENCES locations (location_id)
);
CREATE TABLE jobs (
  job_id VARCHAR(10) NOT NULL PRIMARY KEY,
  job_title VARCHAR(35) NOT NULL,
  min_salary INTEGER,
  max_salary INTEGER
);
CREATE TABLE employees (
  employee_id INTEGER NOT NULL PRIMARY KEY,
  first_name VARCHAR(20),
  last_name VARCHAR(25) NOT NULL,
  email VARCHAR(25) NOT NULL UNIQUE,
  phone_number VARCHAR(20),
  hire_date DATE NOT NULL,
  job_id VARCHAR(10) NOT NULL REFERENCES jobs (job_id),
  salary NUMERIC(8,2) CHECK (salary > 0),
  commission_pct NUMERIC(2,2),
  manager_id INTEGER REFERENCES employees (employee_id),
  department_id INTEGER REFERENCES departments (department_id)
);
CREATE TABLE job_history (
  employee_id INTEGER NOT NULL REFERENCES employees (employee_id),
  start_date DATE NOT NULL,
  end_date DATE NOT NULL,
  job_id VARCHAR(10) NOT NULL REFERENCES jobs (job_id),
  department_id INTEGER REFERENCES departments (department_id),
  PRIMARY KEY (employee_id, start_date),
  CHECK (end_date > start_date)
);
INSERT INTO "regions" ("region_id", "region_name") VALUES (10, 'Europe');
INSERT INTO "regions" ("region_id", "region_name") VALUES (20, 'Americas');
INSERT INTO "regions" ("region_id", "region_name") VALUES (30, 'Asia');
INSERT INTO "regions" ("region_id", "region_name") VALUES (40, 'Oceania');
INSERT INTO "regions" ("region_id", "region_name") VALUES (50, 'Africa');
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('IT', 'Italy', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('JP', 'Japan', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('US', 'United States of America', 20);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('CA', 'Canada', 20);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('CN', 'China', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('IN', 'India', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('AU', 'Australia', 40);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('ZW', 'Zimbabwe', 50);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('SG', 'Singapore', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('GB', 'United Kingdom of Great Britain and Northern Ireland', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('FR', 'France', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('DE', 'Germany', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('ZM', 'Zambia', 50);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('EG', 'Egypt', 50);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('BR', 'Brazil', 20);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('CH', 'Switzerland', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('NL', 'Netherlands', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('MX', 'Mexico', 20);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('KW', 'Kuwait', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('IL', 'Israel', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('DK', 'Denmark', 10);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('ML', 'Malaysia', 30);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('NG', 'Nigeria', 50);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('AR', 'Argentina', 20);
INSERT INTO "countries" ("country_id", "country_name", "region_id") VALUES ('BE', 'Belgium', 10);
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1000, '1297 Via Cola di Rie', '00989', 'Roma', NULL, 'IT');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1100, '93091 Calle della Testa', '10934', 'Venice', NULL, 'IT');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1200, '2017 Shinjuku-ku', '1689', 'Tokyo', 'Tokyo Prefecture', 'JP');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1300, '9450 Kamiya-cho', '6823', 'Hiroshima', NULL, 'JP');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1400, '2014 Jabberwocky Rd', '26192', 'Southlake', 'Texas', 'US');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1500, '2011 Interiors Blvd', '99236', 'South San Francisco', 'California', 'US');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1600, '2007 Zagora St', '50090', 'South Brunswick', 'New Jersey', 'US');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1700, '2004 Charade Rd', '98199', 'Seattle', 'Washington', 'US');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1800, '147 Spadina Ave', 'M5V 2L7', 'Toronto', 'Ontario', 'CA');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (1900, '6092 Boxwood St', 'YSW 9T2', 'Whitehorse', 'Yukon', 'CA');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2000, '40-5-12 Laogianggen', '190518', 'Beijing', NULL, 'CN');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2100, '1298 Vileparle (E)', '490231', 'Bombay', 'Maharashtra', 'IN');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2200, '12-98 Victoria Street', '2901', 'Sydney', 'New South Wales', 'AU');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2300, '198 Clementi North', '540198', 'Singapore', NULL, 'SG');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2400, '8204 Arthur St', NULL, 'London', NULL, 'GB');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2500, 'Magdalen Centre, The Oxford Science Park', 'OX9 9ZB', 'Oxford', 'Oxford', 'GB');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2600, '9702 Chester Road', '09629850293', 'Stretford', 'Manchester', 'GB');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2700, 'Schwanthalerstr. 7031', '80925', 'Munich', 'Bavaria', 'DE');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2800, 'Rua Frei Caneca 1360 ', '01307-002', 'Sao Paulo', 'Sao Paulo', 'BR');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (2900, '20 Rue des Corps-Saints', '1730', 'Geneva', 'Geneve', 'CH');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (3000, 'Murtenstrasse 921', '3095', 'Bern', 'BE', 'CH');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (3100, 'Pieter Breughelstraat 837', '3029SK', 'Utrecht', 'Utrecht', 'NL');
INSERT INTO "locations" ("location_id", "street_address", "postal_code", "city", "state_province", "country_id") VALUES (3200, 'Mariano Escobedo 9991', '11932', 'Mexico City', 'Distrito Federal', 'MX');
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (10, 'Administration', 200, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (20, 'Marketing', 201, 1800);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (30, 'Purchasing', 114, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (40, 'Human Resources', 203, 2400);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (50, 'Shipping', 121, 1500);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (60, 'IT', 103, 1400);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (70, 'Public Relations', 204, 2700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (80, 'Sales', 145, 2500);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (90, 'Executive', 100, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (100, 'Finance', 108, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (110, 'Accounting', 205, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (120, 'Treasury', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (130, 'Corporate Tax', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (140, 'Control And Credit', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (150, 'Shareholder Services', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (160, 'Benefits', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (170, 'Manufacturing', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (180, 'Construction', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (190, 'Contracting', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (200, 'Operations', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (210, 'IT Support', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (220, 'NOC', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (230, 'IT Helpdesk', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (240, 'Government Sales', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (250, 'Retail Sales', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (260, 'Recruiting', NULL, 1700);
INSERT INTO "departments" ("department_id", "department_name", "manager_id", "location_id") VALUES (270, 'Payroll', NULL, 1700);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('AD_PRES', 'President', 20080, 40000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('AD_VP', 'Administration Vice President', 15000, 30000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('AD_ASST', 'Administration Assistant', 3000, 6000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('FI_MGR', 'Finance Manager', 8200, 16000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('FI_ACCOUNT', 'Accountant', 4200, 9000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('AC_MGR', 'Accounting Manager', 8200, 16000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('AC_ACCOUNT', 'Public Accountant', 4200, 9000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('SA_MAN', 'Sales Manager', 10000, 20080);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('SA_REP', 'Sales Representative', 6000, 12008);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('PU_MAN', 'Purchasing Manager', 8000, 15000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('PU_CLERK', 'Purchasing Clerk', 2500, 5500);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('ST_MAN', 'Stock Manager', 5500, 8500);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('ST_CLERK', 'Stock Clerk', 2008, 5000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('SH_CLERK', 'Shipping Clerk', 2500, 5500);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('IT_PROG', 'Programmer', 4000, 10000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('MK_MAN', 'Marketing Manager', 9000, 15000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('MK_REP', 'Marketing Representative', 4000, 9000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('HR_REP', 'Human Resources Representative', 4000, 9000);
INSERT INTO "jobs" ("job_id", "job_title", "min_salary", "max_salary") VALUES ('PR_REP', 'Public Relations Representative', 4500, 10500);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (100, 'Steven', 'King', 'SKING', '1.515.555.0100', '2013-06-17', 'AD_PRES', 24000, NULL, NULL, 90);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (101, 'Neena', 'Yang', 'NYANG', '1.515.555.0101', '2015-09-21', 'AD_VP', 17000, NULL, 100, 90);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (102, 'Lex', 'Garcia', 'LGARCIA', '1.515.555.0102', '2011-01-13', 'AD_VP', 17000, NULL, 100, 90);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (103, 'Alexander', 'James', 'AJAMES', '1.590.555.0103', '2016-01-03', 'IT_PROG', 9000, NULL, 102, 60);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (104, 'Bruce', 'Miller', 'BMILLER', '1.590.555.0104', '2017-05-21', 'IT_PROG', 6000, NULL, 103, 60);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (105, 'David', 'Williams', 'DWILLIAMS', '1.590.555.0105', '2015-06-25', 'IT_PROG', 4800, NULL, 103, 60);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (106, 'Valli', 'Jackson', 'VJACKSON', '1.590.555.0106', '2016-02-05', 'IT_PROG', 4800, NULL, 103, 60);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (107, 'Diana', 'Nguyen', 'DNGUYEN', '1.590.555.0107', '2017-02-07', 'IT_PROG', 4200, NULL, 103, 60);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (108, 'Nancy', 'Gruenberg', 'NGRUENBE', '1.515.555.0108', '2012-08-17', 'FI_MGR', 12008, NULL, 101, 100);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (109, 'Daniel', 'Faviet', 'DFAVIET', '1.515.555.0109', '2012-08-16', 'FI_ACCOUNT', 9000, NULL, 108, 100);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (110, 'John', 'Chen', 'JCHEN', '1.515.555.0110', '2015-09-28', 'FI_ACCOUNT', 8200, NULL, 108, 100);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (111, 'Ismael', 'Sciarra', 'ISCIARRA', '1.515.555.0111', '2015-09-30', 'FI_ACCOUNT', 7700, NULL, 108, 100);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (112, 'Jose Manuel', 'Urman', 'JMURMAN', '1.515.555.0112', '2016-03-07', 'FI_ACCOUNT', 7800, NULL, 108, 100);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (113, 'Luis', 'Popp', 'LPOPP', '1.515.555.0113', '2017-12-07', 'FI_ACCOUNT', 6900, NULL, 108, 100);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (114, 'Den', 'Li', 'DLI', '1.515.555.0114', '2012-12-07', 'PU_MAN', 11000, NULL, 100, 30);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (115, 'Alexander', 'Khoo', 'AKHOO', '1.515.555.0115', '2013-05-18', 'PU_CLERK', 3100, NULL, 114, 30);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (116, 'Shelli', 'Baida', 'SBAIDA', '1.515.555.0116', '2015-12-24', 'PU_CLERK', 2900, NULL, 114, 30);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (117, 'Sigal', 'Tobias', 'STOBIAS', '1.515.555.0117', '2015-07-24', 'PU_CLERK', 2800, NULL, 114, 30);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (118, 'Guy', 'Himuro', 'GHIMURO', '1.515.555.0118', '2016-11-15', 'PU_CLERK', 2600, NULL, 114, 30);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (119, 'Karen', 'Colmenares', 'KCOLMENA', '1.515.555.0119', '2017-08-10', 'PU_CLERK', 2500, NULL, 114, 30);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (120, 'Matthew', 'Weiss', 'MWEISS', '1.650.555.0120', '2014-07-18', 'ST_MAN', 8000, NULL, 100, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (121, 'Adam', 'Fripp', 'AFRIPP', '1.650.555.0121', '2015-04-10', 'ST_MAN', 8200, NULL, 100, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (122, 'Payam', 'Kaufling', 'PKAUFLIN', '1.650.555.0122', '2013-05-01', 'ST_MAN', 7900, NULL, 100, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (123, 'Shanta', 'Vollman', 'SVOLLMAN', '1.650.555.0123', '2015-10-10', 'ST_MAN', 6500, NULL, 100, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (124, 'Kevin', 'Mourgos', 'KMOURGOS', '1.650.555.0124', '2017-11-16', 'ST_MAN', 5800, NULL, 100, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (125, 'Julia', 'Nayer', 'JNAYER', '1.650.555.0125', '2015-07-16', 'ST_CLERK', 3200, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (126, 'Irene', 'Mikkilineni', 'IMIKKILI', '1.650.555.0126', '2016-09-28', 'ST_CLERK', 2700, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (127, 'James', 'Landry', 'JLANDRY', '1.650.555.0127', '2017-01-14', 'ST_CLERK', 2400, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (128, 'Steven', 'Markle', 'SMARKLE', '1.650.555.0128', '2018-03-08', 'ST_CLERK', 2200, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (129, 'Laura', 'Bissot', 'LBISSOT', '1.650.555.0129', '2015-08-20', 'ST_CLERK', 3300, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (130, 'Mozhe', 'Atkinson', 'MATKINSO', '1.650.555.0130', '2015-10-30', 'ST_CLERK', 2800, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (131, 'James', 'Marlow', 'JAMRLOW', '1.650.555.0131', '2015-02-16', 'ST_CLERK', 2500, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (132, 'TJ', 'Olson', 'TJOLSON', '1.650.555.0132', '2017-04-10', 'ST_CLERK', 2100, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (133, 'Jason', 'Mallin', 'JMALLIN', '1.650.555.0133', '2014-06-14', 'ST_CLERK', 3300, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (134, 'Michael', 'Rogers', 'MROGERS', '1.650.555.0134', '2016-08-26', 'ST_CLERK', 2900, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (135, 'Ki', 'Gee', 'KGEE', '1.650.555.0135', '2017-12-12', 'ST_CLERK', 2400, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (136, 'Hazel', 'Philtanker', 'HPHILTAN', '1.650.555.0136', '2018-02-06', 'ST_CLERK', 2200, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (137, 'Renske', 'Ladwig', 'RLADWIG', '1.650.555.0137', '2013-07-14', 'ST_CLERK', 3600, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (138, 'Stephen', 'Stiles', 'SSTILES', '1.650.555.0138', '2015-10-26', 'ST_CLERK', 3200, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (139, 'John', 'Seo', 'JSEO', '1.650.555.0139', '2016-02-12', 'ST_CLERK', 2700, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (140, 'Joshua', 'Patel', 'JPATEL', '1.650.555.0140', '2016-04-06', 'ST_CLERK', 2500, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (141, 'Trenna', 'Rajs', 'TRAJS', '1.650.555.0141', '2013-10-17', 'ST_CLERK', 3500, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (142, 'Curtis', 'Davies', 'CDAVIES', '1.650.555.0142', '2015-01-29', 'ST_CLERK', 3100, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (143, 'Randall', 'Matos', 'RMATOS', '1.650.555.0143', '2016-03-15', 'ST_CLERK', 2600, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (144, 'Peter', 'Vargas', 'PVARGAS', '1.650.555.0144', '2016-07-09', 'ST_CLERK', 2500, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (145, 'John', 'Singh', 'JSINGH', '44.1632.960000', '2014-10-01', 'SA_MAN', 14000, 0.4, 100, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (146, 'Karen', 'Partners', 'KPARTNER', '44.1632.960001', '2015-01-05', 'SA_MAN', 13500, 0.3, 100, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (147, 'Alberto', 'Errazuriz', 'AERRAZUR', '44.1632.960002', '2015-03-10', 'SA_MAN', 12000, 0.3, 100, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (148, 'Gerald', 'Cambrault', 'GCAMBRAU', '44.1632.960003', '2017-10-15', 'SA_MAN', 11000, 0.3, 100, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (149, 'Eleni', 'Zlotkey', 'EZLOTKEY', '44.1632.960004', '2018-01-29', 'SA_MAN', 10500, 0.2, 100, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (150, 'Sean', 'Tucker', 'STUCKER', '44.1632.960005', '2015-01-30', 'SA_REP', 10000, 0.3, 145, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (151, 'David', 'Bernstein', 'DBERNSTE', '44.1632.960006', '2015-03-24', 'SA_REP', 9500, 0.25, 145, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (152, 'Peter', 'Hall', 'PHALL', '44.1632.960007', '2015-08-20', 'SA_REP', 9000, 0.25, 145, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (153, 'Christopher', 'Olsen', 'COLSEN', '44.1632.960008', '2016-03-30', 'SA_REP', 8000, 0.2, 145, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (154, 'Nanette', 'Cambrault', 'NCAMBRAU', '44.1632.960009', '2016-12-09', 'SA_REP', 7500, 0.2, 145, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (155, 'Oliver', 'Tuvault', 'OTUVAULT', '44.1632.960010', '2017-11-23', 'SA_REP', 7000, 0.15, 145, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (156, 'Janette', 'King', 'JKING', '44.1632.960011', '2014-01-30', 'SA_REP', 10000, 0.35, 146, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (157, 'Patrick', 'Sully', 'PSULLY', '44.1632.960012', '2014-03-04', 'SA_REP', 9500, 0.35, 146, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (158, 'Allan', 'McEwen', 'AMCEWEN', '44.1632.960013', '2014-08-01', 'SA_REP', 9000, 0.35, 146, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (159, 'Lindsey', 'Smith', 'LSMITH', '44.1632.960014', '2015-03-10', 'SA_REP', 8000, 0.3, 146, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (160, 'Louise', 'Doran', 'LDORAN', '44.1632.960015', '2015-12-15', 'SA_REP', 7500, 0.3, 146, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (161, 'Sarath', 'Sewall', 'SSEWALL', '44.1632.960016', '2016-11-03', 'SA_REP', 7000, 0.25, 146, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (162, 'Clara', 'Vishney', 'CVISHNEY', '44.1632.960017', '2015-11-11', 'SA_REP', 10500, 0.25, 147, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (163, 'Danielle', 'Greene', 'DGREENE', '44.1632.960018', '2017-03-19', 'SA_REP', 9500, 0.15, 147, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (164, 'Mattea', 'Marvins', 'MMARVINS', '44.1632.960019', '2018-01-24', 'SA_REP', 7200, 0.1, 147, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (165, 'David', 'Lee', 'DLEE', '44.1632.960020', '2018-02-23', 'SA_REP', 6800, 0.1, 147, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (166, 'Sundar', 'Ande', 'SANDE', '44.1632.960021', '2018-03-24', 'SA_REP', 6400, 0.1, 147, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (167, 'Amit', 'Banda', 'ABANDA', '44.1632.960022', '2018-04-21', 'SA_REP', 6200, 0.1, 147, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (168, 'Lisa', 'Ozer', 'LOZER', '44.1632.960023', '2015-03-11', 'SA_REP', 11500, 0.25, 148, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (169, 'Harrison', 'Bloom', 'HBLOOM', '44.1632.960024', '2016-03-23', 'SA_REP', 10000, 0.2, 148, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (170, 'Tayler', 'Fox', 'TFOX', '44.1632.960025', '2016-01-24', 'SA_REP', 9600, 0.2, 148, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (171, 'William', 'Smith', 'WSMITH', '44.1632.960026', '2017-02-23', 'SA_REP', 7400, 0.15, 148, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (172, 'Elizabeth', 'Bates', 'EBATES', '44.1632.960027', '2017-03-24', 'SA_REP', 7300, 0.15, 148, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (173, 'Sundita', 'Kumar', 'SKUMAR', '44.1632.960028', '2018-04-21', 'SA_REP', 6100, 0.1, 148, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (174, 'Ellen', 'Abel', 'EABEL', '44.1632.960029', '2014-05-11', 'SA_REP', 11000, 0.3, 149, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (175, 'Alyssa', 'Hutton', 'AHUTTON', '44.1632.960030', '2015-03-19', 'SA_REP', 8800, 0.25, 149, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (176, 'Jonathon', 'Taylor', 'JTAYLOR', '44.1632.960031', '2016-03-24', 'SA_REP', 8600, 0.2, 149, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (177, 'Jack', 'Livingston', 'JLIVINGS', '44.1632.960032', '2016-04-23', 'SA_REP', 8400, 0.2, 149, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (178, 'Kimberely', 'Grant', 'KGRANT', '44.1632.960033', '2017-05-24', 'SA_REP', 7000, 0.15, 149, NULL);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (179, 'Charles', 'Johnson', 'CJOHNSON', '44.1632.960034', '2018-01-04', 'SA_REP', 6200, 0.1, 149, 80);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (180, 'Winston', 'Taylor', 'WTAYLOR', '1.650.555.0145', '2016-01-24', 'SH_CLERK', 3200, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (181, 'Jean', 'Fleaur', 'JFLEAUR', '1.650.555.0146', '2016-02-23', 'SH_CLERK', 3100, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (182, 'Martha', 'Sullivan', 'MSULLIVA', '1.650.555.0147', '2017-06-21', 'SH_CLERK', 2500, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (183, 'Girard', 'Geoni', 'GGEONI', '1.650.555.0148', '2018-02-03', 'SH_CLERK', 2800, NULL, 120, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (184, 'Nandita', 'Sarchand', 'NSARCHAN', '1.650.555.0149', '2014-01-27', 'SH_CLERK', 4200, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (185, 'Alexis', 'Bull', 'ABULL', '1.650.555.0150', '2015-02-20', 'SH_CLERK', 4100, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (186, 'Julia', 'Dellinger', 'JDELLING', '1.650.555.0151', '2016-06-24', 'SH_CLERK', 3400, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (187, 'Anthony', 'Cabrio', 'ACABRIO', '1.650.555.0152', '2017-02-07', 'SH_CLERK', 3000, NULL, 121, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (188, 'Kelly', 'Chung', 'KCHUNG', '1.650.555.0153', '2015-06-14', 'SH_CLERK', 3800, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (189, 'Jennifer', 'Dilly', 'JDILLY', '1.650.555.0154', '2015-08-13', 'SH_CLERK', 3600, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (190, 'Timothy', 'Venzl', 'TVENZL', '1.650.555.0155', '2016-07-11', 'SH_CLERK', 2900, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (191, 'Randall', 'Perkins', 'RPERKINS', '1.650.555.0156', '2017-12-19', 'SH_CLERK', 2500, NULL, 122, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (192, 'Sarah', 'Bell', 'SBELL', '1.650.555.0157', '2014-02-04', 'SH_CLERK', 4000, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (193, 'Britney', 'Everett', 'BEVERETT', '1.650.555.0158', '2015-03-03', 'SH_CLERK', 3900, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (194, 'Samuel', 'McLeod', 'SMCLEOD', '1.650.555.0159', '2016-07-01', 'SH_CLERK', 3200, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (195, 'Vance', 'Jones', 'VJONES', '1.650.555.0160', '2017-03-17', 'SH_CLERK', 2800, NULL, 123, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (196, 'Alana', 'Walsh', 'AWALSH', '1.650.555.0161', '2016-04-24', 'SH_CLERK', 3100, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (197, 'Kevin', 'Feeney', 'KFEENEY', '1.650.555.0162', '2016-05-23', 'SH_CLERK', 3000, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (198, 'Donald', 'OConnell', 'DOCONNEL', '1.650.555.0163', '2017-06-21', 'SH_CLERK', 2600, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (199, 'Douglas', 'Grant', 'DGRANT', '1.650.555.0164', '2018-01-13', 'SH_CLERK', 2600, NULL, 124, 50);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (200, 'Jennifer', 'Whalen', 'JWHALEN', '1.515.555.0165', '2013-09-17', 'AD_ASST', 4400, NULL, 101, 10);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (201, 'Michael', 'Martinez', 'MMARTINE', '1.515.555.0166', '2014-02-17', 'MK_MAN', 13000, NULL, 100, 20);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (202, 'Pat', 'Davis', 'PDAVIS', '1.603.555.0167', '2015-08-17', 'MK_REP', 6000, NULL, 201, 20);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (203, 'Susan', 'Jacobs', 'SJACOBS', '1.515.555.0168', '2012-06-07', 'HR_REP', 6500, NULL, 101, 40);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (204, 'Hermann', 'Brown', 'HBROWN', '1.515.555.0169', '2012-06-07', 'PR_REP', 10000, NULL, 101, 70);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (205, 'Shelley', 'Higgins', 'SHIGGINS', '1.515.555.0170', '2012-06-07', 'AC_MGR', 12008, NULL, 101, 110);
INSERT INTO "employees" ("employee_id", "first_name", "last_name", "email", "phone_number", "hire_date", "job_id", "salary", "commission_pct", "manager_id", "department_id") VALUES (206, 'William', 'Gietz', 'WGIETZ', '1.515.555.0171', '2012-06-07', 'AC_ACCOUNT', 8300, NULL, 205, 110);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (102, '2011-01-13', '2016-07-24', 'IT_PROG', 60);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (101, '2007-09-21', '2011-10-27', 'AC_ACCOUNT', 110);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (101, '2011-10-28', '2015-03-15', 'AC_MGR', 110);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (201, '2014-02-17', '2017-12-19', 'MK_REP', 20);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (114, '2016-03-24', '2017-12-31', 'ST_CLERK', 50);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (122, '2017-01-01', '2017-12-31', 'ST_CLERK', 50);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (200, '2005-09-17', '2011-06-17', 'AD_ASST', 90);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (176, '2016-03-24', '2016-12-31', 'SA_REP', 80);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (176, '2017-01-01', '2017-12-31', 'SA_MAN', 80);
INSERT INTO "job_history" ("employee_id", "start_date", "end_date", "job_id", "department_id") VALUES (200, '2012-07-01', '2016-12-31', 'AC_ACCOUNT', 90);
CREATE INDEX emp_department_ix ON employees (department_id);
CREATE INDEX emp_job_ix ON employees (job_id);
CREATE INDEX emp_manager_ix ON employees (manager_id);
CREATE INDEX emp_name_ix ON employees (last_name, first_name);
CREATE INDEX dept_location_ix ON departments (location_id);
CREATE INDEX jhist_job_ix ON job_history (job_id);
CREATE INDEX jhist_employee_ix ON job_history (employee_id);
CREATE INDEX jhist_department_ix ON job_history (department_id);
CREATE INDEX loc_city_ix ON locations (city);
CREATE INDEX loc_country_ix ON locations (country_id);
CREATE VIEW emp_details_view AS
SELECT e.employee_id, e.job_id, e.manager_id, e.department_id, d.location_id, l.country_id,
       e.first_name, e.last_name, e.salary, e.commission_pct, d.department_name, j.job_title,
       l.city, l.state_province, c.country_name, r.region_name
FROM employees e
JOIN departments d ON e.department_id = d.department_id
JOIN jobs j ON j.job_id = e.job_id
JOIN locations l ON d.location_id = l.location_id
JOIN countries c ON l.country_id = c.country_id
JOIN regions r ON c.region_id = r.region_id;
COMMIT;
