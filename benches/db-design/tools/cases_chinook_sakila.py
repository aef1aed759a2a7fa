"""The Chinook and Sakila cases (see cases.py for the fields)."""

CHINOOK = [
    dict(name="chinook-count-tables", size="simple", kind="answer",
         prompt="How many tables are there in this database?",
         answer_regex=r"\b11\b"),
    dict(name="chinook-customer-columns", size="simple", kind="answer",
         prompt="What columns does the Customer table have?",
         answer_regex=r"(?i)SupportRepId"),
    dict(name="chinook-brazil-customers", size="simple", kind="answer",
         prompt="How many customers live in Brazil?",
         answer="SELECT count(*) FROM Customer WHERE Country = 'Brazil'"),
    dict(name="chinook-add-nickname", size="simple", kind="answer",
         prompt="Add a nullable text column Nickname to the Customer table.",
         checks=[{"column": "Customer.Nickname", "exists": True},
                 {"check": "SELECT count(Nickname) FROM Customer", "equals": 0},
                 {"check": "SELECT group_concat(Email, '|') FROM (SELECT Email FROM Customer ORDER BY CustomerId)"}],
         solution="ALTER TABLE Customer ADD COLUMN Nickname NVARCHAR(40);"),
    dict(name="chinook-index-composer", size="simple", kind="answer",
         prompt="Add an index on Track.Composer.",
         checks=[{"index_on": "Track", "columns": ["Composer"]}],
         solution="CREATE INDEX IX_TrackComposer ON Track (Composer);"),
    dict(name="chinook-rename-fax", size="simple", kind="answer",
         prompt="Rename the column Fax of the Employee table to FaxNumber, keeping its values.",
         checks=[{"column": "Employee.Fax", "exists": False},
                 {"column": "Employee.FaxNumber", "exists": True},
                 {"check": "SELECT group_concat(FaxNumber, '|') FROM (SELECT FaxNumber FROM Employee ORDER BY EmployeeId)",
                  "before": "SELECT group_concat(Fax, '|') FROM (SELECT Fax FROM Employee ORDER BY EmployeeId)"}],
         solution="ALTER TABLE Employee RENAME COLUMN Fax TO FaxNumber;"),
    dict(name="chinook-playlist-owner", size="simple", kind="answer",
         prompt="Playlists should be able to belong to a customer: add a nullable CustomerId column to "
                "Playlist that references Customer, with an index on it.",
         checks=[{"column": "Playlist.CustomerId", "exists": True},
                 {"foreign_key": "Playlist.CustomerId", "references": "Customer"},
                 {"index_on": "Playlist", "columns": ["CustomerId"]},
                 {"check": "SELECT count(CustomerId) FROM Playlist", "equals": 0}],
         solution="ALTER TABLE Playlist ADD COLUMN CustomerId INTEGER REFERENCES Customer (CustomerId);\n"
                  "CREATE INDEX IFK_PlaylistCustomerId ON Playlist (CustomerId);"),
    dict(name="chinook-split-address", size="complex", kind="checklist",
         prompt="Move the customers' postal addresses out of Customer into a new table CustomerAddress "
                "(CustomerAddressId INTEGER PRIMARY KEY, CustomerId referencing Customer, Address, City, State, "
                "Country, PostalCode), one row per customer, then drop those five columns from Customer.",
         checks=[{"table": "CustomerAddress", "exists": True},
                 {"check": "SELECT count(*) FROM CustomerAddress", "equals": 59},
                 {"foreign_key": "CustomerAddress.CustomerId", "references": "Customer"},
                 {"column": "Customer.Address", "exists": False},
                 {"column": "Customer.City", "exists": False},
                 {"column": "Customer.Country", "exists": False},
                 {"column": "Customer.PostalCode", "exists": False},
                 {"check": "SELECT group_concat(k, '|') FROM (SELECT coalesce(Address,'')||'/'||coalesce(City,'')||'/'||"
                           "coalesce(State,'')||'/'||coalesce(Country,'')||'/'||coalesce(PostalCode,'') AS k "
                           "FROM CustomerAddress ORDER BY CustomerId)",
                  "before": "SELECT group_concat(k, '|') FROM (SELECT coalesce(Address,'')||'/'||coalesce(City,'')||'/'||"
                            "coalesce(State,'')||'/'||coalesce(Country,'')||'/'||coalesce(PostalCode,'') AS k "
                            "FROM Customer ORDER BY CustomerId)"},
                 {"check": "SELECT group_concat(Email, '|') FROM (SELECT Email FROM Customer ORDER BY CustomerId)"}],
         touches=["CustomerAddress"],
         solution="""
CREATE TABLE CustomerAddress (
  CustomerAddressId INTEGER PRIMARY KEY,
  CustomerId INTEGER NOT NULL REFERENCES Customer (CustomerId),
  Address NVARCHAR(70), City NVARCHAR(40), State NVARCHAR(40), Country NVARCHAR(40), PostalCode NVARCHAR(10));
INSERT INTO CustomerAddress (CustomerId, Address, City, State, Country, PostalCode)
  SELECT CustomerId, Address, City, State, Country, PostalCode FROM Customer ORDER BY CustomerId;
CREATE INDEX IFK_CustomerAddressCustomerId ON CustomerAddress (CustomerId);
ALTER TABLE Customer DROP COLUMN Address;
ALTER TABLE Customer DROP COLUMN City;
ALTER TABLE Customer DROP COLUMN State;
ALTER TABLE Customer DROP COLUMN Country;
ALTER TABLE Customer DROP COLUMN PostalCode;
"""),
    dict(name="chinook-country-lookup", size="complex", kind="checklist",
         prompt="Countries are repeated as text in Customer. Introduce a Country table (CountryId INTEGER PRIMARY KEY, "
                "Name TEXT NOT NULL UNIQUE) holding every distinct country of Customer, give Customer a CountryId "
                "column referencing it, filled from the old column, then drop Customer.Country.",
         checks=[{"check": "SELECT count(*) FROM Country", "before": "SELECT count(DISTINCT Country) FROM Customer"},
                 {"index_on": "Country", "columns": ["Name"], "unique": True},
                 {"column": "Customer.Country", "exists": False},
                 {"foreign_key": "Customer.CountryId", "references": "Country"},
                 {"check": "SELECT count(*) FROM Customer c JOIN Country k ON k.CountryId = c.CountryId", "equals": 59},
                 {"check": "SELECT group_concat(n, '|') FROM (SELECT k.Name AS n FROM Customer c "
                           "JOIN Country k ON k.CountryId = c.CountryId ORDER BY c.CustomerId)",
                  "before": "SELECT group_concat(n, '|') FROM (SELECT Country AS n FROM Customer ORDER BY CustomerId)"}],
         touches=["Country"],
         solution="""
CREATE TABLE Country (CountryId INTEGER PRIMARY KEY, Name TEXT NOT NULL UNIQUE);
INSERT INTO Country (Name) SELECT DISTINCT Country FROM Customer WHERE Country IS NOT NULL ORDER BY Country;
ALTER TABLE Customer ADD COLUMN CountryId INTEGER REFERENCES Country (CountryId);
UPDATE Customer SET CountryId = (SELECT CountryId FROM Country WHERE Name = Customer.Country);
CREATE INDEX IFK_CustomerCountryId ON Customer (CountryId);
ALTER TABLE Customer DROP COLUMN Country;
"""),
    dict(name="chinook-price-history", size="complex", kind="checklist",
         prompt="Keep a history of track price changes: create a table TrackPriceHistory (TrackPriceHistoryId INTEGER "
                "PRIMARY KEY, TrackId referencing Track, OldPrice, NewPrice, ChangedAt) and a trigger that adds a row "
                "each time a track's UnitPrice changes.",
         checks=[{"table": "TrackPriceHistory", "exists": True},
                 {"check": "SELECT count(*) FROM TrackPriceHistory", "equals": 0},
                 {"trigger_on": "Track"},
                 {"run": ["UPDATE Track SET UnitPrice = UnitPrice + 1 WHERE TrackId = 1"],
                  "check": "SELECT count(*) FROM TrackPriceHistory WHERE TrackId = 1 AND NewPrice > OldPrice",
                  "equals": 1},
                 {"run": ["UPDATE Track SET Name = Name || ' (live)' WHERE TrackId = 2"],
                  "check": "SELECT count(*) FROM TrackPriceHistory WHERE TrackId = 2", "equals": 0}],
         touches=["TrackPriceHistory"],
         solution="""
CREATE TABLE TrackPriceHistory (
  TrackPriceHistoryId INTEGER PRIMARY KEY,
  TrackId INTEGER NOT NULL REFERENCES Track (TrackId),
  OldPrice NUMERIC(10,2), NewPrice NUMERIC(10,2),
  ChangedAt DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX IFK_TrackPriceHistoryTrackId ON TrackPriceHistory (TrackId);
CREATE TRIGGER TrackPriceChanged AFTER UPDATE OF UnitPrice ON Track
WHEN old.UnitPrice IS NOT new.UnitPrice
BEGIN
  INSERT INTO TrackPriceHistory (TrackId, OldPrice, NewPrice) VALUES (new.TrackId, old.UnitPrice, new.UnitPrice);
END;
"""),
    dict(name="chinook-unclear-better", size="complex", kind="question", unclear=True,
         prompt="Make the customer data better."),
    dict(name="chinook-unclear-old-invoices", size="complex", kind="question", unclear=True,
         prompt="Delete the old invoices."),
]

