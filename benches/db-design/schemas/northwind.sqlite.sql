-- northwind: a bounded sample (at most 300 rows a table) of jpwhite3/northwind-SQLite3 at 4f56e7f5906d, made by benches/db-design/tools/make_schemas.py; see SOURCES.md for its license.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE [Categories]
(      [CategoryID] INTEGER PRIMARY KEY AUTOINCREMENT,
       [CategoryName] TEXT,
       [Description] TEXT,
       [Picture] BLOB
);
CREATE TABLE [CustomerCustomerDemo](
   [CustomerID]TEXT NOT NULL,
   [CustomerTypeID]TEXT NOT NULL,
   PRIMARY KEY ("CustomerID","CustomerTypeID"),
   FOREIGN KEY ([CustomerID]) REFERENCES [Customers] ([CustomerID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION,
	FOREIGN KEY ([CustomerTypeID]) REFERENCES [CustomerDemographics] ([CustomerTypeID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [CustomerDemographics](
   [CustomerTypeID]TEXT NOT NULL,
   [CustomerDesc]TEXT,
    PRIMARY KEY ("CustomerTypeID")
);
CREATE TABLE [Customers]
(      [CustomerID] TEXT,
       [CompanyName] TEXT,
       [ContactName] TEXT,
       [ContactTitle] TEXT,
       [Address] TEXT,
       [City] TEXT,
       [Region] TEXT,
       [PostalCode] TEXT,
       [Country] TEXT,
       [Phone] TEXT,
       [Fax] TEXT,
       PRIMARY KEY (`CustomerID`)
);
CREATE TABLE [Employees]
(      [EmployeeID] INTEGER PRIMARY KEY AUTOINCREMENT,
       [LastName] TEXT,
       [FirstName] TEXT,
       [Title] TEXT,
       [TitleOfCourtesy] TEXT,
       [BirthDate] DATE,
       [HireDate] DATE,
       [Address] TEXT,
       [City] TEXT,
       [Region] TEXT,
       [PostalCode] TEXT,
       [Country] TEXT,
       [HomePhone] TEXT,
       [Extension] TEXT,
       [Photo] BLOB,
       [Notes] TEXT,
       [ReportsTo] INTEGER,
       [PhotoPath] TEXT,
	   FOREIGN KEY ([ReportsTo]) REFERENCES [Employees] ([EmployeeID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [EmployeeTerritories](
   [EmployeeID]INTEGER NOT NULL,
   [TerritoryID]TEXT NOT NULL,
    PRIMARY KEY ("EmployeeID","TerritoryID"),
	FOREIGN KEY ([EmployeeID]) REFERENCES [Employees] ([EmployeeID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION,
	FOREIGN KEY ([TerritoryID]) REFERENCES [Territories] ([TerritoryID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [Order Details](
   [OrderID]INTEGER NOT NULL,
   [ProductID]INTEGER NOT NULL,
   [UnitPrice]NUMERIC NOT NULL DEFAULT 0,
   [Quantity]INTEGER NOT NULL DEFAULT 1,
   [Discount]REAL NOT NULL DEFAULT 0,
    PRIMARY KEY ("OrderID","ProductID"),
    CHECK ([Discount]>=(0) AND [Discount]<=(1)),
    CHECK ([Quantity]>(0)),
    CHECK ([UnitPrice]>=(0)),
	FOREIGN KEY ([OrderID]) REFERENCES [Orders] ([OrderID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION,
	FOREIGN KEY ([ProductID]) REFERENCES [Products] ([ProductID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [Orders](
   [OrderID]INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
   [CustomerID]TEXT,
   [EmployeeID]INTEGER,
   [OrderDate]DATETIME,
   [RequiredDate]DATETIME,
   [ShippedDate]DATETIME,
   [ShipVia]INTEGER,
   [Freight]NUMERIC DEFAULT 0,
   [ShipName]TEXT,
   [ShipAddress]TEXT,
   [ShipCity]TEXT,
   [ShipRegion]TEXT,
   [ShipPostalCode]TEXT,
   [ShipCountry]TEXT,
   FOREIGN KEY ([EmployeeID]) REFERENCES [Employees] ([EmployeeID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION,
	FOREIGN KEY ([CustomerID]) REFERENCES [Customers] ([CustomerID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION,
	FOREIGN KEY ([ShipVia]) REFERENCES [Shippers] ([ShipperID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [Products](
   [ProductID]INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
   [ProductName]TEXT NOT NULL,
   [SupplierID]INTEGER,
   [CategoryID]INTEGER,
   [QuantityPerUnit]TEXT,
   [UnitPrice]NUMERIC DEFAULT 0,
   [UnitsInStock]INTEGER DEFAULT 0,
   [UnitsOnOrder]INTEGER DEFAULT 0,
   [ReorderLevel]INTEGER DEFAULT 0,
   [Discontinued]TEXT NOT NULL DEFAULT '0',
    CHECK ([UnitPrice]>=(0)),
    CHECK ([ReorderLevel]>=(0)),
    CHECK ([UnitsInStock]>=(0)),
    CHECK ([UnitsOnOrder]>=(0)),
	FOREIGN KEY ([CategoryID]) REFERENCES [Categories] ([CategoryID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION,
	FOREIGN KEY ([SupplierID]) REFERENCES [Suppliers] ([SupplierID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [Regions](
   [RegionID]INTEGER NOT NULL PRIMARY KEY,
   [RegionDescription]TEXT NOT NULL
);
CREATE TABLE [Shippers](
   [ShipperID]INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
   [CompanyName]TEXT NOT NULL,
   [Phone]TEXT
);
CREATE TABLE [Suppliers](
   [SupplierID]INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
   [CompanyName]TEXT NOT NULL,
   [ContactName]TEXT,
   [ContactTitle]TEXT,
   [Address]TEXT,
   [City]TEXT,
   [Region]TEXT,
   [PostalCode]TEXT,
   [Country]TEXT,
   [Phone]TEXT,
   [Fax]TEXT,
   [HomePage]TEXT
);
CREATE TABLE [Territories](
   [TerritoryID]TEXT NOT NULL,
   [TerritoryDescription]TEXT NOT NULL,
   [RegionID]INTEGER NOT NULL,
    PRIMARY KEY ("TerritoryID"),
	FOREIGN KEY ([RegionID]) REFERENCES [Regions] ([RegionID]) 
		ON DELETE NO ACTION ON UPDATE NO ACTION
);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (1, 'Beverages', 'Soft drinks, coffees, teas, beers, and ales', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (2, 'Condiments', 'Sweet and savory sauces, relishes, spreads, and seasonings', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (3, 'Confections', 'Desserts, candies, and sweet breads', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (4, 'Dairy Products', 'Cheeses', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (5, 'Grains/Cereals', 'Breads, crackers, pasta, and cereal', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (6, 'Meat/Poultry', 'Prepared meats', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (7, 'Produce', 'Dried fruit and bean curd', NULL);
INSERT INTO "Categories" ("CategoryID", "CategoryName", "Description", "Picture") VALUES (8, 'Seafood', 'Seaweed and fish', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('ALFKI', 'Alfreds Futterkiste', 'Maria Anders', 'Sales Representative', 'Obere Str. 57', 'Berlin', NULL, '12209', 'Germany', '030-0074321', '030-0076545');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('ANATR', 'Ana Trujillo Emparedados y helados', 'Ana Trujillo', 'Owner', 'Avda. de la Constitución 2222', 'México D.F.', NULL, '05021', 'Mexico', '(5) 555-4729', '(5) 555-3745');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('ANTON', 'Antonio Moreno Taquería', 'Antonio Moreno', 'Owner', 'Mataderos  2312', 'México D.F.', NULL, '05023', 'Mexico', '(5) 555-3932', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('AROUT', 'Around the Horn', 'Thomas Hardy', 'Sales Representative', '120 Hanover Sq.', 'London', NULL, 'WA1 1DP', 'UK', '(171) 555-7788', '(171) 555-6750');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BERGS', 'Berglunds snabbköp', 'Christina Berglund', 'Order Administrator', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden', '0921-12 34 65', '0921-12 34 67');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BLAUS', 'Blauer See Delikatessen', 'Hanna Moos', 'Sales Representative', 'Forsterstr. 57', 'Mannheim', NULL, '68306', 'Germany', '0621-08460', '0621-08924');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BLONP', 'Blondesddsl père et fils', 'Frédérique Citeaux', 'Marketing Manager', '24, place Kléber', 'Strasbourg', NULL, '67000', 'France', '88.60.15.31', '88.60.15.32');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BOLID', 'Bólido Comidas preparadas', 'Martín Sommer', 'Owner', 'C/ Araquil, 67', 'Madrid', NULL, '28023', 'Spain', '(91) 555 22 82', '(91) 555 91 99');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BONAP', 'Bon app''', 'Laurence Lebihan', 'Owner', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France', '91.24.45.40', '91.24.45.41');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BOTTM', 'Bottom-Dollar Markets', 'Elizabeth Lincoln', 'Accounting Manager', '23 Tsawassen Blvd.', 'Tsawassen', 'BC', 'T2F 8M4', 'Canada', '(604) 555-4729', '(604) 555-3745');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('BSBEV', 'B''s Beverages', 'Victoria Ashworth', 'Sales Representative', 'Fauntleroy Circus', 'London', NULL, 'EC2 5NT', 'UK', '(171) 555-1212', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('CACTU', 'Cactus Comidas para llevar', 'Patricio Simpson', 'Sales Agent', 'Cerrito 333', 'Buenos Aires', NULL, '1010', 'Argentina', '(1) 135-5555', '(1) 135-4892');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('CENTC', 'Centro comercial Moctezuma', 'Francisco Chang', 'Marketing Manager', 'Sierras de Granada 9993', 'México D.F.', NULL, '05022', 'Mexico', '(5) 555-3392', '(5) 555-7293');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('CHOPS', 'Chop-suey Chinese', 'Yang Wang', 'Owner', 'Hauptstr. 29', 'Bern', NULL, '3012', 'Switzerland', '0452-076545', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('COMMI', 'Comércio Mineiro', 'Pedro Afonso', 'Sales Associate', 'Av. dos Lusíadas, 23', 'Sao Paulo', 'SP', '05432-043', 'Brazil', '(11) 555-7647', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('CONSH', 'Consolidated Holdings', 'Elizabeth Brown', 'Sales Representative', 'Berkeley Gardens 12  Brewery', 'London', NULL, 'WX1 6LT', 'UK', '(171) 555-2282', '(171) 555-9199');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('DRACD', 'Drachenblut Delikatessen', 'Sven Ottlieb', 'Order Administrator', 'Walserweg 21', 'Aachen', NULL, '52066', 'Germany', '0241-039123', '0241-059428');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('DUMON', 'Du monde entier', 'Janine Labrune', 'Owner', '67, rue des Cinquante Otages', 'Nantes', NULL, '44000', 'France', '40.67.88.88', '40.67.89.89');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('EASTC', 'Eastern Connection', 'Ann Devon', 'Sales Agent', '35 King George', 'London', NULL, 'WX3 6FW', 'UK', '(171) 555-0297', '(171) 555-3373');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('ERNSH', 'Ernst Handel', 'Roland Mendel', 'Sales Manager', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria', '7675-3425', '7675-3426');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FAMIA', 'Familia Arquibaldo', 'Aria Cruz', 'Marketing Assistant', 'Rua Orós, 92', 'Sao Paulo', 'SP', '05442-030', 'Brazil', '(11) 555-9857', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FISSA', 'FISSA Fabrica Inter. Salchichas S.A.', 'Diego Roel', 'Accounting Manager', 'C/ Moralzarzal, 86', 'Madrid', NULL, '28034', 'Spain', '(91) 555 94 44', '(91) 555 55 93');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FOLIG', 'Folies gourmandes', 'Martine Rancé', 'Assistant Sales Agent', '184, chaussée de Tournai', 'Lille', NULL, '59000', 'France', '20.16.10.16', '20.16.10.17');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FOLKO', 'Folk och fä HB', 'Maria Larsson', 'Owner', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden', '0695-34 67 21', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FRANK', 'Frankenversand', 'Peter Franken', 'Marketing Manager', 'Berliner Platz 43', 'München', NULL, '80805', 'Germany', '089-0877310', '089-0877451');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FRANR', 'France restauration', 'Carine Schmitt', 'Marketing Manager', '54, rue Royale', 'Nantes', NULL, '44000', 'France', '40.32.21.21', '40.32.21.20');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FRANS', 'Franchi S.p.A.', 'Paolo Accorti', 'Sales Representative', 'Via Monte Bianco 34', 'Torino', NULL, '10100', 'Italy', '011-4988260', '011-4988261');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('FURIB', 'Furia Bacalhau e Frutos do Mar', 'Lino Rodriguez', 'Sales Manager', 'Jardim das rosas n. 32', 'Lisboa', NULL, '1675', 'Portugal', '(1) 354-2534', '(1) 354-2535');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('GALED', 'Galería del gastrónomo', 'Eduardo Saavedra', 'Marketing Manager', 'Rambla de Cataluña, 23', 'Barcelona', NULL, '08022', 'Spain', '(93) 203 4560', '(93) 203 4561');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('GODOS', 'Godos Cocina Típica', 'José Pedro Freyre', 'Sales Manager', 'C/ Romero, 33', 'Sevilla', NULL, '41101', 'Spain', '(95) 555 82 82', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('GOURL', 'Gourmet Lanchonetes', 'André Fonseca', 'Sales Associate', 'Av. Brasil, 442', 'Campinas', 'SP', '04876-786', 'Brazil', '(11) 555-9482', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('GREAL', 'Great Lakes Food Market', 'Howard Snyder', 'Marketing Manager', '2732 Baker Blvd.', 'Eugene', 'OR', '97403', 'USA', '(503) 555-7555', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('GROSR', 'GROSELLA-Restaurante', 'Manuel Pereira', 'Owner', '5ª Ave. Los Palos Grandes', 'Caracas', 'DF', '1081', 'Venezuela', '(2) 283-2951', '(2) 283-3397');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('HANAR', 'Hanari Carnes', 'Mario Pontes', 'Accounting Manager', 'Rua do Paço, 67', 'Rio de Janeiro', 'RJ', '05454-876', 'Brazil', '(21) 555-0091', '(21) 555-8765');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('HILAA', 'HILARION-Abastos', 'Carlos Hernández', 'Sales Representative', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela', '(5) 555-1340', '(5) 555-1948');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('HUNGC', 'Hungry Coyote Import Store', 'Yoshi Latimer', 'Sales Representative', 'City Center Plaza 516 Main St.', 'Elgin', 'OR', '97827', 'USA', '(503) 555-6874', '(503) 555-2376');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('HUNGO', 'Hungry Owl All-Night Grocers', 'Patricia McKenna', 'Sales Associate', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland', '2967 542', '2967 3333');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('ISLAT', 'Island Trading', 'Helen Bennett', 'Marketing Manager', 'Garden House Crowther Way', 'Cowes', 'Isle of Wight', 'PO31 7PJ', 'UK', '(198) 555-8888', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('KOENE', 'Königlich Essen', 'Philip Cramer', 'Sales Associate', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany', '0555-09876', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LACOR', 'La corne d''abondance', 'Daniel Tonini', 'Sales Representative', '67, avenue de l''Europe', 'Versailles', NULL, '78000', 'France', '30.59.84.10', '30.59.85.11');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LAMAI', 'La maison d''Asie', 'Annette Roulet', 'Sales Manager', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France', '61.77.61.10', '61.77.61.11');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LAUGB', 'Laughing Bacchus Wine Cellars', 'Yoshi Tannamuri', 'Marketing Assistant', '1900 Oak St.', 'Vancouver', 'BC', 'V3F 2K1', 'Canada', '(604) 555-3392', '(604) 555-7293');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LAZYK', 'Lazy K Kountry Store', 'John Steel', 'Marketing Manager', '12 Orchestra Terrace', 'Walla Walla', 'WA', '99362', 'USA', '(509) 555-7969', '(509) 555-6221');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LEHMS', 'Lehmanns Marktstand', 'Renate Messner', 'Sales Representative', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany', '069-0245984', '069-0245874');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LETSS', 'Let''s Stop N Shop', 'Jaime Yorres', 'Owner', '87 Polk St. Suite 5', 'San Francisco', 'CA', '94117', 'USA', '(415) 555-5938', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LILAS', 'LILA-Supermercado', 'Carlos González', 'Accounting Manager', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela', '(9) 331-6954', '(9) 331-7256');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LINOD', 'LINO-Delicateses', 'Felipe Izquierdo', 'Owner', 'Ave. 5 de Mayo Porlamar', 'I. de Margarita', 'Nueva Esparta', '4980', 'Venezuela', '(8) 34-56-12', '(8) 34-93-93');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('LONEP', 'Lonesome Pine Restaurant', 'Fran Wilson', 'Sales Manager', '89 Chiaroscuro Rd.', 'Portland', 'OR', '97219', 'USA', '(503) 555-9573', '(503) 555-9646');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('MAGAA', 'Magazzini Alimentari Riuniti', 'Giovanni Rovelli', 'Marketing Manager', 'Via Ludovico il Moro 22', 'Bergamo', NULL, '24100', 'Italy', '035-640230', '035-640231');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('MAISD', 'Maison Dewey', 'Catherine Dewey', 'Sales Agent', 'Rue Joseph-Bens 532', 'Bruxelles', NULL, 'B-1180', 'Belgium', '(02) 201 24 67', '(02) 201 24 68');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('MEREP', 'Mère Paillarde', 'Jean Fresnière', 'Marketing Assistant', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada', '(514) 555-8054', '(514) 555-8055');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('MORGK', 'Morgenstern Gesundkost', 'Alexander Feuer', 'Marketing Assistant', 'Heerstr. 22', 'Leipzig', NULL, '04179', 'Germany', '0342-023176', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('NORTS', 'North/South', 'Simon Crowther', 'Sales Associate', 'South House 300 Queensbridge', 'London', NULL, 'SW7 1RZ', 'UK', '(171) 555-7733', '(171) 555-2530');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('OCEAN', 'Océano Atlántico Ltda.', 'Yvonne Moncada', 'Sales Agent', 'Ing. Gustavo Moncada 8585 Piso 20-A', 'Buenos Aires', NULL, '1010', 'Argentina', '(1) 135-5333', '(1) 135-5535');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('OLDWO', 'Old World Delicatessen', 'Rene Phillips', 'Sales Representative', '2743 Bering St.', 'Anchorage', 'AK', '99508', 'USA', '(907) 555-7584', '(907) 555-2880');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('OTTIK', 'Ottilies Käseladen', 'Henriette Pfalzheim', 'Owner', 'Mehrheimerstr. 369', 'Köln', NULL, '50739', 'Germany', '0221-0644327', '0221-0765721');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('PARIS', 'Paris spécialités', 'Marie Bertrand', 'Owner', '265, boulevard Charonne', 'Paris', NULL, '75012', 'France', '(1) 42.34.22.66', '(1) 42.34.22.77');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('PERIC', 'Pericles Comidas clásicas', 'Guillermo Fernández', 'Sales Representative', 'Calle Dr. Jorge Cash 321', 'México D.F.', NULL, '05033', 'Mexico', '(5) 552-3745', '(5) 545-3745');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('PICCO', 'Piccolo und mehr', 'Georg Pipps', 'Sales Manager', 'Geislweg 14', 'Salzburg', NULL, '5020', 'Austria', '6562-9722', '6562-9723');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('PRINI', 'Princesa Isabel Vinhos', 'Isabel de Castro', 'Sales Representative', 'Estrada da saúde n. 58', 'Lisboa', NULL, '1756', 'Portugal', '(1) 356-5634', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('QUEDE', 'Que Delícia', 'Bernardo Batista', 'Accounting Manager', 'Rua da Panificadora, 12', 'Rio de Janeiro', 'RJ', '02389-673', 'Brazil', '(21) 555-4252', '(21) 555-4545');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('QUEEN', 'Queen Cozinha', 'Lúcia Carvalho', 'Marketing Assistant', 'Alameda dos Canàrios, 891', 'Sao Paulo', 'SP', '05487-020', 'Brazil', '(11) 555-1189', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('QUICK', 'QUICK-Stop', 'Horst Kloss', 'Accounting Manager', 'Taucherstraße 10', 'Cunewalde', NULL, '01307', 'Germany', '0372-035188', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('RANCH', 'Rancho grande', 'Sergio Gutiérrez', 'Sales Representative', 'Av. del Libertador 900', 'Buenos Aires', NULL, '1010', 'Argentina', '(1) 123-5555', '(1) 123-5556');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('RATTC', 'Rattlesnake Canyon Grocery', 'Paula Wilson', 'Assistant Sales Representative', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA', '(505) 555-5939', '(505) 555-3620');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('REGGC', 'Reggiani Caseifici', 'Maurizio Moroni', 'Sales Associate', 'Strada Provinciale 124', 'Reggio Emilia', NULL, '42100', 'Italy', '0522-556721', '0522-556722');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('RICAR', 'Ricardo Adocicados', 'Janete Limeira', 'Assistant Sales Agent', 'Av. Copacabana, 267', 'Rio de Janeiro', 'RJ', '02389-890', 'Brazil', '(21) 555-3412', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('RICSU', 'Richter Supermarkt', 'Michael Holz', 'Sales Manager', 'Grenzacherweg 237', 'Genève', NULL, '1203', 'Switzerland', '0897-034214', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('ROMEY', 'Romero y tomillo', 'Alejandra Camino', 'Accounting Manager', 'Gran Vía, 1', 'Madrid', NULL, '28001', 'Spain', '(91) 745 6200', '(91) 745 6210');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SANTG', 'Santé Gourmet', 'Jonas Bergulfsen', 'Owner', 'Erling Skakkes gate 78', 'Stavern', NULL, '4110', 'Norway', '07-98 92 35', '07-98 92 47');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SAVEA', 'Save-a-lot Markets', 'Jose Pavarotti', 'Sales Representative', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA', '(208) 555-8097', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SEVES', 'Seven Seas Imports', 'Hari Kumar', 'Sales Manager', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK', '(171) 555-1717', '(171) 555-5646');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SIMOB', 'Simons bistro', 'Jytte Petersen', 'Owner', 'Vinbæltet 34', 'Kobenhavn', NULL, '1734', 'Denmark', '31 12 34 56', '31 13 35 57');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SPECD', 'Spécialités du monde', 'Dominique Perrier', 'Marketing Manager', '25, rue Lauriston', 'Paris', NULL, '75016', 'France', '(1) 47.55.60.10', '(1) 47.55.60.20');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SPLIR', 'Split Rail Beer & Ale', 'Art Braunschweiger', 'Sales Manager', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA', '(307) 555-4680', '(307) 555-6525');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('SUPRD', 'Suprêmes délices', 'Pascale Cartrain', 'Accounting Manager', 'Boulevard Tirou, 255', 'Charleroi', NULL, 'B-6000', 'Belgium', '(071) 23 67 22 20', '(071) 23 67 22 21');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('THEBI', 'The Big Cheese', 'Liz Nixon', 'Marketing Manager', '89 Jefferson Way Suite 2', 'Portland', 'OR', '97201', 'USA', '(503) 555-3612', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('THECR', 'The Cracker Box', 'Liu Wong', 'Marketing Assistant', '55 Grizzly Peak Rd.', 'Butte', 'MT', '59801', 'USA', '(406) 555-5834', '(406) 555-8083');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('TOMSP', 'Toms Spezialitäten', 'Karin Josephs', 'Marketing Manager', 'Luisenstr. 48', 'Münster', NULL, '44087', 'Germany', '0251-031259', '0251-035695');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('TORTU', 'Tortuga Restaurante', 'Miguel Angel Paolino', 'Owner', 'Avda. Azteca 123', 'México D.F.', NULL, '05033', 'Mexico', '(5) 555-2933', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('TRADH', 'Tradição Hipermercados', 'Anabela Domingues', 'Sales Representative', 'Av. Inês de Castro, 414', 'Sao Paulo', 'SP', '05634-030', 'Brazil', '(11) 555-2167', '(11) 555-2168');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('TRAIH', 'Trail''s Head Gourmet Provisioners', 'Helvetius Nagy', 'Sales Associate', '722 DaVinci Blvd.', 'Kirkland', 'WA', '98034', 'USA', '(206) 555-8257', '(206) 555-2174');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('VAFFE', 'Vaffeljernet', 'Palle Ibsen', 'Sales Manager', 'Smagsloget 45', 'Århus', NULL, '8200', 'Denmark', '86 21 32 43', '86 22 33 44');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('Val2 ', 'IT', 'Val2', 'IT', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('VALON', 'IT', 'Valon Hoti', 'IT', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('VICTE', 'Victuailles en stock', 'Mary Saveley', 'Sales Agent', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France', '78.32.54.86', '78.32.54.87');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('VINET', 'Vins et alcools Chevalier', 'Paul Henriot', 'Accounting Manager', '59 rue de l''Abbaye', 'Reims', NULL, '51100', 'France', '26.47.15.10', '26.47.15.11');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('WANDK', 'Die Wandernde Kuh', 'Rita Müller', 'Sales Representative', 'Adenauerallee 900', 'Stuttgart', NULL, '70563', 'Germany', '0711-020361', '0711-035428');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('WARTH', 'Wartian Herkku', 'Pirkko Koskitalo', 'Accounting Manager', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland', '981-443655', '981-443655');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('WELLI', 'Wellington Importadora', 'Paula Parente', 'Sales Manager', 'Rua do Mercado, 12', 'Resende', 'SP', '08737-363', 'Brazil', '(14) 555-8122', NULL);
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('WHITC', 'White Clover Markets', 'Karl Jablonski', 'Owner', '305 - 14th Ave. S. Suite 3B', 'Seattle', 'WA', '98128', 'USA', '(206) 555-4112', '(206) 555-4115');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('WILMK', 'Wilman Kala', 'Matti Karttunen', 'Owner/Marketing Assistant', 'Keskuskatu 45', 'Helsinki', NULL, '21240', 'Finland', '90-224 8858', '90-224 8858');
INSERT INTO "Customers" ("CustomerID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax") VALUES ('WOLZA', 'Wolski  Zajazd', 'Zbyszek Piestrzeniewicz', 'Owner', 'ul. Filtrowa 68', 'Warszawa', NULL, '01-012', 'Poland', '(26) 642-7012', '(26) 642-7012');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (1, 'Davolio', 'Nancy', 'Sales Representative', 'Ms.', '1948-12-08', '1992-05-01', '507 - 20th Ave. E.Apt. 2A', 'Seattle', 'WA', '98122', 'USA', '(206) 555-9857', '5467', NULL, 'Education includes a BA in psychology from Colorado State University in 1970.  She also completed "The Art of the Cold Call."  Nancy is a member of Toastmasters International.', 2, 'http://accweb/emmployees/davolio.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (2, 'Fuller', 'Andrew', 'Vice President, Sales', 'Dr.', '1952-02-19', '1992-08-14', '908 W. Capital Way', 'Tacoma', 'WA', '98401', 'USA', '(206) 555-9482', '3457', NULL, 'Andrew received his BTS commercial in 1974 and a Ph.D. in international marketing from the University of Dallas in 1981.  He is fluent in French and Italian and reads German.  He joined the company as a sales representative, was promoted to sales manager in January 1992 and to vice president of sales in March 1993.  Andrew is a member of the Sales Management Roundtable, the Seattle Chamber of Commerce, and the Pacific Rim Importers Association.', NULL, 'http://accweb/emmployees/fuller.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (3, 'Leverling', 'Janet', 'Sales Representative', 'Ms.', '1963-08-30', '1992-04-01', '722 Moss Bay Blvd.', 'Kirkland', 'WA', '98033', 'USA', '(206) 555-3412', '3355', NULL, 'Janet has a BS degree in chemistry from Boston College (1984).  She has also completed a certificate program in food retailing management.  Janet was hired as a sales associate in 1991 and promoted to sales representative in February 1992.', 2, 'http://accweb/emmployees/leverling.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (4, 'Peacock', 'Margaret', 'Sales Representative', 'Mrs.', '1937-09-19', '1993-05-03', '4110 Old Redmond Rd.', 'Redmond', 'WA', '98052', 'USA', '(206) 555-8122', '5176', NULL, 'Margaret holds a BA in English literature from Concordia College (1958) and an MA from the American Institute of Culinary Arts (1966).  She was assigned to the London office temporarily from July through November 1992.', 2, 'http://accweb/emmployees/peacock.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (5, 'Buchanan', 'Steven', 'Sales Manager', 'Mr.', '1955-03-04', '1993-10-17', '14 Garrett Hill', 'London', NULL, 'SW1 8JR', 'UK', '(71) 555-4848', '3453', NULL, 'Steven Buchanan graduated from St. Andrews University, Scotland, with a BSC degree in 1976.  Upon joining the company as a sales representative in 1992, he spent 6 months in an orientation program at the Seattle office and then returned to his permanent post in London.  He was promoted to sales manager in March 1993.  Mr. Buchanan has completed the courses "Successful Telemarketing" and "International Sales Management."  He is fluent in French.', 2, 'http://accweb/emmployees/buchanan.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (6, 'Suyama', 'Michael', 'Sales Representative', 'Mr.', '1963-07-02', '1993-10-17', 'Coventry House
Miner Rd.', 'London', NULL, 'EC2 7JR', 'UK', '(71) 555-7773', '428', NULL, 'Michael is a graduate of Sussex University (MA, economics, 1983) and the University of California at Los Angeles (MBA, marketing, 1986).  He has also taken the courses "Multi-Cultural Selling" and "Time Management for the Sales Professional."  He is fluent in Japanese and can read and write French, Portuguese, and Spanish.', 5, 'http://accweb/emmployees/davolio.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (7, 'King', 'Robert', 'Sales Representative', 'Mr.', '1960-05-29', '1994-01-02', 'Edgeham Hollow
Winchester Way', 'London', NULL, 'RG1 9SP', 'UK', '(71) 555-5598', '465', NULL, 'Robert King served in the Peace Corps and traveled extensively before completing his degree in English at the University of Michigan in 1992, the year he joined the company.  After completing a course entitled "Selling in Europe," he was transferred to the London office in March 1993.', 5, 'http://accweb/emmployees/davolio.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (8, 'Callahan', 'Laura', 'Inside Sales Coordinator', 'Ms.', '1958-01-09', '1994-03-05', '4726 - 11th Ave. N.E.', 'Seattle', 'WA', '98105', 'USA', '(206) 555-1189', '2344', NULL, 'Laura received a BA in psychology from the University of Washington.  She has also completed a course in business French.  She reads and writes French.', 2, 'http://accweb/emmployees/davolio.bmp');
INSERT INTO "Employees" ("EmployeeID", "LastName", "FirstName", "Title", "TitleOfCourtesy", "BirthDate", "HireDate", "Address", "City", "Region", "PostalCode", "Country", "HomePhone", "Extension", "Photo", "Notes", "ReportsTo", "PhotoPath") VALUES (9, 'Dodsworth', 'Anne', 'Sales Representative', 'Ms.', '1966-01-27', '1994-11-15', '7 Houndstooth Rd.', 'London', NULL, 'WG2 7LT', 'UK', '(71) 555-4444', '452', NULL, 'Anne has a BA degree in English from St. Lawrence College.  She is fluent in French and German.', 5, 'http://accweb/emmployees/davolio.bmp');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (1, '06897');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (1, '19713');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '01581');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '01730');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '01833');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '02116');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '02139');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '02184');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (2, '40222');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (3, '30346');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (3, '31406');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (3, '32859');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (3, '33607');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (4, '20852');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (4, '27403');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (4, '27511');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '02903');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '07960');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '08837');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '10019');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '10038');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '11747');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (5, '14450');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (6, '85014');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (6, '85251');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (6, '98004');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (6, '98052');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (6, '98104');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '60179');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '60601');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '80202');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '80909');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '90405');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '94025');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '94105');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '95008');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '95054');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (7, '95060');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (8, '19428');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (8, '44122');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (8, '45839');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (8, '53404');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '03049');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '03801');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '48075');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '48084');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '48304');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '55113');
INSERT INTO "EmployeeTerritories" ("EmployeeID", "TerritoryID") VALUES (9, '55439');
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10248, 11, 14, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10248, 42, 9.8, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10248, 72, 34.8, 5, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10249, 14, 18.6, 9, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10249, 51, 42.4, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10250, 41, 7.7, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10250, 51, 42.4, 35, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10250, 65, 16.8, 15, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10251, 22, 16.8, 6, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10251, 57, 15.6, 15, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10251, 65, 16.8, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10252, 20, 64.8, 40, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10252, 33, 2, 25, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10252, 60, 27.2, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10253, 31, 10, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10253, 39, 14.4, 42, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10253, 49, 16, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10254, 24, 3.6, 15, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10254, 55, 19.2, 21, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10254, 74, 8, 21, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10255, 2, 15.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10255, 16, 13.9, 35, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10255, 36, 15.2, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10255, 59, 44, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10256, 53, 26.2, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10256, 77, 10.4, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10257, 27, 35.1, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10257, 39, 14.4, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10257, 77, 10.4, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10258, 2, 15.2, 50, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10258, 5, 17, 65, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10258, 32, 25.6, 6, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10259, 21, 8, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10259, 37, 20.8, 1, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10260, 41, 7.7, 16, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10260, 57, 15.6, 50, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10260, 62, 39.4, 15, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10260, 70, 12, 21, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10261, 21, 8, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10261, 35, 14.4, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10262, 5, 17, 12, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10262, 7, 24, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10262, 56, 30.4, 2, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10263, 16, 13.9, 60, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10263, 24, 3.6, 28, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10263, 30, 20.7, 60, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10263, 74, 8, 36, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10264, 2, 15.2, 35, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10264, 41, 7.7, 25, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10265, 17, 31.2, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10265, 70, 12, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10266, 12, 30.4, 12, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10267, 40, 14.7, 50, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10267, 59, 44, 70, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10267, 76, 14.4, 15, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10268, 29, 99, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10268, 72, 27.8, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10269, 33, 2, 60, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10269, 72, 27.8, 20, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10270, 36, 15.2, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10270, 43, 36.8, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10271, 33, 2, 24, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10272, 20, 64.8, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10272, 31, 10, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10272, 72, 27.8, 24, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10273, 10, 24.8, 24, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10273, 31, 10, 15, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10273, 33, 2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10273, 40, 14.7, 60, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10273, 76, 14.4, 33, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10274, 71, 17.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10274, 72, 27.8, 7, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10275, 24, 3.6, 12, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10275, 59, 44, 6, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10276, 10, 24.8, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10276, 13, 4.8, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10277, 28, 36.4, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10277, 62, 39.4, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10278, 44, 15.5, 16, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10278, 59, 44, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10278, 63, 35.1, 8, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10278, 73, 12, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10279, 17, 31.2, 15, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10280, 24, 3.6, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10280, 55, 19.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10280, 75, 6.2, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10281, 19, 7.3, 1, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10281, 24, 3.6, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10281, 35, 14.4, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10282, 30, 20.7, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10282, 57, 15.6, 2, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10283, 15, 12.4, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10283, 19, 7.3, 18, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10283, 60, 27.2, 35, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10283, 72, 27.8, 3, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10284, 27, 35.1, 15, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10284, 44, 15.5, 21, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10284, 60, 27.2, 20, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10284, 67, 11.2, 5, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10285, 1, 14.4, 45, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10285, 40, 14.7, 40, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10285, 53, 26.2, 36, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10286, 35, 14.4, 100, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10286, 62, 39.4, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10287, 16, 13.9, 40, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10287, 34, 11.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10287, 46, 9.6, 15, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10288, 54, 5.9, 10, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10288, 68, 10, 3, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10289, 3, 8, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10289, 64, 26.6, 9, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10290, 5, 17, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10290, 29, 99, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10290, 49, 16, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10290, 77, 10.4, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10291, 13, 4.8, 20, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10291, 44, 15.5, 24, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10291, 51, 42.4, 2, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10292, 20, 64.8, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10293, 18, 50, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10293, 24, 3.6, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10293, 63, 35.1, 5, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10293, 75, 6.2, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10294, 1, 14.4, 18, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10294, 17, 31.2, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10294, 43, 36.8, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10294, 60, 27.2, 21, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10294, 75, 6.2, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10295, 56, 30.4, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10296, 11, 16.8, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10296, 16, 13.9, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10296, 69, 28.8, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10297, 39, 14.4, 60, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10297, 72, 27.8, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10298, 2, 15.2, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10298, 36, 15.2, 40, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10298, 59, 44, 30, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10298, 62, 39.4, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10299, 19, 7.3, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10299, 70, 12, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10300, 66, 13.6, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10300, 68, 10, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10301, 40, 14.7, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10301, 56, 30.4, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10302, 17, 31.2, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10302, 28, 36.4, 28, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10302, 43, 36.8, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10303, 40, 14.7, 40, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10303, 65, 16.8, 30, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10303, 68, 10, 15, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10304, 49, 16, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10304, 59, 44, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10304, 71, 17.2, 2, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10305, 18, 50, 25, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10305, 29, 99, 25, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10305, 39, 14.4, 30, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10306, 30, 20.7, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10306, 53, 26.2, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10306, 54, 5.9, 5, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10307, 62, 39.4, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10307, 68, 10, 3, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10308, 69, 28.8, 1, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10308, 70, 12, 5, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10309, 4, 17.6, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10309, 6, 20, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10309, 42, 11.2, 2, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10309, 43, 36.8, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10309, 71, 17.2, 3, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10310, 16, 13.9, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10310, 62, 39.4, 5, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10311, 42, 11.2, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10311, 69, 28.8, 7, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10312, 28, 36.4, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10312, 43, 36.8, 24, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10312, 53, 26.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10312, 75, 6.2, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10313, 36, 15.2, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10314, 32, 25.6, 40, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10314, 58, 10.6, 30, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10314, 62, 39.4, 25, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10315, 34, 11.2, 14, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10315, 70, 12, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10316, 41, 7.7, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10316, 62, 39.4, 70, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10317, 1, 14.4, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10318, 41, 7.7, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10318, 76, 14.4, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10319, 17, 31.2, 8, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10319, 28, 36.4, 14, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10319, 76, 14.4, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10320, 71, 17.2, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10321, 35, 14.4, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10322, 52, 5.6, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10323, 15, 12.4, 5, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10323, 25, 11.2, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10323, 39, 14.4, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10324, 16, 13.9, 21, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10324, 35, 14.4, 70, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10324, 46, 9.6, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10324, 59, 44, 40, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10324, 63, 35.1, 80, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10325, 6, 20, 6, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10325, 13, 4.8, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10325, 14, 18.6, 9, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10325, 31, 10, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10325, 72, 27.8, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10326, 4, 17.6, 24, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10326, 57, 15.6, 16, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10326, 75, 6.2, 50, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10327, 2, 15.2, 25, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10327, 11, 16.8, 50, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10327, 30, 20.7, 35, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10327, 58, 10.6, 30, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10328, 59, 44, 9, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10328, 65, 16.8, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10328, 68, 10, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10329, 19, 7.3, 10, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10329, 30, 20.7, 8, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10329, 38, 210.8, 20, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10329, 56, 30.4, 12, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10330, 26, 24.9, 50, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10330, 72, 27.8, 25, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10331, 54, 5.9, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10332, 18, 50, 40, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10332, 42, 11.2, 10, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10332, 47, 7.6, 16, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10333, 14, 18.6, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10333, 21, 8, 10, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10333, 71, 17.2, 40, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10334, 52, 5.6, 8, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10334, 68, 10, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10335, 2, 15.2, 7, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10335, 31, 10, 25, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10335, 32, 25.6, 6, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10335, 51, 42.4, 48, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10336, 4, 17.6, 18, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10337, 23, 7.2, 40, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10337, 26, 24.9, 24, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10337, 36, 15.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10337, 37, 20.8, 28, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10337, 72, 27.8, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10338, 17, 31.2, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10338, 30, 20.7, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10339, 4, 17.6, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10339, 17, 31.2, 70, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10339, 62, 39.4, 28, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10340, 18, 50, 20, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10340, 41, 7.7, 12, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10340, 43, 36.8, 40, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10341, 33, 2, 8, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10341, 59, 44, 9, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10342, 2, 15.2, 24, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10342, 31, 10, 56, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10342, 36, 15.2, 40, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10342, 55, 19.2, 40, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10343, 64, 26.6, 50, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10343, 68, 10, 4, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10343, 76, 14.4, 15, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10344, 4, 17.6, 35, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10344, 8, 32, 70, 0.25);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10345, 8, 32, 70, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10345, 19, 7.3, 80, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10345, 42, 11.2, 9, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10346, 17, 31.2, 36, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10346, 56, 30.4, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10347, 25, 11.2, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10347, 39, 14.4, 50, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10347, 40, 14.7, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10347, 75, 6.2, 6, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10348, 1, 14.4, 15, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10348, 23, 7.2, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10349, 54, 5.9, 24, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10350, 50, 13, 15, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10350, 69, 28.8, 18, 0.1);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10351, 38, 210.8, 20, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10351, 41, 7.7, 13, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10351, 44, 15.5, 77, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10351, 65, 16.8, 10, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10352, 24, 3.6, 10, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10352, 54, 5.9, 20, 0.15);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10353, 11, 16.8, 12, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10353, 38, 210.8, 50, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10354, 1, 14.4, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10354, 29, 99, 4, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10355, 24, 3.6, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10355, 57, 15.6, 25, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10356, 31, 10, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10356, 55, 19.2, 12, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10356, 69, 28.8, 20, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10357, 10, 24.8, 30, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10357, 26, 24.9, 16, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10357, 60, 27.2, 8, 0.2);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10358, 24, 3.6, 10, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10358, 34, 11.2, 10, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10358, 36, 15.2, 20, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10359, 16, 13.9, 56, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10359, 31, 10, 70, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10359, 60, 27.2, 80, 0.05);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10360, 28, 36.4, 30, 0.0);
INSERT INTO "Order Details" ("OrderID", "ProductID", "UnitPrice", "Quantity", "Discount") VALUES (10360, 29, 99, 35, 0.0);
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10248, 'VINET', 5, '1996-07-04 00:00:00.000', '1996-08-01 00:00:00.000', '1996-07-16 00:00:00.000', 3, 32.38, 'Vins et alcools Chevalier', '59 rue de l-Abbaye', 'Reims', NULL, '51100', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10249, 'TOMSP', 6, '1996-07-05 00:00:00.000', '1996-08-16 00:00:00.000', '1996-07-10 00:00:00.000', 1, 11.61, 'Toms Spezialitäten', 'Luisenstr. 48', 'Münster', NULL, '44087', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10250, 'HANAR', 4, '1996-07-08 00:00:00.000', '1996-08-05 00:00:00.000', '1996-07-12 00:00:00.000', 2, 65.83, 'Hanari Carnes', 'Rua do Paço, 67', 'Rio de Janeiro', 'RJ', '05454-876', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10251, 'VICTE', 3, '1996-07-08 00:00:00.000', '1996-08-05 00:00:00.000', '1996-07-15 00:00:00.000', 1, 41.34, 'Victuailles en stock', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10252, 'SUPRD', 4, '1996-07-09 00:00:00.000', '1996-08-06 00:00:00.000', '1996-07-11 00:00:00.000', 2, 51.3, 'Suprêmes délices', 'Boulevard Tirou, 255', 'Charleroi', NULL, 'B-6000', 'Belgium');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10253, 'HANAR', 3, '1996-07-10 00:00:00.000', '1996-07-24 00:00:00.000', '1996-07-16 00:00:00.000', 2, 58.17, 'Hanari Carnes', 'Rua do Paço, 67', 'Rio de Janeiro', 'RJ', '05454-876', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10254, 'CHOPS', 5, '1996-07-11 00:00:00.000', '1996-08-08 00:00:00.000', '1996-07-23 00:00:00.000', 2, 22.98, 'Chop-suey Chinese', 'Hauptstr. 31', 'Bern', NULL, '3012', 'Switzerland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10255, 'RICSU', 9, '1996-07-12 00:00:00.000', '1996-08-09 00:00:00.000', '1996-07-15 00:00:00.000', 3, 148.33, 'Richter Supermarkt', 'Starenweg 5', 'Genève', NULL, '1204', 'Switzerland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10256, 'WELLI', 3, '1996-07-15 00:00:00.000', '1996-08-12 00:00:00.000', '1996-07-17 00:00:00.000', 2, 13.97, 'Wellington Importadora', 'Rua do Mercado, 12', 'Resende', 'SP', '08737-363', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10257, 'HILAA', 4, '1996-07-16 00:00:00.000', '1996-08-13 00:00:00.000', '1996-07-22 00:00:00.000', 3, 81.91, 'HILARION-Abastos', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10258, 'ERNSH', 1, '1996-07-17 00:00:00.000', '1996-08-14 00:00:00.000', '1996-07-23 00:00:00.000', 1, 140.51, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10259, 'CENTC', 4, '1996-07-18 00:00:00.000', '1996-08-15 00:00:00.000', '1996-07-25 00:00:00.000', 3, 3.25, 'Centro comercial Moctezuma', 'Sierras de Granada 9993', 'México D.F.', NULL, '5022', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10260, 'OTTIK', 4, '1996-07-19 00:00:00.000', '1996-08-16 00:00:00.000', '1996-07-29 00:00:00.000', 1, 55.09, 'Ottilies Käseladen', 'Mehrheimerstr. 369', 'Köln', NULL, '50739', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10261, 'QUEDE', 4, '1996-07-19 00:00:00.000', '1996-08-16 00:00:00.000', '1996-07-30 00:00:00.000', 2, 3.05, 'Que Delícia', 'Rua da Panificadora, 12', 'Rio de Janeiro', 'RJ', '02389-673', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10262, 'RATTC', 8, '1996-07-22 00:00:00.000', '1996-08-19 00:00:00.000', '1996-07-25 00:00:00.000', 3, 48.29, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10263, 'ERNSH', 9, '1996-07-23 00:00:00.000', '1996-08-20 00:00:00.000', '1996-07-31 00:00:00.000', 3, 146.06, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10264, 'FOLKO', 6, '1996-07-24 00:00:00.000', '1996-08-21 00:00:00.000', '1996-08-23 00:00:00.000', 3, 3.67, 'Folk och fä HB', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10265, 'BLONP', 2, '1996-07-25 00:00:00.000', '1996-08-22 00:00:00.000', '1996-08-12 00:00:00.000', 1, 55.28, 'Blondel père et fils', '24, place Kléber', 'Strasbourg', NULL, '67000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10266, 'WARTH', 3, '1996-07-26 00:00:00.000', '1996-09-06 00:00:00.000', '1996-07-31 00:00:00.000', 3, 25.73, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10267, 'FRANK', 4, '1996-07-29 00:00:00.000', '1996-08-26 00:00:00.000', '1996-08-06 00:00:00.000', 1, 208.58, 'Frankenversand', 'Berliner Platz 43', 'München', NULL, '80805', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10268, 'GROSR', 8, '1996-07-30 00:00:00.000', '1996-08-27 00:00:00.000', '1996-08-02 00:00:00.000', 3, 66.29, 'GROSELLA-Restaurante', '5ª Ave. Los Palos Grandes', 'Caracas', 'DF', '1081', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10269, 'WHITC', 5, '1996-07-31 00:00:00.000', '1996-08-14 00:00:00.000', '1996-08-09 00:00:00.000', 1, 4.56, 'White Clover Markets', '1029 - 12th Ave. S.', 'Seattle', 'WA', '98124', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10270, 'WARTH', 1, '1996-08-01 00:00:00.000', '1996-08-29 00:00:00.000', '1996-08-02 00:00:00.000', 1, 136.54, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10271, 'SPLIR', 6, '1996-08-01 00:00:00.000', '1996-08-29 00:00:00.000', '1996-08-30 00:00:00.000', 2, 4.54, 'Split Rail Beer & Ale', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10272, 'RATTC', 6, '1996-08-02 00:00:00.000', '1996-08-30 00:00:00.000', '1996-08-06 00:00:00.000', 2, 98.03, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10273, 'QUICK', 3, '1996-08-05 00:00:00.000', '1996-09-02 00:00:00.000', '1996-08-12 00:00:00.000', 3, 76.07, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10274, 'VINET', 6, '1996-08-06 00:00:00.000', '1996-09-03 00:00:00.000', '1996-08-16 00:00:00.000', 1, 6.01, 'Vins et alcools Chevalier', '59 rue de l-Abbaye', 'Reims', NULL, '51100', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10275, 'MAGAA', 1, '1996-08-07 00:00:00.000', '1996-09-04 00:00:00.000', '1996-08-09 00:00:00.000', 1, 26.93, 'Magazzini Alimentari Riuniti', 'Via Ludovico il Moro 22', 'Bergamo', NULL, '24100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10276, 'TORTU', 8, '1996-08-08 00:00:00.000', '1996-08-22 00:00:00.000', '1996-08-14 00:00:00.000', 3, 13.84, 'Tortuga Restaurante', 'Avda. Azteca 123', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10277, 'MORGK', 2, '1996-08-09 00:00:00.000', '1996-09-06 00:00:00.000', '1996-08-13 00:00:00.000', 3, 125.77, 'Morgenstern Gesundkost', 'Heerstr. 22', 'Leipzig', NULL, '4179', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10278, 'BERGS', 8, '1996-08-12 00:00:00.000', '1996-09-09 00:00:00.000', '1996-08-16 00:00:00.000', 2, 92.69, 'Berglunds snabbköp', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10279, 'LEHMS', 8, '1996-08-13 00:00:00.000', '1996-09-10 00:00:00.000', '1996-08-16 00:00:00.000', 2, 25.83, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10280, 'BERGS', 2, '1996-08-14 00:00:00.000', '1996-09-11 00:00:00.000', '1996-09-12 00:00:00.000', 1, 8.98, 'Berglunds snabbköp', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10281, 'ROMEY', 4, '1996-08-14 00:00:00.000', '1996-08-28 00:00:00.000', '1996-08-21 00:00:00.000', 1, 2.94, 'Romero y tomillo', 'Gran Vía, 1', 'Madrid', NULL, '28001', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10282, 'ROMEY', 4, '1996-08-15 00:00:00.000', '1996-09-12 00:00:00.000', '1996-08-21 00:00:00.000', 1, 12.69, 'Romero y tomillo', 'Gran Vía, 1', 'Madrid', NULL, '28001', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10283, 'LILAS', 3, '1996-08-16 00:00:00.000', '1996-09-13 00:00:00.000', '1996-08-23 00:00:00.000', 3, 84.81, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10284, 'LEHMS', 4, '1996-08-19 00:00:00.000', '1996-09-16 00:00:00.000', '1996-08-27 00:00:00.000', 1, 76.56, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10285, 'QUICK', 1, '1996-08-20 00:00:00.000', '1996-09-17 00:00:00.000', '1996-08-26 00:00:00.000', 2, 76.83, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10286, 'QUICK', 8, '1996-08-21 00:00:00.000', '1996-09-18 00:00:00.000', '1996-08-30 00:00:00.000', 3, 229.24, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10287, 'RICAR', 8, '1996-08-22 00:00:00.000', '1996-09-19 00:00:00.000', '1996-08-28 00:00:00.000', 3, 12.76, 'Ricardo Adocicados', 'Av. Copacabana, 267', 'Rio de Janeiro', 'RJ', '02389-890', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10288, 'REGGC', 4, '1996-08-23 00:00:00.000', '1996-09-20 00:00:00.000', '1996-09-03 00:00:00.000', 1, 7.45, 'Reggiani Caseifici', 'Strada Provinciale 124', 'Reggio Emilia', NULL, '42100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10289, 'BSBEV', 7, '1996-08-26 00:00:00.000', '1996-09-23 00:00:00.000', '1996-08-28 00:00:00.000', 3, 22.77, 'B-s Beverages', 'Fauntleroy Circus', 'London', NULL, 'EC2 5NT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10290, 'COMMI', 8, '1996-08-27 00:00:00.000', '1996-09-24 00:00:00.000', '1996-09-03 00:00:00.000', 1, 79.7, 'Comércio Mineiro', 'Av. dos Lusíadas, 23', 'Sao Paulo', 'SP', '05432-043', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10291, 'QUEDE', 6, '1996-08-27 00:00:00.000', '1996-09-24 00:00:00.000', '1996-09-04 00:00:00.000', 2, 6.4, 'Que Delícia', 'Rua da Panificadora, 12', 'Rio de Janeiro', 'RJ', '02389-673', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10292, 'TRADH', 1, '1996-08-28 00:00:00.000', '1996-09-25 00:00:00.000', '1996-09-02 00:00:00.000', 2, 1.35, 'Tradiçao Hipermercados', 'Av. Inês de Castro, 414', 'Sao Paulo', 'SP', '05634-030', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10293, 'TORTU', 1, '1996-08-29 00:00:00.000', '1996-09-26 00:00:00.000', '1996-09-11 00:00:00.000', 3, 21.18, 'Tortuga Restaurante', 'Avda. Azteca 123', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10294, 'RATTC', 4, '1996-08-30 00:00:00.000', '1996-09-27 00:00:00.000', '1996-09-05 00:00:00.000', 2, 147.26, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10295, 'VINET', 2, '1996-09-02 00:00:00.000', '1996-09-30 00:00:00.000', '1996-09-10 00:00:00.000', 2, 1.15, 'Vins et alcools Chevalier', '59 rue de l-Abbaye', 'Reims', NULL, '51100', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10296, 'LILAS', 6, '1996-09-03 00:00:00.000', '1996-10-01 00:00:00.000', '1996-09-11 00:00:00.000', 1, 0.12, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10297, 'BLONP', 5, '1996-09-04 00:00:00.000', '1996-10-16 00:00:00.000', '1996-09-10 00:00:00.000', 2, 5.74, 'Blondel père et fils', '24, place Kléber', 'Strasbourg', NULL, '67000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10298, 'HUNGO', 6, '1996-09-05 00:00:00.000', '1996-10-03 00:00:00.000', '1996-09-11 00:00:00.000', 2, 168.22, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10299, 'RICAR', 4, '1996-09-06 00:00:00.000', '1996-10-04 00:00:00.000', '1996-09-13 00:00:00.000', 2, 29.76, 'Ricardo Adocicados', 'Av. Copacabana, 267', 'Rio de Janeiro', 'RJ', '02389-890', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10300, 'MAGAA', 2, '1996-09-09 00:00:00.000', '1996-10-07 00:00:00.000', '1996-09-18 00:00:00.000', 2, 17.68, 'Magazzini Alimentari Riuniti', 'Via Ludovico il Moro 22', 'Bergamo', NULL, '24100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10301, 'WANDK', 8, '1996-09-09 00:00:00.000', '1996-10-07 00:00:00.000', '1996-09-17 00:00:00.000', 2, 45.08, 'Die Wandernde Kuh', 'Adenauerallee 900', 'Stuttgart', NULL, '70563', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10302, 'SUPRD', 4, '1996-09-10 00:00:00.000', '1996-10-08 00:00:00.000', '1996-10-09 00:00:00.000', 2, 6.27, 'Suprêmes délices', 'Boulevard Tirou, 255', 'Charleroi', NULL, 'B-6000', 'Belgium');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10303, 'GODOS', 7, '1996-09-11 00:00:00.000', '1996-10-09 00:00:00.000', '1996-09-18 00:00:00.000', 2, 107.83, 'Godos Cocina Típica', 'C/ Romero, 33', 'Sevilla', NULL, '41101', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10304, 'TORTU', 1, '1996-09-12 00:00:00.000', '1996-10-10 00:00:00.000', '1996-09-17 00:00:00.000', 2, 63.79, 'Tortuga Restaurante', 'Avda. Azteca 123', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10305, 'OLDWO', 8, '1996-09-13 00:00:00.000', '1996-10-11 00:00:00.000', '1996-10-09 00:00:00.000', 3, 257.62, 'Old World Delicatessen', '2743 Bering St.', 'Anchorage', 'AK', '99508', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10306, 'ROMEY', 1, '1996-09-16 00:00:00.000', '1996-10-14 00:00:00.000', '1996-09-23 00:00:00.000', 3, 7.56, 'Romero y tomillo', 'Gran Vía, 1', 'Madrid', NULL, '28001', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10307, 'LONEP', 2, '1996-09-17 00:00:00.000', '1996-10-15 00:00:00.000', '1996-09-25 00:00:00.000', 2, 0.56, 'Lonesome Pine Restaurant', '89 Chiaroscuro Rd.', 'Portland', 'OR', '97219', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10308, 'ANATR', 7, '1996-09-18 00:00:00.000', '1996-10-16 00:00:00.000', '1996-09-24 00:00:00.000', 3, 1.61, 'Ana Trujillo Emparedados y helados', 'Avda. de la Constitución 2222', 'México D.F.', NULL, '5021', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10309, 'HUNGO', 3, '1996-09-19 00:00:00.000', '1996-10-17 00:00:00.000', '1996-10-23 00:00:00.000', 1, 47.3, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10310, 'THEBI', 8, '1996-09-20 00:00:00.000', '1996-10-18 00:00:00.000', '1996-09-27 00:00:00.000', 2, 17.52, 'The Big Cheese', '89 Jefferson Way Suite 2', 'Portland', 'OR', '97201', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10311, 'DUMON', 1, '1996-09-20 00:00:00.000', '1996-10-04 00:00:00.000', '1996-09-26 00:00:00.000', 3, 24.69, 'Du monde entier', '67, rue des Cinquante Otages', 'Nantes', NULL, '44000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10312, 'WANDK', 2, '1996-09-23 00:00:00.000', '1996-10-21 00:00:00.000', '1996-10-03 00:00:00.000', 2, 40.26, 'Die Wandernde Kuh', 'Adenauerallee 900', 'Stuttgart', NULL, '70563', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10313, 'QUICK', 2, '1996-09-24 00:00:00.000', '1996-10-22 00:00:00.000', '1996-10-04 00:00:00.000', 2, 1.96, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10314, 'RATTC', 1, '1996-09-25 00:00:00.000', '1996-10-23 00:00:00.000', '1996-10-04 00:00:00.000', 2, 74.16, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10315, 'ISLAT', 4, '1996-09-26 00:00:00.000', '1996-10-24 00:00:00.000', '1996-10-03 00:00:00.000', 2, 41.76, 'Island Trading', 'Garden House Crowther Way', 'Cowes', 'Isle of Wight', 'PO31 7PJ', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10316, 'RATTC', 1, '1996-09-27 00:00:00.000', '1996-10-25 00:00:00.000', '1996-10-08 00:00:00.000', 3, 150.15, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10317, 'LONEP', 6, '1996-09-30 00:00:00.000', '1996-10-28 00:00:00.000', '1996-10-10 00:00:00.000', 1, 12.69, 'Lonesome Pine Restaurant', '89 Chiaroscuro Rd.', 'Portland', 'OR', '97219', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10318, 'ISLAT', 8, '1996-10-01 00:00:00.000', '1996-10-29 00:00:00.000', '1996-10-04 00:00:00.000', 2, 4.73, 'Island Trading', 'Garden House Crowther Way', 'Cowes', 'Isle of Wight', 'PO31 7PJ', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10319, 'TORTU', 7, '1996-10-02 00:00:00.000', '1996-10-30 00:00:00.000', '1996-10-11 00:00:00.000', 3, 64.5, 'Tortuga Restaurante', 'Avda. Azteca 123', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10320, 'WARTH', 5, '1996-10-03 00:00:00.000', '1996-10-17 00:00:00.000', '1996-10-18 00:00:00.000', 3, 34.57, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10321, 'ISLAT', 3, '1996-10-03 00:00:00.000', '1996-10-31 00:00:00.000', '1996-10-11 00:00:00.000', 2, 3.43, 'Island Trading', 'Garden House Crowther Way', 'Cowes', 'Isle of Wight', 'PO31 7PJ', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10322, 'PERIC', 7, '1996-10-04 00:00:00.000', '1996-11-01 00:00:00.000', '1996-10-23 00:00:00.000', 3, 0.4, 'Pericles Comidas clásicas', 'Calle Dr. Jorge Cash 321', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10323, 'KOENE', 4, '1996-10-07 00:00:00.000', '1996-11-04 00:00:00.000', '1996-10-14 00:00:00.000', 1, 4.88, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10324, 'SAVEA', 9, '1996-10-08 00:00:00.000', '1996-11-05 00:00:00.000', '1996-10-10 00:00:00.000', 1, 214.27, 'Save-a-lot Markets', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10325, 'KOENE', 1, '1996-10-09 00:00:00.000', '1996-10-23 00:00:00.000', '1996-10-14 00:00:00.000', 3, 64.86, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10326, 'BOLID', 4, '1996-10-10 00:00:00.000', '1996-11-07 00:00:00.000', '1996-10-14 00:00:00.000', 2, 77.92, 'Bólido Comidas preparadas', 'C/ Araquil, 67', 'Madrid', NULL, '28023', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10327, 'FOLKO', 2, '1996-10-11 00:00:00.000', '1996-11-08 00:00:00.000', '1996-10-14 00:00:00.000', 1, 63.36, 'Folk och fä HB', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10328, 'FURIB', 4, '1996-10-14 00:00:00.000', '1996-11-11 00:00:00.000', '1996-10-17 00:00:00.000', 3, 87.03, 'Furia Bacalhau e Frutos do Mar', 'Jardim das rosas n. 32', 'Lisboa', NULL, '1675', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10329, 'SPLIR', 4, '1996-10-15 00:00:00.000', '1996-11-26 00:00:00.000', '1996-10-23 00:00:00.000', 2, 191.67, 'Split Rail Beer & Ale', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10330, 'LILAS', 3, '1996-10-16 00:00:00.000', '1996-11-13 00:00:00.000', '1996-10-28 00:00:00.000', 1, 12.75, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10331, 'BONAP', 9, '1996-10-16 00:00:00.000', '1996-11-27 00:00:00.000', '1996-10-21 00:00:00.000', 1, 10.19, 'Bon app-', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10332, 'MEREP', 3, '1996-10-17 00:00:00.000', '1996-11-28 00:00:00.000', '1996-10-21 00:00:00.000', 2, 52.84, 'Mère Paillarde', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10333, 'WARTH', 5, '1996-10-18 00:00:00.000', '1996-11-15 00:00:00.000', '1996-10-25 00:00:00.000', 3, 0.59, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10334, 'VICTE', 8, '1996-10-21 00:00:00.000', '1996-11-18 00:00:00.000', '1996-10-28 00:00:00.000', 2, 8.56, 'Victuailles en stock', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10335, 'HUNGO', 7, '1996-10-22 00:00:00.000', '1996-11-19 00:00:00.000', '1996-10-24 00:00:00.000', 2, 42.11, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10336, 'PRINI', 7, '1996-10-23 00:00:00.000', '1996-11-20 00:00:00.000', '1996-10-25 00:00:00.000', 2, 15.51, 'Princesa Isabel Vinhos', 'Estrada da saúde n. 58', 'Lisboa', NULL, '1756', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10337, 'FRANK', 4, '1996-10-24 00:00:00.000', '1996-11-21 00:00:00.000', '1996-10-29 00:00:00.000', 3, 108.26, 'Frankenversand', 'Berliner Platz 43', 'München', NULL, '80805', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10338, 'OLDWO', 4, '1996-10-25 00:00:00.000', '1996-11-22 00:00:00.000', '1996-10-29 00:00:00.000', 3, 84.21, 'Old World Delicatessen', '2743 Bering St.', 'Anchorage', 'AK', '99508', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10339, 'MEREP', 2, '1996-10-28 00:00:00.000', '1996-11-25 00:00:00.000', '1996-11-04 00:00:00.000', 2, 15.66, 'Mère Paillarde', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10340, 'BONAP', 1, '1996-10-29 00:00:00.000', '1996-11-26 00:00:00.000', '1996-11-08 00:00:00.000', 3, 166.31, 'Bon app-', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10341, 'SIMOB', 7, '1996-10-29 00:00:00.000', '1996-11-26 00:00:00.000', '1996-11-05 00:00:00.000', 3, 26.78, 'Simons bistro', 'Vinbæltet 34', 'Kobenhavn', NULL, '1734', 'Denmark');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10342, 'FRANK', 4, '1996-10-30 00:00:00.000', '1996-11-13 00:00:00.000', '1996-11-04 00:00:00.000', 2, 54.83, 'Frankenversand', 'Berliner Platz 43', 'München', NULL, '80805', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10343, 'LEHMS', 4, '1996-10-31 00:00:00.000', '1996-11-28 00:00:00.000', '1996-11-06 00:00:00.000', 1, 110.37, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10344, 'WHITC', 4, '1996-11-01 00:00:00.000', '1996-11-29 00:00:00.000', '1996-11-05 00:00:00.000', 2, 23.29, 'White Clover Markets', '1029 - 12th Ave. S.', 'Seattle', 'WA', '98124', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10345, 'QUICK', 2, '1996-11-04 00:00:00.000', '1996-12-02 00:00:00.000', '1996-11-11 00:00:00.000', 2, 249.06, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10346, 'RATTC', 3, '1996-11-05 00:00:00.000', '1996-12-17 00:00:00.000', '1996-11-08 00:00:00.000', 3, 142.08, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10347, 'FAMIA', 4, '1996-11-06 00:00:00.000', '1996-12-04 00:00:00.000', '1996-11-08 00:00:00.000', 3, 3.1, 'Familia Arquibaldo', 'Rua Orós, 92', 'Sao Paulo', 'SP', '05442-030', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10348, 'WANDK', 4, '1996-11-07 00:00:00.000', '1996-12-05 00:00:00.000', '1996-11-15 00:00:00.000', 2, 0.78, 'Die Wandernde Kuh', 'Adenauerallee 900', 'Stuttgart', NULL, '70563', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10349, 'SPLIR', 7, '1996-11-08 00:00:00.000', '1996-12-06 00:00:00.000', '1996-11-15 00:00:00.000', 1, 8.63, 'Split Rail Beer & Ale', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10350, 'LAMAI', 6, '1996-11-11 00:00:00.000', '1996-12-09 00:00:00.000', '1996-12-03 00:00:00.000', 2, 64.19, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10351, 'ERNSH', 1, '1996-11-11 00:00:00.000', '1996-12-09 00:00:00.000', '1996-11-20 00:00:00.000', 1, 162.33, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10352, 'FURIB', 3, '1996-11-12 00:00:00.000', '1996-11-26 00:00:00.000', '1996-11-18 00:00:00.000', 3, 1.3, 'Furia Bacalhau e Frutos do Mar', 'Jardim das rosas n. 32', 'Lisboa', NULL, '1675', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10353, 'PICCO', 7, '1996-11-13 00:00:00.000', '1996-12-11 00:00:00.000', '1996-11-25 00:00:00.000', 3, 360.63, 'Piccolo und mehr', 'Geislweg 14', 'Salzburg', NULL, '5020', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10354, 'PERIC', 8, '1996-11-14 00:00:00.000', '1996-12-12 00:00:00.000', '1996-11-20 00:00:00.000', 3, 53.8, 'Pericles Comidas clásicas', 'Calle Dr. Jorge Cash 321', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10355, 'AROUT', 6, '1996-11-15 00:00:00.000', '1996-12-13 00:00:00.000', '1996-11-20 00:00:00.000', 1, 41.95, 'Around the Horn', 'Brook Farm Stratford St. Mary', 'Colchester', 'Essex', 'CO7 6JX', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10356, 'WANDK', 6, '1996-11-18 00:00:00.000', '1996-12-16 00:00:00.000', '1996-11-27 00:00:00.000', 2, 36.71, 'Die Wandernde Kuh', 'Adenauerallee 900', 'Stuttgart', NULL, '70563', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10357, 'LILAS', 1, '1996-11-19 00:00:00.000', '1996-12-17 00:00:00.000', '1996-12-02 00:00:00.000', 3, 34.88, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10358, 'LAMAI', 5, '1996-11-20 00:00:00.000', '1996-12-18 00:00:00.000', '1996-11-27 00:00:00.000', 1, 19.64, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10359, 'SEVES', 5, '1996-11-21 00:00:00.000', '1996-12-19 00:00:00.000', '1996-11-26 00:00:00.000', 3, 288.43, 'Seven Seas Imports', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10360, 'BLONP', 4, '1996-11-22 00:00:00.000', '1996-12-20 00:00:00.000', '1996-12-02 00:00:00.000', 3, 131.7, 'Blondel père et fils', '24, place Kléber', 'Strasbourg', NULL, '67000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10361, 'QUICK', 1, '1996-11-22 00:00:00.000', '1996-12-20 00:00:00.000', '1996-12-03 00:00:00.000', 2, 183.17, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10362, 'BONAP', 3, '1996-11-25 00:00:00.000', '1996-12-23 00:00:00.000', '1996-11-28 00:00:00.000', 1, 96.04, 'Bon app-', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10363, 'DRACD', 4, '1996-11-26 00:00:00.000', '1996-12-24 00:00:00.000', '1996-12-04 00:00:00.000', 3, 30.54, 'Drachenblut Delikatessen', 'Walserweg 21', 'Aachen', NULL, '52066', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10364, 'EASTC', 1, '1996-11-26 00:00:00.000', '1997-01-07 00:00:00.000', '1996-12-04 00:00:00.000', 1, 71.97, 'Eastern Connection', '35 King George', 'London', NULL, 'WX3 6FW', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10365, 'ANTON', 3, '1996-11-27 00:00:00.000', '1996-12-25 00:00:00.000', '1996-12-02 00:00:00.000', 2, 22, 'Antonio Moreno Taquería', 'Mataderos  2312', 'México D.F.', NULL, '5023', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10366, 'GALED', 8, '1996-11-28 00:00:00.000', '1997-01-09 00:00:00.000', '1996-12-30 00:00:00.000', 2, 10.14, 'Galería del gastronómo', 'Rambla de Cataluña, 23', 'Barcelona', NULL, '8022', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10367, 'VAFFE', 7, '1996-11-28 00:00:00.000', '1996-12-26 00:00:00.000', '1996-12-02 00:00:00.000', 3, 13.55, 'Vaffeljernet', 'Smagsloget 45', 'Århus', NULL, '8200', 'Denmark');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10368, 'ERNSH', 2, '1996-11-29 00:00:00.000', '1996-12-27 00:00:00.000', '1996-12-02 00:00:00.000', 2, 101.95, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10369, 'SPLIR', 8, '1996-12-02 00:00:00.000', '1996-12-30 00:00:00.000', '1996-12-09 00:00:00.000', 2, 195.68, 'Split Rail Beer & Ale', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10370, 'CHOPS', 6, '1996-12-03 00:00:00.000', '1996-12-31 00:00:00.000', '1996-12-27 00:00:00.000', 2, 1.17, 'Chop-suey Chinese', 'Hauptstr. 31', 'Bern', NULL, '3012', 'Switzerland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10371, 'LAMAI', 1, '1996-12-03 00:00:00.000', '1996-12-31 00:00:00.000', '1996-12-24 00:00:00.000', 1, 0.45, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10372, 'QUEEN', 5, '1996-12-04 00:00:00.000', '1997-01-01 00:00:00.000', '1996-12-09 00:00:00.000', 2, 890.78, 'Queen Cozinha', 'Alameda dos Canàrios, 891', 'Sao Paulo', 'SP', '05487-020', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10373, 'HUNGO', 4, '1996-12-05 00:00:00.000', '1997-01-02 00:00:00.000', '1996-12-11 00:00:00.000', 3, 124.12, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10374, 'WOLZA', 1, '1996-12-05 00:00:00.000', '1997-01-02 00:00:00.000', '1996-12-09 00:00:00.000', 3, 3.94, 'Wolski Zajazd', 'ul. Filtrowa 68', 'Warszawa', NULL, '01-012', 'Poland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10375, 'HUNGC', 3, '1996-12-06 00:00:00.000', '1997-01-03 00:00:00.000', '1996-12-09 00:00:00.000', 2, 20.12, 'Hungry Coyote Import Store', 'City Center Plaza 516 Main St.', 'Elgin', 'OR', '97827', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10376, 'MEREP', 1, '1996-12-09 00:00:00.000', '1997-01-06 00:00:00.000', '1996-12-13 00:00:00.000', 2, 20.39, 'Mère Paillarde', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10377, 'SEVES', 1, '1996-12-09 00:00:00.000', '1997-01-06 00:00:00.000', '1996-12-13 00:00:00.000', 3, 22.21, 'Seven Seas Imports', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10378, 'FOLKO', 5, '1996-12-10 00:00:00.000', '1997-01-07 00:00:00.000', '1996-12-19 00:00:00.000', 3, 5.44, 'Folk och fä HB', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10379, 'QUEDE', 2, '1996-12-11 00:00:00.000', '1997-01-08 00:00:00.000', '1996-12-13 00:00:00.000', 1, 45.03, 'Que Delícia', 'Rua da Panificadora, 12', 'Rio de Janeiro', 'RJ', '02389-673', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10380, 'HUNGO', 8, '1996-12-12 00:00:00.000', '1997-01-09 00:00:00.000', '1997-01-16 00:00:00.000', 3, 35.03, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10381, 'LILAS', 3, '1996-12-12 00:00:00.000', '1997-01-09 00:00:00.000', '1996-12-13 00:00:00.000', 3, 7.99, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10382, 'ERNSH', 4, '1996-12-13 00:00:00.000', '1997-01-10 00:00:00.000', '1996-12-16 00:00:00.000', 1, 94.77, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10383, 'AROUT', 8, '1996-12-16 00:00:00.000', '1997-01-13 00:00:00.000', '1996-12-18 00:00:00.000', 3, 34.24, 'Around the Horn', 'Brook Farm Stratford St. Mary', 'Colchester', 'Essex', 'CO7 6JX', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10384, 'BERGS', 3, '1996-12-16 00:00:00.000', '1997-01-13 00:00:00.000', '1996-12-20 00:00:00.000', 3, 168.64, 'Berglunds snabbköp', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10385, 'SPLIR', 1, '1996-12-17 00:00:00.000', '1997-01-14 00:00:00.000', '1996-12-23 00:00:00.000', 2, 30.96, 'Split Rail Beer & Ale', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10386, 'FAMIA', 9, '1996-12-18 00:00:00.000', '1997-01-01 00:00:00.000', '1996-12-25 00:00:00.000', 3, 13.99, 'Familia Arquibaldo', 'Rua Orós, 92', 'Sao Paulo', 'SP', '05442-030', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10387, 'SANTG', 1, '1996-12-18 00:00:00.000', '1997-01-15 00:00:00.000', '1996-12-20 00:00:00.000', 2, 93.63, 'Santé Gourmet', 'Erling Skakkes gate 78', 'Stavern', NULL, '4110', 'Norway');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10388, 'SEVES', 2, '1996-12-19 00:00:00.000', '1997-01-16 00:00:00.000', '1996-12-20 00:00:00.000', 1, 34.86, 'Seven Seas Imports', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10389, 'BOTTM', 4, '1996-12-20 00:00:00.000', '1997-01-17 00:00:00.000', '1996-12-24 00:00:00.000', 2, 47.42, 'Bottom-Dollar Markets', '23 Tsawassen Blvd.', 'Tsawassen', 'BC', 'T2F 8M4', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10390, 'ERNSH', 6, '1996-12-23 00:00:00.000', '1997-01-20 00:00:00.000', '1996-12-26 00:00:00.000', 1, 126.38, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10391, 'DRACD', 3, '1996-12-23 00:00:00.000', '1997-01-20 00:00:00.000', '1996-12-31 00:00:00.000', 3, 5.45, 'Drachenblut Delikatessen', 'Walserweg 21', 'Aachen', NULL, '52066', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10392, 'PICCO', 2, '1996-12-24 00:00:00.000', '1997-01-21 00:00:00.000', '1997-01-01 00:00:00.000', 3, 122.46, 'Piccolo und mehr', 'Geislweg 14', 'Salzburg', NULL, '5020', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10393, 'SAVEA', 1, '1996-12-25 00:00:00.000', '1997-01-22 00:00:00.000', '1997-01-03 00:00:00.000', 3, 126.56, 'Save-a-lot Markets', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10394, 'HUNGC', 1, '1996-12-25 00:00:00.000', '1997-01-22 00:00:00.000', '1997-01-03 00:00:00.000', 3, 30.34, 'Hungry Coyote Import Store', 'City Center Plaza 516 Main St.', 'Elgin', 'OR', '97827', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10395, 'HILAA', 6, '1996-12-26 00:00:00.000', '1997-01-23 00:00:00.000', '1997-01-03 00:00:00.000', 1, 184.41, 'HILARION-Abastos', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10396, 'FRANK', 1, '1996-12-27 00:00:00.000', '1997-01-10 00:00:00.000', '1997-01-06 00:00:00.000', 3, 135.35, 'Frankenversand', 'Berliner Platz 43', 'München', NULL, '80805', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10397, 'PRINI', 5, '1996-12-27 00:00:00.000', '1997-01-24 00:00:00.000', '1997-01-02 00:00:00.000', 1, 60.26, 'Princesa Isabel Vinhos', 'Estrada da saúde n. 58', 'Lisboa', NULL, '1756', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10398, 'SAVEA', 2, '1996-12-30 00:00:00.000', '1997-01-27 00:00:00.000', '1997-01-09 00:00:00.000', 3, 89.16, 'Save-a-lot Markets', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10399, 'VAFFE', 8, '1996-12-31 00:00:00.000', '1997-01-14 00:00:00.000', '1997-01-08 00:00:00.000', 3, 27.36, 'Vaffeljernet', 'Smagsloget 45', 'Århus', NULL, '8200', 'Denmark');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10400, 'EASTC', 1, '1997-01-01 00:00:00.000', '1997-01-29 00:00:00.000', '1997-01-16 00:00:00.000', 3, 83.93, 'Eastern Connection', '35 King George', 'London', NULL, 'WX3 6FW', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10401, 'RATTC', 1, '1997-01-01 00:00:00.000', '1997-01-29 00:00:00.000', '1997-01-10 00:00:00.000', 1, 12.51, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10402, 'ERNSH', 8, '1997-01-02 00:00:00.000', '1997-02-13 00:00:00.000', '1997-01-10 00:00:00.000', 2, 67.88, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10403, 'ERNSH', 4, '1997-01-03 00:00:00.000', '1997-01-31 00:00:00.000', '1997-01-09 00:00:00.000', 3, 73.79, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10404, 'MAGAA', 2, '1997-01-03 00:00:00.000', '1997-01-31 00:00:00.000', '1997-01-08 00:00:00.000', 1, 155.97, 'Magazzini Alimentari Riuniti', 'Via Ludovico il Moro 22', 'Bergamo', NULL, '24100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10405, 'LINOD', 1, '1997-01-06 00:00:00.000', '1997-02-03 00:00:00.000', '1997-01-22 00:00:00.000', 1, 34.82, 'LINO-Delicateses', 'Ave. 5 de Mayo Porlamar', 'I. de Margarita', 'Nueva Esparta', '4980', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10406, 'QUEEN', 7, '1997-01-07 00:00:00.000', '1997-02-18 00:00:00.000', '1997-01-13 00:00:00.000', 1, 108.04, 'Queen Cozinha', 'Alameda dos Canàrios, 891', 'Sao Paulo', 'SP', '05487-020', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10407, 'OTTIK', 2, '1997-01-07 00:00:00.000', '1997-02-04 00:00:00.000', '1997-01-30 00:00:00.000', 2, 91.48, 'Ottilies Käseladen', 'Mehrheimerstr. 369', 'Köln', NULL, '50739', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10408, 'FOLIG', 8, '1997-01-08 00:00:00.000', '1997-02-05 00:00:00.000', '1997-01-14 00:00:00.000', 1, 11.26, 'Folies gourmandes', '184, chaussée de Tournai', 'Lille', NULL, '59000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10409, 'OCEAN', 3, '1997-01-09 00:00:00.000', '1997-02-06 00:00:00.000', '1997-01-14 00:00:00.000', 1, 29.83, 'Océano Atlántico Ltda.', 'Ing. Gustavo Moncada 8585 Piso 20-A', 'Buenos Aires', NULL, '1010', 'Argentina');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10410, 'BOTTM', 3, '1997-01-10 00:00:00.000', '1997-02-07 00:00:00.000', '1997-01-15 00:00:00.000', 3, 2.4, 'Bottom-Dollar Markets', '23 Tsawassen Blvd.', 'Tsawassen', 'BC', 'T2F 8M4', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10411, 'BOTTM', 9, '1997-01-10 00:00:00.000', '1997-02-07 00:00:00.000', '1997-01-21 00:00:00.000', 3, 23.65, 'Bottom-Dollar Markets', '23 Tsawassen Blvd.', 'Tsawassen', 'BC', 'T2F 8M4', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10412, 'WARTH', 8, '1997-01-13 00:00:00.000', '1997-02-10 00:00:00.000', '1997-01-15 00:00:00.000', 2, 3.77, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10413, 'LAMAI', 3, '1997-01-14 00:00:00.000', '1997-02-11 00:00:00.000', '1997-01-16 00:00:00.000', 2, 95.66, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10414, 'FAMIA', 2, '1997-01-14 00:00:00.000', '1997-02-11 00:00:00.000', '1997-01-17 00:00:00.000', 3, 21.48, 'Familia Arquibaldo', 'Rua Orós, 92', 'Sao Paulo', 'SP', '05442-030', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10415, 'HUNGC', 3, '1997-01-15 00:00:00.000', '1997-02-12 00:00:00.000', '1997-01-24 00:00:00.000', 1, 0.2, 'Hungry Coyote Import Store', 'City Center Plaza 516 Main St.', 'Elgin', 'OR', '97827', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10416, 'WARTH', 8, '1997-01-16 00:00:00.000', '1997-02-13 00:00:00.000', '1997-01-27 00:00:00.000', 3, 22.72, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10417, 'SIMOB', 4, '1997-01-16 00:00:00.000', '1997-02-13 00:00:00.000', '1997-01-28 00:00:00.000', 3, 70.29, 'Simons bistro', 'Vinbæltet 34', 'Kobenhavn', NULL, '1734', 'Denmark');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10418, 'QUICK', 4, '1997-01-17 00:00:00.000', '1997-02-14 00:00:00.000', '1997-01-24 00:00:00.000', 1, 17.55, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10419, 'RICSU', 4, '1997-01-20 00:00:00.000', '1997-02-17 00:00:00.000', '1997-01-30 00:00:00.000', 2, 137.35, 'Richter Supermarkt', 'Starenweg 5', 'Genève', NULL, '1204', 'Switzerland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10420, 'WELLI', 3, '1997-01-21 00:00:00.000', '1997-02-18 00:00:00.000', '1997-01-27 00:00:00.000', 1, 44.12, 'Wellington Importadora', 'Rua do Mercado, 12', 'Resende', 'SP', '08737-363', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10421, 'QUEDE', 8, '1997-01-21 00:00:00.000', '1997-03-04 00:00:00.000', '1997-01-27 00:00:00.000', 1, 99.23, 'Que Delícia', 'Rua da Panificadora, 12', 'Rio de Janeiro', 'RJ', '02389-673', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10422, 'FRANS', 2, '1997-01-22 00:00:00.000', '1997-02-19 00:00:00.000', '1997-01-31 00:00:00.000', 1, 3.02, 'Franchi S.p.A.', 'Via Monte Bianco 34', 'Torino', NULL, '10100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10423, 'GOURL', 6, '1997-01-23 00:00:00.000', '1997-02-06 00:00:00.000', '1997-02-24 00:00:00.000', 3, 24.5, 'Gourmet Lanchonetes', 'Av. Brasil, 442', 'Campinas', 'SP', '04876-786', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10424, 'MEREP', 7, '1997-01-23 00:00:00.000', '1997-02-20 00:00:00.000', '1997-01-27 00:00:00.000', 2, 370.61, 'Mère Paillarde', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10425, 'LAMAI', 6, '1997-01-24 00:00:00.000', '1997-02-21 00:00:00.000', '1997-02-14 00:00:00.000', 2, 7.93, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10426, 'GALED', 4, '1997-01-27 00:00:00.000', '1997-02-24 00:00:00.000', '1997-02-06 00:00:00.000', 1, 18.69, 'Galería del gastronómo', 'Rambla de Cataluña, 23', 'Barcelona', NULL, '8022', 'Spain');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10427, 'PICCO', 4, '1997-01-27 00:00:00.000', '1997-02-24 00:00:00.000', '1997-03-03 00:00:00.000', 2, 31.29, 'Piccolo und mehr', 'Geislweg 14', 'Salzburg', NULL, '5020', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10428, 'REGGC', 7, '1997-01-28 00:00:00.000', '1997-02-25 00:00:00.000', '1997-02-04 00:00:00.000', 1, 11.09, 'Reggiani Caseifici', 'Strada Provinciale 124', 'Reggio Emilia', NULL, '42100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10429, 'HUNGO', 3, '1997-01-29 00:00:00.000', '1997-03-12 00:00:00.000', '1997-02-07 00:00:00.000', 2, 56.63, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10430, 'ERNSH', 4, '1997-01-30 00:00:00.000', '1997-02-13 00:00:00.000', '1997-02-03 00:00:00.000', 1, 458.78, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10431, 'BOTTM', 4, '1997-01-30 00:00:00.000', '1997-02-13 00:00:00.000', '1997-02-07 00:00:00.000', 2, 44.17, 'Bottom-Dollar Markets', '23 Tsawassen Blvd.', 'Tsawassen', 'BC', 'T2F 8M4', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10432, 'SPLIR', 3, '1997-01-31 00:00:00.000', '1997-02-14 00:00:00.000', '1997-02-07 00:00:00.000', 2, 4.34, 'Split Rail Beer & Ale', 'P.O. Box 555', 'Lander', 'WY', '82520', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10433, 'PRINI', 3, '1997-02-03 00:00:00.000', '1997-03-03 00:00:00.000', '1997-03-04 00:00:00.000', 3, 73.83, 'Princesa Isabel Vinhos', 'Estrada da saúde n. 58', 'Lisboa', NULL, '1756', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10434, 'FOLKO', 3, '1997-02-03 00:00:00.000', '1997-03-03 00:00:00.000', '1997-02-13 00:00:00.000', 2, 17.92, 'Folk och fä HB', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10435, 'CONSH', 8, '1997-02-04 00:00:00.000', '1997-03-18 00:00:00.000', '1997-02-07 00:00:00.000', 2, 9.21, 'Consolidated Holdings', 'Berkeley Gardens 12  Brewery', 'London', NULL, 'WX1 6LT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10436, 'BLONP', 3, '1997-02-05 00:00:00.000', '1997-03-05 00:00:00.000', '1997-02-11 00:00:00.000', 2, 156.66, 'Blondel père et fils', '24, place Kléber', 'Strasbourg', NULL, '67000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10437, 'WARTH', 8, '1997-02-05 00:00:00.000', '1997-03-05 00:00:00.000', '1997-02-12 00:00:00.000', 1, 19.97, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10438, 'TOMSP', 3, '1997-02-06 00:00:00.000', '1997-03-06 00:00:00.000', '1997-02-14 00:00:00.000', 2, 8.24, 'Toms Spezialitäten', 'Luisenstr. 48', 'Münster', NULL, '44087', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10439, 'MEREP', 6, '1997-02-07 00:00:00.000', '1997-03-07 00:00:00.000', '1997-02-10 00:00:00.000', 3, 4.07, 'Mère Paillarde', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10440, 'SAVEA', 4, '1997-02-10 00:00:00.000', '1997-03-10 00:00:00.000', '1997-02-28 00:00:00.000', 2, 86.53, 'Save-a-lot Markets', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10441, 'OLDWO', 3, '1997-02-10 00:00:00.000', '1997-03-24 00:00:00.000', '1997-03-14 00:00:00.000', 2, 73.02, 'Old World Delicatessen', '2743 Bering St.', 'Anchorage', 'AK', '99508', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10442, 'ERNSH', 3, '1997-02-11 00:00:00.000', '1997-03-11 00:00:00.000', '1997-02-18 00:00:00.000', 2, 47.94, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10443, 'REGGC', 8, '1997-02-12 00:00:00.000', '1997-03-12 00:00:00.000', '1997-02-14 00:00:00.000', 1, 13.95, 'Reggiani Caseifici', 'Strada Provinciale 124', 'Reggio Emilia', NULL, '42100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10444, 'BERGS', 3, '1997-02-12 00:00:00.000', '1997-03-12 00:00:00.000', '1997-02-21 00:00:00.000', 3, 3.5, 'Berglunds snabbköp', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10445, 'BERGS', 3, '1997-02-13 00:00:00.000', '1997-03-13 00:00:00.000', '1997-02-20 00:00:00.000', 1, 9.3, 'Berglunds snabbköp', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10446, 'TOMSP', 6, '1997-02-14 00:00:00.000', '1997-03-14 00:00:00.000', '1997-02-19 00:00:00.000', 1, 14.68, 'Toms Spezialitäten', 'Luisenstr. 48', 'Münster', NULL, '44087', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10447, 'RICAR', 4, '1997-02-14 00:00:00.000', '1997-03-14 00:00:00.000', '1997-03-07 00:00:00.000', 2, 68.66, 'Ricardo Adocicados', 'Av. Copacabana, 267', 'Rio de Janeiro', 'RJ', '02389-890', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10448, 'RANCH', 4, '1997-02-17 00:00:00.000', '1997-03-17 00:00:00.000', '1997-02-24 00:00:00.000', 2, 38.82, 'Rancho grande', 'Av. del Libertador 900', 'Buenos Aires', NULL, '1010', 'Argentina');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10449, 'BLONP', 3, '1997-02-18 00:00:00.000', '1997-03-18 00:00:00.000', '1997-02-27 00:00:00.000', 2, 53.3, 'Blondel père et fils', '24, place Kléber', 'Strasbourg', NULL, '67000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10450, 'VICTE', 8, '1997-02-19 00:00:00.000', '1997-03-19 00:00:00.000', '1997-03-11 00:00:00.000', 2, 7.23, 'Victuailles en stock', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10451, 'QUICK', 4, '1997-02-19 00:00:00.000', '1997-03-05 00:00:00.000', '1997-03-12 00:00:00.000', 3, 189.09, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10452, 'SAVEA', 8, '1997-02-20 00:00:00.000', '1997-03-20 00:00:00.000', '1997-02-26 00:00:00.000', 1, 140.26, 'Save-a-lot Markets', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10453, 'AROUT', 1, '1997-02-21 00:00:00.000', '1997-03-21 00:00:00.000', '1997-02-26 00:00:00.000', 2, 25.36, 'Around the Horn', 'Brook Farm Stratford St. Mary', 'Colchester', 'Essex', 'CO7 6JX', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10454, 'LAMAI', 4, '1997-02-21 00:00:00.000', '1997-03-21 00:00:00.000', '1997-02-25 00:00:00.000', 3, 2.74, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10455, 'WARTH', 8, '1997-02-24 00:00:00.000', '1997-04-07 00:00:00.000', '1997-03-03 00:00:00.000', 2, 180.45, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10456, 'KOENE', 8, '1997-02-25 00:00:00.000', '1997-04-08 00:00:00.000', '1997-02-28 00:00:00.000', 2, 8.12, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10457, 'KOENE', 2, '1997-02-25 00:00:00.000', '1997-03-25 00:00:00.000', '1997-03-03 00:00:00.000', 1, 11.57, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10458, 'SUPRD', 7, '1997-02-26 00:00:00.000', '1997-03-26 00:00:00.000', '1997-03-04 00:00:00.000', 3, 147.06, 'Suprêmes délices', 'Boulevard Tirou, 255', 'Charleroi', NULL, 'B-6000', 'Belgium');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10459, 'VICTE', 4, '1997-02-27 00:00:00.000', '1997-03-27 00:00:00.000', '1997-02-28 00:00:00.000', 2, 25.09, 'Victuailles en stock', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10460, 'FOLKO', 8, '1997-02-28 00:00:00.000', '1997-03-28 00:00:00.000', '1997-03-03 00:00:00.000', 1, 16.27, 'Folk och fä HB', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10461, 'LILAS', 1, '1997-02-28 00:00:00.000', '1997-03-28 00:00:00.000', '1997-03-05 00:00:00.000', 3, 148.61, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10462, 'CONSH', 2, '1997-03-03 00:00:00.000', '1997-03-31 00:00:00.000', '1997-03-18 00:00:00.000', 1, 6.17, 'Consolidated Holdings', 'Berkeley Gardens 12  Brewery', 'London', NULL, 'WX1 6LT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10463, 'SUPRD', 5, '1997-03-04 00:00:00.000', '1997-04-01 00:00:00.000', '1997-03-06 00:00:00.000', 3, 14.78, 'Suprêmes délices', 'Boulevard Tirou, 255', 'Charleroi', NULL, 'B-6000', 'Belgium');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10464, 'FURIB', 4, '1997-03-04 00:00:00.000', '1997-04-01 00:00:00.000', '1997-03-14 00:00:00.000', 2, 89, 'Furia Bacalhau e Frutos do Mar', 'Jardim das rosas n. 32', 'Lisboa', NULL, '1675', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10465, 'VAFFE', 1, '1997-03-05 00:00:00.000', '1997-04-02 00:00:00.000', '1997-03-14 00:00:00.000', 3, 145.04, 'Vaffeljernet', 'Smagsloget 45', 'Århus', NULL, '8200', 'Denmark');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10466, 'COMMI', 4, '1997-03-06 00:00:00.000', '1997-04-03 00:00:00.000', '1997-03-13 00:00:00.000', 1, 11.93, 'Comércio Mineiro', 'Av. dos Lusíadas, 23', 'Sao Paulo', 'SP', '05432-043', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10467, 'MAGAA', 8, '1997-03-06 00:00:00.000', '1997-04-03 00:00:00.000', '1997-03-11 00:00:00.000', 2, 4.93, 'Magazzini Alimentari Riuniti', 'Via Ludovico il Moro 22', 'Bergamo', NULL, '24100', 'Italy');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10468, 'KOENE', 3, '1997-03-07 00:00:00.000', '1997-04-04 00:00:00.000', '1997-03-12 00:00:00.000', 3, 44.12, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10469, 'WHITC', 1, '1997-03-10 00:00:00.000', '1997-04-07 00:00:00.000', '1997-03-14 00:00:00.000', 1, 60.18, 'White Clover Markets', '1029 - 12th Ave. S.', 'Seattle', 'WA', '98124', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10470, 'BONAP', 4, '1997-03-11 00:00:00.000', '1997-04-08 00:00:00.000', '1997-03-14 00:00:00.000', 2, 64.56, 'Bon app-', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10471, 'BSBEV', 2, '1997-03-11 00:00:00.000', '1997-04-08 00:00:00.000', '1997-03-18 00:00:00.000', 3, 45.59, 'B-s Beverages', 'Fauntleroy Circus', 'London', NULL, 'EC2 5NT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10472, 'SEVES', 8, '1997-03-12 00:00:00.000', '1997-04-09 00:00:00.000', '1997-03-19 00:00:00.000', 1, 4.2, 'Seven Seas Imports', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10473, 'ISLAT', 1, '1997-03-13 00:00:00.000', '1997-03-27 00:00:00.000', '1997-03-21 00:00:00.000', 3, 16.37, 'Island Trading', 'Garden House Crowther Way', 'Cowes', 'Isle of Wight', 'PO31 7PJ', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10474, 'PERIC', 5, '1997-03-13 00:00:00.000', '1997-04-10 00:00:00.000', '1997-03-21 00:00:00.000', 2, 83.49, 'Pericles Comidas clásicas', 'Calle Dr. Jorge Cash 321', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10475, 'SUPRD', 9, '1997-03-14 00:00:00.000', '1997-04-11 00:00:00.000', '1997-04-04 00:00:00.000', 1, 68.52, 'Suprêmes délices', 'Boulevard Tirou, 255', 'Charleroi', NULL, 'B-6000', 'Belgium');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10476, 'HILAA', 8, '1997-03-17 00:00:00.000', '1997-04-14 00:00:00.000', '1997-03-24 00:00:00.000', 3, 4.41, 'HILARION-Abastos', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10477, 'PRINI', 5, '1997-03-17 00:00:00.000', '1997-04-14 00:00:00.000', '1997-03-25 00:00:00.000', 2, 13.02, 'Princesa Isabel Vinhos', 'Estrada da saúde n. 58', 'Lisboa', NULL, '1756', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10478, 'VICTE', 2, '1997-03-18 00:00:00.000', '1997-04-01 00:00:00.000', '1997-03-26 00:00:00.000', 3, 4.81, 'Victuailles en stock', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10479, 'RATTC', 3, '1997-03-19 00:00:00.000', '1997-04-16 00:00:00.000', '1997-03-21 00:00:00.000', 3, 708.95, 'Rattlesnake Canyon Grocery', '2817 Milton Dr.', 'Albuquerque', 'NM', '87110', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10480, 'FOLIG', 6, '1997-03-20 00:00:00.000', '1997-04-17 00:00:00.000', '1997-03-24 00:00:00.000', 2, 1.35, 'Folies gourmandes', '184, chaussée de Tournai', 'Lille', NULL, '59000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10481, 'RICAR', 8, '1997-03-20 00:00:00.000', '1997-04-17 00:00:00.000', '1997-03-25 00:00:00.000', 2, 64.33, 'Ricardo Adocicados', 'Av. Copacabana, 267', 'Rio de Janeiro', 'RJ', '02389-890', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10482, 'LAZYK', 1, '1997-03-21 00:00:00.000', '1997-04-18 00:00:00.000', '1997-04-10 00:00:00.000', 3, 7.48, 'Lazy K Kountry Store', '12 Orchestra Terrace', 'Walla Walla', 'WA', '99362', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10483, 'WHITC', 7, '1997-03-24 00:00:00.000', '1997-04-21 00:00:00.000', '1997-04-25 00:00:00.000', 2, 15.28, 'White Clover Markets', '1029 - 12th Ave. S.', 'Seattle', 'WA', '98124', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10484, 'BSBEV', 3, '1997-03-24 00:00:00.000', '1997-04-21 00:00:00.000', '1997-04-01 00:00:00.000', 3, 6.88, 'B-s Beverages', 'Fauntleroy Circus', 'London', NULL, 'EC2 5NT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10485, 'LINOD', 4, '1997-03-25 00:00:00.000', '1997-04-08 00:00:00.000', '1997-03-31 00:00:00.000', 2, 64.45, 'LINO-Delicateses', 'Ave. 5 de Mayo Porlamar', 'I. de Margarita', 'Nueva Esparta', '4980', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10486, 'HILAA', 1, '1997-03-26 00:00:00.000', '1997-04-23 00:00:00.000', '1997-04-02 00:00:00.000', 2, 30.53, 'HILARION-Abastos', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10487, 'QUEEN', 2, '1997-03-26 00:00:00.000', '1997-04-23 00:00:00.000', '1997-03-28 00:00:00.000', 2, 71.07, 'Queen Cozinha', 'Alameda dos Canàrios, 891', 'Sao Paulo', 'SP', '05487-020', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10488, 'FRANK', 8, '1997-03-27 00:00:00.000', '1997-04-24 00:00:00.000', '1997-04-02 00:00:00.000', 2, 4.93, 'Frankenversand', 'Berliner Platz 43', 'München', NULL, '80805', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10489, 'PICCO', 6, '1997-03-28 00:00:00.000', '1997-04-25 00:00:00.000', '1997-04-09 00:00:00.000', 2, 5.29, 'Piccolo und mehr', 'Geislweg 14', 'Salzburg', NULL, '5020', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10490, 'HILAA', 7, '1997-03-31 00:00:00.000', '1997-04-28 00:00:00.000', '1997-04-03 00:00:00.000', 2, 210.19, 'HILARION-Abastos', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10491, 'FURIB', 8, '1997-03-31 00:00:00.000', '1997-04-28 00:00:00.000', '1997-04-08 00:00:00.000', 3, 16.96, 'Furia Bacalhau e Frutos do Mar', 'Jardim das rosas n. 32', 'Lisboa', NULL, '1675', 'Portugal');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10492, 'BOTTM', 3, '1997-04-01 00:00:00.000', '1997-04-29 00:00:00.000', '1997-04-11 00:00:00.000', 1, 62.89, 'Bottom-Dollar Markets', '23 Tsawassen Blvd.', 'Tsawassen', 'BC', 'T2F 8M4', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10493, 'LAMAI', 4, '1997-04-02 00:00:00.000', '1997-04-30 00:00:00.000', '1997-04-10 00:00:00.000', 3, 10.64, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10494, 'COMMI', 4, '1997-04-02 00:00:00.000', '1997-04-30 00:00:00.000', '1997-04-09 00:00:00.000', 2, 65.99, 'Comércio Mineiro', 'Av. dos Lusíadas, 23', 'Sao Paulo', 'SP', '05432-043', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10495, 'LAUGB', 3, '1997-04-03 00:00:00.000', '1997-05-01 00:00:00.000', '1997-04-11 00:00:00.000', 3, 4.65, 'Laughing Bacchus Wine Cellars', '2319 Elm St.', 'Vancouver', 'BC', 'V3F 2K1', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10496, 'TRADH', 7, '1997-04-04 00:00:00.000', '1997-05-02 00:00:00.000', '1997-04-07 00:00:00.000', 2, 46.77, 'Tradiçao Hipermercados', 'Av. Inês de Castro, 414', 'Sao Paulo', 'SP', '05634-030', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10497, 'LEHMS', 7, '1997-04-04 00:00:00.000', '1997-05-02 00:00:00.000', '1997-04-07 00:00:00.000', 1, 36.21, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10498, 'HILAA', 8, '1997-04-07 00:00:00.000', '1997-05-05 00:00:00.000', '1997-04-11 00:00:00.000', 2, 29.75, 'HILARION-Abastos', 'Carrera 22 con Ave. Carlos Soublette #8-35', 'San Cristóbal', 'Táchira', '5022', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10499, 'LILAS', 4, '1997-04-08 00:00:00.000', '1997-05-06 00:00:00.000', '1997-04-16 00:00:00.000', 2, 102.02, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10500, 'LAMAI', 6, '1997-04-09 00:00:00.000', '1997-05-07 00:00:00.000', '1997-04-17 00:00:00.000', 1, 42.68, 'La maison d-Asie', '1 rue Alsace-Lorraine', 'Toulouse', NULL, '31000', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10501, 'BLAUS', 9, '1997-04-09 00:00:00.000', '1997-05-07 00:00:00.000', '1997-04-16 00:00:00.000', 3, 8.85, 'Blauer See Delikatessen', 'Forsterstr. 57', 'Mannheim', NULL, '68306', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10502, 'PERIC', 2, '1997-04-10 00:00:00.000', '1997-05-08 00:00:00.000', '1997-04-29 00:00:00.000', 1, 69.32, 'Pericles Comidas clásicas', 'Calle Dr. Jorge Cash 321', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10503, 'HUNGO', 6, '1997-04-11 00:00:00.000', '1997-05-09 00:00:00.000', '1997-04-16 00:00:00.000', 2, 16.74, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10504, 'WHITC', 4, '1997-04-11 00:00:00.000', '1997-05-09 00:00:00.000', '1997-04-18 00:00:00.000', 3, 59.13, 'White Clover Markets', '1029 - 12th Ave. S.', 'Seattle', 'WA', '98124', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10505, 'MEREP', 3, '1997-04-14 00:00:00.000', '1997-05-12 00:00:00.000', '1997-04-21 00:00:00.000', 3, 7.13, 'Mère Paillarde', '43 rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10506, 'KOENE', 9, '1997-04-15 00:00:00.000', '1997-05-13 00:00:00.000', '1997-05-02 00:00:00.000', 2, 21.19, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10507, 'ANTON', 7, '1997-04-15 00:00:00.000', '1997-05-13 00:00:00.000', '1997-04-22 00:00:00.000', 1, 47.45, 'Antonio Moreno Taquería', 'Mataderos  2312', 'México D.F.', NULL, '5023', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10508, 'OTTIK', 1, '1997-04-16 00:00:00.000', '1997-05-14 00:00:00.000', '1997-05-13 00:00:00.000', 2, 4.99, 'Ottilies Käseladen', 'Mehrheimerstr. 369', 'Köln', NULL, '50739', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10509, 'BLAUS', 4, '1997-04-17 00:00:00.000', '1997-05-15 00:00:00.000', '1997-04-29 00:00:00.000', 1, 0.15, 'Blauer See Delikatessen', 'Forsterstr. 57', 'Mannheim', NULL, '68306', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10510, 'SAVEA', 6, '1997-04-18 00:00:00.000', '1997-05-16 00:00:00.000', '1997-04-28 00:00:00.000', 3, 367.63, 'Save-a-lot Markets', '187 Suffolk Ln.', 'Boise', 'ID', '83720', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10511, 'BONAP', 4, '1997-04-18 00:00:00.000', '1997-05-16 00:00:00.000', '1997-04-21 00:00:00.000', 3, 350.64, 'Bon app-', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10512, 'FAMIA', 7, '1997-04-21 00:00:00.000', '1997-05-19 00:00:00.000', '1997-04-24 00:00:00.000', 2, 3.53, 'Familia Arquibaldo', 'Rua Orós, 92', 'Sao Paulo', 'SP', '05442-030', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10513, 'WANDK', 7, '1997-04-22 00:00:00.000', '1997-06-03 00:00:00.000', '1997-04-28 00:00:00.000', 1, 105.65, 'Die Wandernde Kuh', 'Adenauerallee 900', 'Stuttgart', NULL, '70563', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10514, 'ERNSH', 3, '1997-04-22 00:00:00.000', '1997-05-20 00:00:00.000', '1997-05-16 00:00:00.000', 2, 789.95, 'Ernst Handel', 'Kirchgasse 6', 'Graz', NULL, '8010', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10515, 'QUICK', 2, '1997-04-23 00:00:00.000', '1997-05-07 00:00:00.000', '1997-05-23 00:00:00.000', 1, 204.47, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10516, 'HUNGO', 2, '1997-04-24 00:00:00.000', '1997-05-22 00:00:00.000', '1997-05-01 00:00:00.000', 3, 62.78, 'Hungry Owl All-Night Grocers', '8 Johnstown Road', 'Cork', 'Co. Cork', NULL, 'Ireland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10517, 'NORTS', 3, '1997-04-24 00:00:00.000', '1997-05-22 00:00:00.000', '1997-04-29 00:00:00.000', 3, 32.07, 'North/South', 'South House 300 Queensbridge', 'London', NULL, 'SW7 1RZ', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10518, 'TORTU', 4, '1997-04-25 00:00:00.000', '1997-05-09 00:00:00.000', '1997-05-05 00:00:00.000', 2, 218.15, 'Tortuga Restaurante', 'Avda. Azteca 123', 'México D.F.', NULL, '5033', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10519, 'CHOPS', 6, '1997-04-28 00:00:00.000', '1997-05-26 00:00:00.000', '1997-05-01 00:00:00.000', 3, 91.76, 'Chop-suey Chinese', 'Hauptstr. 31', 'Bern', NULL, '3012', 'Switzerland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10520, 'SANTG', 7, '1997-04-29 00:00:00.000', '1997-05-27 00:00:00.000', '1997-05-01 00:00:00.000', 1, 13.37, 'Santé Gourmet', 'Erling Skakkes gate 78', 'Stavern', NULL, '4110', 'Norway');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10521, 'CACTU', 8, '1997-04-29 00:00:00.000', '1997-05-27 00:00:00.000', '1997-05-02 00:00:00.000', 2, 17.22, 'Cactus Comidas para llevar', 'Cerrito 333', 'Buenos Aires', NULL, '1010', 'Argentina');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10522, 'LEHMS', 4, '1997-04-30 00:00:00.000', '1997-05-28 00:00:00.000', '1997-05-06 00:00:00.000', 1, 45.33, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10523, 'SEVES', 7, '1997-05-01 00:00:00.000', '1997-05-29 00:00:00.000', '1997-05-30 00:00:00.000', 2, 77.63, 'Seven Seas Imports', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10524, 'BERGS', 1, '1997-05-01 00:00:00.000', '1997-05-29 00:00:00.000', '1997-05-07 00:00:00.000', 2, 244.79, 'Berglunds snabbköp', 'Berguvsvägen  8', 'Luleå', NULL, 'S-958 22', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10525, 'BONAP', 1, '1997-05-02 00:00:00.000', '1997-05-30 00:00:00.000', '1997-05-23 00:00:00.000', 2, 11.06, 'Bon app-', '12, rue des Bouchers', 'Marseille', NULL, '13008', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10526, 'WARTH', 4, '1997-05-05 00:00:00.000', '1997-06-02 00:00:00.000', '1997-05-15 00:00:00.000', 2, 58.59, 'Wartian Herkku', 'Torikatu 38', 'Oulu', NULL, '90110', 'Finland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10527, 'QUICK', 7, '1997-05-05 00:00:00.000', '1997-06-02 00:00:00.000', '1997-05-07 00:00:00.000', 1, 41.9, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10528, 'GREAL', 6, '1997-05-06 00:00:00.000', '1997-05-20 00:00:00.000', '1997-05-09 00:00:00.000', 2, 3.35, 'Great Lakes Food Market', '2732 Baker Blvd.', 'Eugene', 'OR', '97403', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10529, 'MAISD', 5, '1997-05-07 00:00:00.000', '1997-06-04 00:00:00.000', '1997-05-09 00:00:00.000', 2, 66.69, 'Maison Dewey', 'Rue Joseph-Bens 532', 'Bruxelles', NULL, 'B-1180', 'Belgium');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10530, 'PICCO', 3, '1997-05-08 00:00:00.000', '1997-06-05 00:00:00.000', '1997-05-12 00:00:00.000', 2, 339.22, 'Piccolo und mehr', 'Geislweg 14', 'Salzburg', NULL, '5020', 'Austria');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10531, 'OCEAN', 7, '1997-05-08 00:00:00.000', '1997-06-05 00:00:00.000', '1997-05-19 00:00:00.000', 1, 8.12, 'Océano Atlántico Ltda.', 'Ing. Gustavo Moncada 8585 Piso 20-A', 'Buenos Aires', NULL, '1010', 'Argentina');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10532, 'EASTC', 7, '1997-05-09 00:00:00.000', '1997-06-06 00:00:00.000', '1997-05-12 00:00:00.000', 3, 74.46, 'Eastern Connection', '35 King George', 'London', NULL, 'WX3 6FW', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10533, 'FOLKO', 8, '1997-05-12 00:00:00.000', '1997-06-09 00:00:00.000', '1997-05-22 00:00:00.000', 1, 188.04, 'Folk och fä HB', 'Åkergatan 24', 'Bräcke', NULL, 'S-844 67', 'Sweden');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10534, 'LEHMS', 8, '1997-05-12 00:00:00.000', '1997-06-09 00:00:00.000', '1997-05-14 00:00:00.000', 2, 27.94, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10535, 'ANTON', 4, '1997-05-13 00:00:00.000', '1997-06-10 00:00:00.000', '1997-05-21 00:00:00.000', 1, 15.64, 'Antonio Moreno Taquería', 'Mataderos  2312', 'México D.F.', NULL, '5023', 'Mexico');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10536, 'LEHMS', 3, '1997-05-14 00:00:00.000', '1997-06-11 00:00:00.000', '1997-06-06 00:00:00.000', 2, 58.88, 'Lehmanns Marktstand', 'Magazinweg 7', 'Frankfurt a.M.', NULL, '60528', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10537, 'RICSU', 1, '1997-05-14 00:00:00.000', '1997-05-28 00:00:00.000', '1997-05-19 00:00:00.000', 1, 78.85, 'Richter Supermarkt', 'Starenweg 5', 'Genève', NULL, '1204', 'Switzerland');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10538, 'BSBEV', 9, '1997-05-15 00:00:00.000', '1997-06-12 00:00:00.000', '1997-05-16 00:00:00.000', 3, 4.87, 'B-s Beverages', 'Fauntleroy Circus', 'London', NULL, 'EC2 5NT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10539, 'BSBEV', 6, '1997-05-16 00:00:00.000', '1997-06-13 00:00:00.000', '1997-05-23 00:00:00.000', 3, 12.36, 'B-s Beverages', 'Fauntleroy Circus', 'London', NULL, 'EC2 5NT', 'UK');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10540, 'QUICK', 3, '1997-05-19 00:00:00.000', '1997-06-16 00:00:00.000', '1997-06-13 00:00:00.000', 3, 1007.64, 'QUICK-Stop', 'Taucherstraße 10', 'Cunewalde', NULL, '1307', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10541, 'HANAR', 2, '1997-05-19 00:00:00.000', '1997-06-16 00:00:00.000', '1997-05-29 00:00:00.000', 1, 68.65, 'Hanari Carnes', 'Rua do Paço, 67', 'Rio de Janeiro', 'RJ', '05454-876', 'Brazil');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10542, 'KOENE', 1, '1997-05-20 00:00:00.000', '1997-06-17 00:00:00.000', '1997-05-26 00:00:00.000', 3, 10.95, 'Königlich Essen', 'Maubelstr. 90', 'Brandenburg', NULL, '14776', 'Germany');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10543, 'LILAS', 8, '1997-05-21 00:00:00.000', '1997-06-18 00:00:00.000', '1997-05-23 00:00:00.000', 2, 48.17, 'LILA-Supermercado', 'Carrera 52 con Ave. Bolívar #65-98 Llano Largo', 'Barquisimeto', 'Lara', '3508', 'Venezuela');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10544, 'LONEP', 4, '1997-05-21 00:00:00.000', '1997-06-18 00:00:00.000', '1997-05-30 00:00:00.000', 1, 24.91, 'Lonesome Pine Restaurant', '89 Chiaroscuro Rd.', 'Portland', 'OR', '97219', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10545, 'LAZYK', 8, '1997-05-22 00:00:00.000', '1997-06-19 00:00:00.000', '1997-06-26 00:00:00.000', 2, 11.92, 'Lazy K Kountry Store', '12 Orchestra Terrace', 'Walla Walla', 'WA', '99362', 'USA');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10546, 'VICTE', 1, '1997-05-23 00:00:00.000', '1997-06-20 00:00:00.000', '1997-05-27 00:00:00.000', 3, 194.72, 'Victuailles en stock', '2, rue du Commerce', 'Lyon', NULL, '69004', 'France');
INSERT INTO "Orders" ("OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry") VALUES (10547, 'SEVES', 3, '1997-05-23 00:00:00.000', '1997-06-20 00:00:00.000', '1997-06-02 00:00:00.000', 2, 178.43, 'Seven Seas Imports', '90 Wadhurst Rd.', 'London', NULL, 'OX15 4NB', 'UK');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (1, 'Chai', 1, 1, '10 boxes x 20 bags', 18, 39, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (2, 'Chang', 1, 1, '24 - 12 oz bottles', 19, 17, 40, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (3, 'Aniseed Syrup', 1, 2, '12 - 550 ml bottles', 10, 13, 70, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (4, 'Chef Anton''s Cajun Seasoning', 2, 2, '48 - 6 oz jars', 22, 53, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (5, 'Chef Anton''s Gumbo Mix', 2, 2, '36 boxes', 21.35, 0, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (6, 'Grandma''s Boysenberry Spread', 3, 2, '12 - 8 oz jars', 25, 120, 0, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (7, 'Uncle Bob''s Organic Dried Pears', 3, 7, '12 - 1 lb pkgs.', 30, 15, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (8, 'Northwoods Cranberry Sauce', 3, 2, '12 - 12 oz jars', 40, 6, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (9, 'Mishi Kobe Niku', 4, 6, '18 - 500 g pkgs.', 97, 29, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (10, 'Ikura', 4, 8, '12 - 200 ml jars', 31, 31, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (11, 'Queso Cabrales', 5, 4, '1 kg pkg.', 21, 22, 30, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (12, 'Queso Manchego La Pastora', 5, 4, '10 - 500 g pkgs.', 38, 86, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (13, 'Konbu', 6, 8, '2 kg box', 6, 24, 0, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (14, 'Tofu', 6, 7, '40 - 100 g pkgs.', 23.25, 35, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (15, 'Genen Shouyu', 6, 2, '24 - 250 ml bottles', 15.5, 39, 0, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (16, 'Pavlova', 7, 3, '32 - 500 g boxes', 17.45, 29, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (17, 'Alice Mutton', 7, 6, '20 - 1 kg tins', 39, 0, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (18, 'Carnarvon Tigers', 7, 8, '16 kg pkg.', 62.5, 42, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (19, 'Teatime Chocolate Biscuits', 8, 3, '10 boxes x 12 pieces', 9.2, 25, 0, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (20, 'Sir Rodney''s Marmalade', 8, 3, '30 gift boxes', 81, 40, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (21, 'Sir Rodney''s Scones', 8, 3, '24 pkgs. x 4 pieces', 10, 3, 40, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (22, 'Gustaf''s Knäckebröd', 9, 5, '24 - 500 g pkgs.', 21, 104, 0, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (23, 'Tunnbröd', 9, 5, '12 - 250 g pkgs.', 9, 61, 0, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (24, 'Guaraná Fantástica', 10, 1, '12 - 355 ml cans', 4.5, 20, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (25, 'NuNuCa Nuß-Nougat-Creme', 11, 3, '20 - 450 g glasses', 14, 76, 0, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (26, 'Gumbär Gummibärchen', 11, 3, '100 - 250 g bags', 31.23, 15, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (27, 'Schoggi Schokolade', 11, 3, '100 - 100 g pieces', 43.9, 49, 0, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (28, 'Rössle Sauerkraut', 12, 7, '25 - 825 g cans', 45.6, 26, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (29, 'Thüringer Rostbratwurst', 12, 6, '50 bags x 30 sausgs.', 123.79, 0, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (30, 'Nord-Ost Matjeshering', 13, 8, '10 - 200 g glasses', 25.89, 10, 0, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (31, 'Gorgonzola Telino', 14, 4, '12 - 100 g pkgs', 12.5, 0, 70, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (32, 'Mascarpone Fabioli', 14, 4, '24 - 200 g pkgs.', 32, 9, 40, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (33, 'Geitost', 15, 4, '500 g', 2.5, 112, 0, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (34, 'Sasquatch Ale', 16, 1, '24 - 12 oz bottles', 14, 111, 0, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (35, 'Steeleye Stout', 16, 1, '24 - 12 oz bottles', 18, 20, 0, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (36, 'Inlagd Sill', 17, 8, '24 - 250 g  jars', 19, 112, 0, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (37, 'Gravad lax', 17, 8, '12 - 500 g pkgs.', 26, 11, 50, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (38, 'Côte de Blaye', 18, 1, '12 - 75 cl bottles', 263.5, 17, 0, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (39, 'Chartreuse verte', 18, 1, '750 cc per bottle', 18, 69, 0, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (40, 'Boston Crab Meat', 19, 8, '24 - 4 oz tins', 18.4, 123, 0, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (41, 'Jack''s New England Clam Chowder', 19, 8, '12 - 12 oz cans', 9.65, 85, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (42, 'Singaporean Hokkien Fried Mee', 20, 5, '32 - 1 kg pkgs.', 14, 26, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (43, 'Ipoh Coffee', 20, 1, '16 - 500 g tins', 46, 17, 10, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (44, 'Gula Malacca', 20, 2, '20 - 2 kg bags', 19.45, 27, 0, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (45, 'Rogede sild', 21, 8, '1k pkg.', 9.5, 5, 70, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (46, 'Spegesild', 21, 8, '4 - 450 g glasses', 12, 95, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (47, 'Zaanse koeken', 22, 3, '10 - 4 oz boxes', 9.5, 36, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (48, 'Chocolade', 22, 3, '10 pkgs.', 12.75, 15, 70, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (49, 'Maxilaku', 23, 3, '24 - 50 g pkgs.', 20, 10, 60, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (50, 'Valkoinen suklaa', 23, 3, '12 - 100 g bars', 16.25, 65, 0, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (51, 'Manjimup Dried Apples', 24, 7, '50 - 300 g pkgs.', 53, 20, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (52, 'Filo Mix', 24, 5, '16 - 2 kg boxes', 7, 38, 0, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (53, 'Perth Pasties', 24, 6, '48 pieces', 32.8, 0, 0, 0, '1');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (54, 'Tourtière', 25, 6, '16 pies', 7.45, 21, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (55, 'Pâté chinois', 25, 6, '24 boxes x 2 pies', 24, 115, 0, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (56, 'Gnocchi di nonna Alice', 26, 5, '24 - 250 g pkgs.', 38, 21, 10, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (57, 'Ravioli Angelo', 26, 5, '24 - 250 g pkgs.', 19.5, 36, 0, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (58, 'Escargots de Bourgogne', 27, 8, '24 pieces', 13.25, 62, 0, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (59, 'Raclette Courdavault', 28, 4, '5 kg pkg.', 55, 79, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (60, 'Camembert Pierrot', 28, 4, '15 - 300 g rounds', 34, 19, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (61, 'Sirop d''érable', 29, 2, '24 - 500 ml bottles', 28.5, 113, 0, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (62, 'Tarte au sucre', 29, 3, '48 pies', 49.3, 17, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (63, 'Vegie-spread', 7, 2, '15 - 625 g jars', 43.9, 24, 0, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (64, 'Wimmers gute Semmelknödel', 12, 5, '20 bags x 4 pieces', 33.25, 22, 80, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (65, 'Louisiana Fiery Hot Pepper Sauce', 2, 2, '32 - 8 oz bottles', 21.05, 76, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (66, 'Louisiana Hot Spiced Okra', 2, 2, '24 - 8 oz jars', 17, 4, 100, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (67, 'Laughing Lumberjack Lager', 16, 1, '24 - 12 oz bottles', 14, 52, 0, 10, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (68, 'Scottish Longbreads', 8, 3, '10 boxes x 8 pieces', 12.5, 6, 10, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (69, 'Gudbrandsdalsost', 15, 4, '10 kg pkg.', 36, 26, 0, 15, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (70, 'Outback Lager', 7, 1, '24 - 355 ml bottles', 15, 15, 10, 30, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (71, 'Flotemysost', 15, 4, '10 - 500 g pkgs.', 21.5, 26, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (72, 'Mozzarella di Giovanni', 14, 4, '24 - 200 g pkgs.', 34.8, 14, 0, 0, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (73, 'Röd Kaviar', 17, 8, '24 - 150 g jars', 15, 101, 0, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (74, 'Longlife Tofu', 4, 7, '5 kg pkg.', 10, 4, 20, 5, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (75, 'Rhönbräu Klosterbier', 12, 1, '24 - 0.5 l bottles', 7.75, 125, 0, 25, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (76, 'Lakkalikööri', 23, 1, '500 ml', 18, 57, 0, 20, '0');
INSERT INTO "Products" ("ProductID", "ProductName", "SupplierID", "CategoryID", "QuantityPerUnit", "UnitPrice", "UnitsInStock", "UnitsOnOrder", "ReorderLevel", "Discontinued") VALUES (77, 'Original Frankfurter grüne Soße', 12, 2, '12 boxes', 13, 32, 0, 15, '0');
INSERT INTO "Regions" ("RegionID", "RegionDescription") VALUES (1, 'Eastern');
INSERT INTO "Regions" ("RegionID", "RegionDescription") VALUES (2, 'Western');
INSERT INTO "Regions" ("RegionID", "RegionDescription") VALUES (3, 'Northern');
INSERT INTO "Regions" ("RegionID", "RegionDescription") VALUES (4, 'Southern');
INSERT INTO "Shippers" ("ShipperID", "CompanyName", "Phone") VALUES (1, 'Speedy Express', '(503) 555-9831');
INSERT INTO "Shippers" ("ShipperID", "CompanyName", "Phone") VALUES (2, 'United Package', '(503) 555-3199');
INSERT INTO "Shippers" ("ShipperID", "CompanyName", "Phone") VALUES (3, 'Federal Shipping', '(503) 555-9931');
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (1, 'Exotic Liquids', 'Charlotte Cooper', 'Purchasing Manager', '49 Gilbert St.', 'London', NULL, 'EC1 4SD', 'UK', '(171) 555-2222', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (2, 'New Orleans Cajun Delights', 'Shelley Burke', 'Order Administrator', 'P.O. Box 78934', 'New Orleans', 'LA', '70117', 'USA', '(100) 555-4822', NULL, '#CAJUN.HTM#');
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (3, 'Grandma Kelly''s Homestead', 'Regina Murphy', 'Sales Representative', '707 Oxford Rd.', 'Ann Arbor', 'MI', '48104', 'USA', '(313) 555-5735', '(313) 555-3349', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (4, 'Tokyo Traders', 'Yoshi Nagase', 'Marketing Manager', '9-8 Sekimai
Musashino-shi', 'Tokyo', NULL, '100', 'Japan', '(03) 3555-5011', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (5, 'Cooperativa de Quesos ''Las Cabras''', 'Antonio del Valle Saavedra ', 'Export Administrator', 'Calle del Rosal 4', 'Oviedo', 'Asturias', '33007', 'Spain', '(98) 598 76 54', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (6, 'Mayumi''s', 'Mayumi Ohno', 'Marketing Representative', '92 Setsuko
Chuo-ku', 'Osaka', NULL, '545', 'Japan', '(06) 431-7877', NULL, 'Mayumi''s (on the World Wide Web)#http://www.microsoft.com/accessdev/sampleapps/mayumi.htm#');
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (7, 'Pavlova, Ltd.', 'Ian Devling', 'Marketing Manager', '74 Rose St.
Moonie Ponds', 'Melbourne', 'Victoria', '3058', 'Australia', '(03) 444-2343', '(03) 444-6588', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (8, 'Specialty Biscuits, Ltd.', 'Peter Wilson', 'Sales Representative', '29 King''s Way', 'Manchester', NULL, 'M14 GSD', 'UK', '(161) 555-4448', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (9, 'PB Knäckebröd AB', 'Lars Peterson', 'Sales Agent', 'Kaloadagatan 13', 'Göteborg', NULL, 'S-345 67', 'Sweden ', '031-987 65 43', '031-987 65 91', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (10, 'Refrescos Americanas LTDA', 'Carlos Diaz', 'Marketing Manager', 'Av. das Americanas 12.890', 'São Paulo', NULL, '5442', 'Brazil', '(11) 555 4640', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (11, 'Heli Süßwaren GmbH & Co. KG', 'Petra Winkler', 'Sales Manager', 'Tiergartenstraße 5', 'Berlin', NULL, '10785', 'Germany', '(010) 9984510', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (12, 'Plutzer Lebensmittelgroßmärkte AG', 'Martin Bein', 'International Marketing Mgr.', 'Bogenallee 51', 'Frankfurt', NULL, '60439', 'Germany', '(069) 992755', NULL, 'Plutzer (on the World Wide Web)#http://www.microsoft.com/accessdev/sampleapps/plutzer.htm#');
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (13, 'Nord-Ost-Fisch Handelsgesellschaft mbH', 'Sven Petersen', 'Coordinator Foreign Markets', 'Frahmredder 112a', 'Cuxhaven', NULL, '27478', 'Germany', '(04721) 8713', '(04721) 8714', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (14, 'Formaggi Fortini s.r.l.', 'Elio Rossi', 'Sales Representative', 'Viale Dante, 75', 'Ravenna', NULL, '48100', 'Italy', '(0544) 60323', '(0544) 60603', '#FORMAGGI.HTM#');
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (15, 'Norske Meierier', 'Beate Vileid', 'Marketing Manager', 'Hatlevegen 5', 'Sandvika', NULL, '1320', 'Norway', '(0)2-953010', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (16, 'Bigfoot Breweries', 'Cheryl Saylor', 'Regional Account Rep.', '3400 - 8th Avenue
Suite 210', 'Bend', 'OR', '97101', 'USA', '(503) 555-9931', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (17, 'Svensk Sjöföda AB', 'Michael Björn', 'Sales Representative', 'Brovallavägen 231', 'Stockholm', NULL, 'S-123 45', 'Sweden', '08-123 45 67', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (18, 'Aux joyeux ecclésiastiques', 'Guylène Nodier', 'Sales Manager', '203, Rue des Francs-Bourgeois', 'Paris', NULL, '75004', 'France', '(1) 03.83.00.68', '(1) 03.83.00.62', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (19, 'New England Seafood Cannery', 'Robb Merchant', 'Wholesale Account Agent', 'Order Processing Dept.
2100 Paul Revere Blvd.', 'Boston', 'MA', '02134', 'USA', '(617) 555-3267', '(617) 555-3389', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (20, 'Leka Trading', 'Chandra Leka', 'Owner', '471 Serangoon Loop, Suite #402', 'Singapore', NULL, '0512', 'Singapore', '555-8787', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (21, 'Lyngbysild', 'Niels Petersen', 'Sales Manager', 'Lyngbysild
Fiskebakken 10', 'Lyngby', NULL, '2800', 'Denmark', '43844108', '43844115', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (22, 'Zaanse Snoepfabriek', 'Dirk Luchte', 'Accounting Manager', 'Verkoop
Rijnweg 22', 'Zaandam', NULL, '9999 ZZ', 'Netherlands', '(12345) 1212', '(12345) 1210', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (23, 'Karkki Oy', 'Anne Heikkonen', 'Product Manager', 'Valtakatu 12', 'Lappeenranta', NULL, '53120', 'Finland', '(953) 10956', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (24, 'G''day, Mate', 'Wendy Mackenzie', 'Sales Representative', '170 Prince Edward Parade
Hunter''s Hill', 'Sydney', 'NSW', '2042', 'Australia', '(02) 555-5914', '(02) 555-4873', 'G''day Mate (on the World Wide Web)#http://www.microsoft.com/accessdev/sampleapps/gdaymate.htm#');
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (25, 'Ma Maison', 'Jean-Guy Lauzon', 'Marketing Manager', '2960 Rue St. Laurent', 'Montréal', 'Québec', 'H1J 1C3', 'Canada', '(514) 555-9022', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (26, 'Pasta Buttini s.r.l.', 'Giovanni Giudici', 'Order Administrator', 'Via dei Gelsomini, 153', 'Salerno', NULL, '84100', 'Italy', '(089) 6547665', '(089) 6547667', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (27, 'Escargots Nouveaux', 'Marie Delamare', 'Sales Manager', '22, rue H. Voiron', 'Montceau', NULL, '71300', 'France', '85.57.00.07', NULL, NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (28, 'Gai pâturage', 'Eliane Noz', 'Sales Representative', 'Bat. B
3, rue des Alpes', 'Annecy', NULL, '74000', 'France', '38.76.98.06', '38.76.98.58', NULL);
INSERT INTO "Suppliers" ("SupplierID", "CompanyName", "ContactName", "ContactTitle", "Address", "City", "Region", "PostalCode", "Country", "Phone", "Fax", "HomePage") VALUES (29, 'Forêts d''érables', 'Chantal Goulet', 'Accounting Manager', '148 rue Chasseur', 'Ste-Hyacinthe', 'Québec', 'J2S 7S8', 'Canada', '(514) 555-2955', '(514) 555-2921', NULL);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('01581', 'Westboro', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('01730', 'Bedford', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('01833', 'Georgetow', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('02116', 'Boston', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('02139', 'Cambridge', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('02184', 'Braintree', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('02903', 'Providence', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('03049', 'Hollis', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('03801', 'Portsmouth', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('06897', 'Wilton', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('07960', 'Morristown', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('08837', 'Edison', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('10019', 'New York', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('10038', 'New York', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('11747', 'Mellvile', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('14450', 'Fairport', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('19428', 'Philadelphia', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('19713', 'Neward', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('20852', 'Rockville', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('27403', 'Greensboro', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('27511', 'Cary', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('29202', 'Columbia', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('30346', 'Atlanta', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('31406', 'Savannah', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('32859', 'Orlando', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('33607', 'Tampa', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('40222', 'Louisville', 1);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('44122', 'Beachwood', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('45839', 'Findlay', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('48075', 'Southfield', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('48084', 'Troy', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('48304', 'Bloomfield Hills', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('53404', 'Racine', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('55113', 'Roseville', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('55439', 'Minneapolis', 3);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('60179', 'Hoffman Estates', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('60601', 'Chicago', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('72716', 'Bentonville', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('75234', 'Dallas', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('78759', 'Austin', 4);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('80202', 'Denver', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('80909', 'Colorado Springs', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('85014', 'Phoenix', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('85251', 'Scottsdale', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('90405', 'Santa Monica', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('94025', 'Menlo Park', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('94105', 'San Francisco', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('95008', 'Campbell', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('95054', 'Santa Clara', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('95060', 'Santa Cruz', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('98004', 'Bellevue', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('98052', 'Redmond', 2);
INSERT INTO "Territories" ("TerritoryID", "TerritoryDescription", "RegionID") VALUES ('98104', 'Seattle', 2);
CREATE VIEW [Alphabetical list of products] 
AS
SELECT Products.*, 
       Categories.CategoryName
FROM Categories 
   INNER JOIN Products ON Categories.CategoryID = Products.CategoryID
WHERE (((Products.Discontinued)=0));
CREATE VIEW [Current Product List] 
AS
SELECT ProductID,
       ProductName 
FROM Products 
WHERE Discontinued=0;
CREATE VIEW [Customer and Suppliers by City] 
AS
SELECT City, 
       CompanyName, 
       ContactName, 
       'Customers' AS Relationship 
FROM Customers
UNION 
SELECT City, 
       CompanyName, 
       ContactName, 
       'Suppliers'
FROM Suppliers 
ORDER BY City, CompanyName;
CREATE VIEW [Invoices] 
AS
SELECT Orders.ShipName,
       Orders.ShipAddress,
       Orders.ShipCity,
       Orders.ShipRegion, 
       Orders.ShipPostalCode,
       Orders.ShipCountry,
       Orders.CustomerID,
       Customers.CompanyName AS CustomerName, 
       Customers.Address,
       Customers.City,
       Customers.Region,
       Customers.PostalCode,
       Customers.Country,
       (Employees.FirstName + ' ' + Employees.LastName) AS Salesperson, 
       Orders.OrderID,
       Orders.OrderDate,
       Orders.RequiredDate,
       Orders.ShippedDate, 
       Shippers.CompanyName As ShipperName,
       [Order Details].ProductID,
       Products.ProductName, 
       [Order Details].UnitPrice,
       [Order Details].Quantity,
       [Order Details].Discount, 
       ((([Order Details].UnitPrice*Quantity*(1-Discount))/100)*100) AS ExtendedPrice,
       Orders.Freight 
FROM Customers 
  JOIN Orders ON Customers.CustomerID = Orders.CustomerID  
    JOIN Employees ON Employees.EmployeeID = Orders.EmployeeID    
     JOIN [Order Details] ON Orders.OrderID = [Order Details].OrderID     
      JOIN Products ON Products.ProductID = [Order Details].ProductID      
       JOIN Shippers ON Shippers.ShipperID = Orders.ShipVia;
CREATE VIEW [Orders Qry] AS
SELECT Orders.OrderID,
       Orders.CustomerID,
       Orders.EmployeeID, 
       Orders.OrderDate, 
       Orders.RequiredDate,
       Orders.ShippedDate, 
       Orders.ShipVia, 
       Orders.Freight,
       Orders.ShipName, 
       Orders.ShipAddress, 
       Orders.ShipCity,
       Orders.ShipRegion,
       Orders.ShipPostalCode,
       Orders.ShipCountry,
       Customers.CompanyName,
       Customers.Address,
       Customers.City,
       Customers.Region,
       Customers.PostalCode, 
       Customers.Country
FROM Customers 
     JOIN Orders ON Customers.CustomerID = Orders.CustomerID;
CREATE VIEW [Order Subtotals] AS
SELECT [Order Details].OrderID, 
Sum(([Order Details].UnitPrice*Quantity*(1-Discount)/100)*100) AS Subtotal
FROM [Order Details]
GROUP BY [Order Details].OrderID;
CREATE VIEW [Product Sales for 1997] AS
SELECT Categories.CategoryName, 
       Products.ProductName, 
       Sum(([Order Details].UnitPrice*Quantity*(1-Discount)/100)*100) AS ProductSales
FROM Categories
 JOIN    Products On Categories.CategoryID = Products.CategoryID
    JOIN  [Order Details] on Products.ProductID = [Order Details].ProductID     
     JOIN  [Orders] on Orders.OrderID = [Order Details].OrderID 
WHERE Orders.ShippedDate Between DATETIME('1997-01-01') And DATETIME('1997-12-31')
GROUP BY Categories.CategoryName, Products.ProductName;
CREATE VIEW [Products Above Average Price] AS
SELECT Products.ProductName, 
       Products.UnitPrice
FROM Products
WHERE Products.UnitPrice>(SELECT AVG(UnitPrice) From Products);
CREATE VIEW [Products by Category] AS
SELECT Categories.CategoryName, 
       Products.ProductName, 
       Products.QuantityPerUnit, 
       Products.UnitsInStock, 
       Products.Discontinued
FROM Categories 
     INNER JOIN Products ON Categories.CategoryID = Products.CategoryID
WHERE Products.Discontinued <> 1;
CREATE VIEW [Quarterly Orders] AS
SELECT DISTINCT Customers.CustomerID, 
                Customers.CompanyName, 
                Customers.City, 
                Customers.Country
FROM Customers 
     JOIN Orders ON Customers.CustomerID = Orders.CustomerID
WHERE Orders.OrderDate BETWEEN DATETIME('1997-01-01') And DATETIME('1997-12-31');
CREATE VIEW [Sales Totals by Amount] AS
SELECT [Order Subtotals].Subtotal AS SaleAmount, 
                  Orders.OrderID, 
               Customers.CompanyName, 
                  Orders.ShippedDate
FROM Customers 
 JOIN Orders ON Customers.CustomerID = Orders.CustomerID
    JOIN [Order Subtotals] ON Orders.OrderID = [Order Subtotals].OrderID 
WHERE ([Order Subtotals].Subtotal >2500) 
AND (Orders.ShippedDate BETWEEN DATETIME('1997-01-01') And DATETIME('1997-12-31'));
CREATE VIEW [Summary of Sales by Quarter] AS
SELECT Orders.ShippedDate, 
       Orders.OrderID, 
       [Order Subtotals].Subtotal
FROM Orders 
     INNER JOIN [Order Subtotals] ON Orders.OrderID = [Order Subtotals].OrderID
WHERE Orders.ShippedDate IS NOT NULL;
CREATE VIEW [Summary of Sales by Year] AS
SELECT      Orders.ShippedDate, 
            Orders.OrderID, 
 [Order Subtotals].Subtotal
FROM Orders 
     INNER JOIN [Order Subtotals] ON Orders.OrderID = [Order Subtotals].OrderID
WHERE Orders.ShippedDate IS NOT NULL;
CREATE VIEW [Category Sales for 1997] AS
SELECT     [Product Sales for 1997].CategoryName, 
       Sum([Product Sales for 1997].ProductSales) AS CategorySales
FROM [Product Sales for 1997]
GROUP BY [Product Sales for 1997].CategoryName;
CREATE VIEW [Order Details Extended] AS
SELECT [Order Details].OrderID, 
       [Order Details].ProductID, 
       Products.ProductName, 
	   [Order Details].UnitPrice, 
       [Order Details].Quantity, 
       [Order Details].Discount, 
      ([Order Details].UnitPrice*Quantity*(1-Discount)/100)*100 AS ExtendedPrice
FROM Products 
     JOIN [Order Details] ON Products.ProductID = [Order Details].ProductID;
CREATE VIEW [Sales by Category] AS
SELECT Categories.CategoryID, 
       Categories.CategoryName, 
         Products.ProductName, 
	Sum([Order Details Extended].ExtendedPrice) AS ProductSales
FROM  Categories 
    JOIN Products 
      ON Categories.CategoryID = Products.CategoryID
       JOIN [Order Details Extended] 
         ON Products.ProductID = [Order Details Extended].ProductID                
           JOIN Orders 
             ON Orders.OrderID = [Order Details Extended].OrderID 
WHERE Orders.OrderDate BETWEEN DATETIME('1997-01-01') And DATETIME('1997-12-31')
GROUP BY Categories.CategoryID, Categories.CategoryName, Products.ProductName;
COMMIT;