SAKILA_FILM_COLUMNS = ("film_id, title, description, release_year, language_id, original_language_id, "
                       "rental_duration, rental_rate, length, replacement_cost")

SAKILA = [
    dict(name="sakila-count-films", size="simple", kind="answer",
         prompt="How many films are there?", answer="SELECT count(*) FROM film"),
    dict(name="sakila-inventory-table", size="simple", kind="answer",
         prompt="Which table says which store holds each copy of a film?", answer_regex=r"(?i)\binventory\b"),
    dict(name="sakila-avg-rate", size="simple", kind="answer",
         prompt="What is the average rental rate of the films rated PG-13, rounded to two decimals?",
         answer="SELECT printf('%.2f', avg(rental_rate)) FROM film WHERE rating = 'PG-13'"),
    dict(name="sakila-loyalty-points", size="simple", kind="answer",
         prompt="Add a loyalty_points integer column to customer, NOT NULL, defaulting to 0.",
         checks=[{"column": "customer.loyalty_points", "exists": True, "notnull": True},
                 {"check": "SELECT count(*) FROM customer WHERE loyalty_points = 0", "before": "SELECT count(*) FROM customer"},
                 {"check": "SELECT count(*) FROM customer_list"}],
         solution="ALTER TABLE customer ADD COLUMN loyalty_points INTEGER NOT NULL DEFAULT 0;"),
    dict(name="sakila-index-return-date", size="simple", kind="answer",
         prompt="Add an index on rental.return_date.",
         checks=[{"index_on": "rental", "columns": ["return_date"]}],
         solution="CREATE INDEX idx_rental_return_date ON rental (return_date);"),
    dict(name="sakila-rating-lookup", size="complex", kind="checklist",
         prompt="Replace film.rating (a text code) with a lookup table rating (rating_id INTEGER PRIMARY KEY, code TEXT "
                "NOT NULL UNIQUE) holding the codes in use, and a film.rating_id column referencing it; migrate the "
                "data, drop film.rating, and keep the film_list view working (showing the rating's code).",
         checks=[{"check": "SELECT count(*) FROM rating", "before": "SELECT count(DISTINCT rating) FROM film"},
                 {"column": "film.rating", "exists": False},
                 {"foreign_key": "film.rating_id", "references": "rating"},
                 {"check": "SELECT group_concat(k, '|') FROM (SELECT r.code || ':' || count(*) AS k FROM film f "
                           "JOIN rating r ON r.rating_id = f.rating_id GROUP BY r.code ORDER BY r.code)",
                  "before": "SELECT group_concat(k, '|') FROM (SELECT rating || ':' || count(*) AS k FROM film "
                            "WHERE rating IS NOT NULL GROUP BY rating ORDER BY rating)"},
                 {"check": "SELECT count(*) FROM film_list"},
                 {"check": "SELECT group_concat(k, '|') FROM (SELECT rating || ':' || count(*) AS k FROM film_list "
                           "GROUP BY rating ORDER BY rating)"},
                 {"check": "SELECT sum(rental_rate) FROM film"}],
         touches=["rating"],
         solution=f"""
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE rating (rating_id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);
INSERT INTO rating (code) SELECT DISTINCT rating FROM film WHERE rating IS NOT NULL ORDER BY rating;
DROP VIEW film_list;
CREATE TABLE film_new (
  film_id INTEGER NOT NULL,
  title VARCHAR(255) NOT NULL,
  description BLOB SUB_TYPE TEXT DEFAULT NULL,
  release_year VARCHAR(4) DEFAULT NULL,
  language_id INT NOT NULL,
  original_language_id INT DEFAULT NULL,
  rental_duration SMALLINT  DEFAULT 3 NOT NULL,
  rental_rate DECIMAL(4,2) DEFAULT 4.99 NOT NULL,
  length SMALLINT DEFAULT NULL,
  replacement_cost DECIMAL(5,2) DEFAULT 19.99 NOT NULL,
  rating_id INTEGER REFERENCES rating (rating_id),
  special_features VARCHAR(100) DEFAULT NULL,
  last_update TIMESTAMP NOT NULL,
  PRIMARY KEY  (film_id),
  CONSTRAINT CHECK_special_features CHECK(special_features is null or special_features like '%Trailers%' or
    special_features like '%Commentaries%' or special_features like '%Deleted Scenes%' or
    special_features like '%Behind the Scenes%'),
  CONSTRAINT fk_film_language FOREIGN KEY (language_id) REFERENCES language (language_id),
  CONSTRAINT fk_film_language_original FOREIGN KEY (original_language_id) REFERENCES language (language_id));
INSERT INTO film_new ({SAKILA_FILM_COLUMNS}, rating_id, special_features, last_update)
  SELECT {SAKILA_FILM_COLUMNS}, (SELECT rating_id FROM rating WHERE code = film.rating), special_features, last_update
  FROM film;
DROP TABLE film;
PRAGMA legacy_alter_table = ON;
ALTER TABLE film_new RENAME TO film;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX idx_fk_language_id ON film (language_id);
CREATE INDEX idx_fk_original_language_id ON film (original_language_id);
CREATE INDEX idx_fk_film_rating_id ON film (rating_id);
CREATE TRIGGER film_trigger_ai AFTER INSERT ON film
 BEGIN
  UPDATE film SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END;
CREATE TRIGGER film_trigger_au AFTER UPDATE ON film
 BEGIN
  UPDATE film SET last_update = DATETIME('NOW')  WHERE rowid = new.rowid;
 END;
CREATE VIEW film_list AS
SELECT film.film_id AS FID, film.title AS title, film.description AS description, category.name AS category,
       film.rental_rate AS price, film.length AS length, rating.code AS rating,
       actor.first_name||' '||actor.last_name AS actors
FROM category LEFT JOIN film_category ON category.category_id = film_category.category_id
  LEFT JOIN film ON film_category.film_id = film.film_id
  LEFT JOIN rating ON rating.rating_id = film.rating_id
  JOIN film_actor ON film.film_id = film_actor.film_id
  JOIN actor ON film_actor.actor_id = actor.actor_id;
COMMIT;
PRAGMA foreign_keys = ON;
"""),
    dict(name="sakila-soft-delete", size="complex", kind="checklist",
         prompt="Customers must no longer be deleted: add a deleted_at TIMESTAMP column to customer (NULL while the "
                "customer is active), a view active_customer listing the customers whose deleted_at is NULL, and make "
                "a DELETE on customer set deleted_at instead of removing the row.",
         checks=[{"column": "customer.deleted_at", "exists": True},
                 {"check": "SELECT count(*) FROM active_customer", "before": "SELECT count(*) FROM customer"},
                 {"run": ["DELETE FROM customer WHERE customer_id = (SELECT min(customer_id) FROM customer)"],
                  "check": "SELECT count(*) FROM customer WHERE customer_id = (SELECT min(customer_id) FROM customer) AND deleted_at IS NOT NULL", "equals": 1},
                 {"run": ["DELETE FROM customer WHERE customer_id = (SELECT min(customer_id) FROM customer)"],
                  "check": "SELECT count(*) FROM active_customer", "before": "SELECT count(*) - 1 FROM customer"}],
         solution="""
ALTER TABLE customer ADD COLUMN deleted_at TIMESTAMP DEFAULT NULL;
CREATE VIEW active_customer AS SELECT * FROM customer WHERE deleted_at IS NULL;
CREATE TRIGGER customer_soft_delete AFTER DELETE ON customer WHEN old.deleted_at IS NULL
BEGIN
  INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, active, create_date,
                        last_update, deleted_at)
  VALUES (old.customer_id, old.store_id, old.first_name, old.last_name, old.email, old.address_id, old.active,
          old.create_date, old.last_update, DATETIME('NOW'));
END;
"""),
    dict(name="sakila-rate-history", size="complex", kind="checklist",
         prompt="Record every change of a film's rental_rate in a new table film_rate_history (film_id, old_rate, "
                "new_rate, changed_at), filled by a trigger.",
         checks=[{"table": "film_rate_history", "exists": True},
                 {"check": "SELECT count(*) FROM film_rate_history", "equals": 0},
                 {"trigger_on": "film"},
                 {"run": ["UPDATE film SET rental_rate = 5.99 WHERE film_id = 1"],
                  "check": "SELECT count(*) FROM film_rate_history WHERE film_id = 1 AND new_rate = 5.99", "equals": 1}],
         touches=["film_rate_history"],
         solution="""
CREATE TABLE film_rate_history (
  film_id INTEGER NOT NULL REFERENCES film (film_id),
  old_rate DECIMAL(4,2), new_rate DECIMAL(4,2),
  changed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX idx_film_rate_history_film_id ON film_rate_history (film_id);
CREATE TRIGGER film_rate_changed AFTER UPDATE OF rental_rate ON film
WHEN old.rental_rate IS NOT new.rental_rate
BEGIN
  INSERT INTO film_rate_history (film_id, old_rate, new_rate) VALUES (new.film_id, old.rental_rate, new.rental_rate);
END;
"""),
    dict(name="sakila-phone-table", size="complex", kind="checklist",
         prompt="An address may have several phone numbers: create a table phone (phone_id INTEGER PRIMARY KEY, "
                "address_id referencing address, number, kind TEXT NOT NULL DEFAULT 'main'), move every existing "
                "address.phone into it, drop address.phone, and keep the customer_list and staff_list views working "
                "(showing the main number).",
         checks=[{"table": "phone", "exists": True},
                 {"check": "SELECT count(*) FROM phone", "before": "SELECT count(*) FROM address WHERE phone <> ''"},
                 {"foreign_key": "phone.address_id", "references": "address"},
                 {"column": "address.phone", "exists": False},
                 {"check": "SELECT group_concat(number, '|') FROM (SELECT number FROM phone ORDER BY address_id)",
                  "before": "SELECT group_concat(phone, '|') FROM (SELECT phone FROM address WHERE phone <> '' ORDER BY address_id)"},
                 {"check": "SELECT count(*) FROM customer_list"},
                 {"check": "SELECT count(*) FROM staff_list"},
                 {"check": "SELECT group_concat(phone, '|') FROM (SELECT phone FROM customer_list ORDER BY ID)"}],
         touches=["phone"],
         solution="""
CREATE TABLE phone (
  phone_id INTEGER PRIMARY KEY,
  address_id INT NOT NULL REFERENCES address (address_id),
  number VARCHAR(20) NOT NULL,
  kind TEXT NOT NULL DEFAULT 'main');
INSERT INTO phone (address_id, number) SELECT address_id, phone FROM address WHERE phone <> '' ORDER BY address_id;
CREATE INDEX idx_fk_phone_address_id ON phone (address_id);
DROP VIEW customer_list;
DROP VIEW staff_list;
ALTER TABLE address DROP COLUMN phone;
CREATE VIEW customer_list AS
SELECT cu.customer_id AS ID, cu.first_name||' '||cu.last_name AS name, a.address AS address,
       a.postal_code AS zip_code, p.number AS phone, city.city AS city, country.country AS country,
       case when cu.active=1 then 'active' else '' end AS notes, cu.store_id AS SID
FROM customer AS cu JOIN address AS a ON cu.address_id = a.address_id JOIN city ON a.city_id = city.city_id
  JOIN country ON city.country_id = country.country_id
  LEFT JOIN phone p ON p.address_id = a.address_id AND p.kind = 'main';
CREATE VIEW staff_list AS
SELECT s.staff_id AS ID, s.first_name||' '||s.last_name AS name, a.address AS address,
       a.postal_code AS zip_code, p.number AS phone, city.city AS city, country.country AS country, s.store_id AS SID
FROM staff AS s JOIN address AS a ON s.address_id = a.address_id JOIN city ON a.city_id = city.city_id
  JOIN country ON city.country_id = country.country_id
  LEFT JOIN phone p ON p.address_id = a.address_id AND p.kind = 'main';
"""),
    dict(name="sakila-unclear-optimize", size="complex", kind="question", unclear=True,
         prompt="Optimize the rentals."),
]
