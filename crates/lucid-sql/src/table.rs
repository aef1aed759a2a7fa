//! What the SQL tools answer with: a query's rows as a capped Markdown table, and a
//! schema as one Markdown section per table.

/// A query's result: the column names, the first rows (cells already cut to width), how
/// many rows there were in all, and whether some were left out.
///
/// ```
/// use lucid_sql::Table;
/// let mut t = Table::new(vec!["n".into()], 20);
/// for i in 0..3 {
///     t.push(vec![Some(i.to_string())], 2);
/// }
/// assert_eq!(t.to_markdown(), "| n |\n| --- |\n| 0 |\n| 1 |\n\n3 rows, the first 2 shown (cut)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The column names.
    pub columns: Vec<String>,
    /// The rows kept, each cell as the model reads it (`NULL` for a null).
    pub rows: Vec<Vec<String>>,
    /// How many rows the statement returned.
    pub total: u64,
    /// Rows were left out.
    pub cut: bool,
    width: usize,
}

impl Table {
    /// An empty table with these columns, whose cells show at most `width` characters.
    pub fn new(columns: Vec<String>, width: usize) -> Self {
        let columns = columns.iter().map(|c| cell(c, width)).collect();
        Table { columns, rows: Vec::new(), total: 0, cut: false, width }
    }

    /// Counts one more row, and keeps it while fewer than `max_rows` are kept.
    pub fn push(&mut self, row: Vec<Option<String>>, max_rows: usize) {
        self.total += 1;
        if self.rows.len() < max_rows {
            let width = self.width;
            self.rows
                .push(row.iter().map(|v| v.as_deref().map_or_else(|| "NULL".into(), |v| cell(v, width))).collect());
        } else {
            self.cut = true;
        }
    }

    /// The table in Markdown, then the row count (and what was cut).
    pub fn to_markdown(&self) -> String {
        let count = match (self.total, self.cut) {
            (1, _) => "1 row".to_string(),
            (n, false) => format!("{n} rows"),
            (n, true) => format!("{n} rows, the first {} shown (cut)", self.rows.len()),
        };
        if self.columns.is_empty() {
            return format!("(no columns)\n\n{count}");
        }
        let mut out = markdown_row(&self.columns);
        out.push_str(&markdown_row(&vec!["---".to_string(); self.columns.len()]));
        for row in &self.rows {
            out.push_str(&markdown_row(row));
        }
        out.push('\n');
        out.push_str(&count);
        out
    }
}

fn markdown_row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// `value` as one Markdown cell: pipes escaped, line breaks shown as `\n`, at most
/// `width` characters (then `…`).
fn cell(value: &str, width: usize) -> String {
    let mut out = String::new();
    for (n, c) in value.chars().enumerate() {
        if n == width {
            out.push('…');
            break;
        }
        match c {
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// One table of a schema.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct TableSchema {
    /// The name, schema-qualified where that is needed.
    pub name: String,
    /// `table` or `view`.
    pub kind: String,
    /// The Postgres schema the table is in when it is not `public` (`name` then starts
    /// with it and a dot), so SQL made from the name quotes each part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    pub columns: Vec<ColumnSchema>,
    /// Each index as `name (columns)`, with `unique` where it is.
    pub indexes: Vec<String>,
}

/// One column of a [`TableSchema`].
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct ColumnSchema {
    pub name: String,
    pub ty: String,
    pub not_null: bool,
    pub primary_key: bool,
    /// `table(column)` it refers to.
    pub references: Option<String>,
}

/// The schema as Markdown: a section per table, or `(no tables)`.
pub(super) fn schema_markdown(tables: &[TableSchema], width: usize) -> String {
    if tables.is_empty() {
        return "(no tables)".into();
    }
    let mut out = String::new();
    for t in tables {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("## {} ({})\n", cell(&t.name, width), t.kind));
        out.push_str("| column | type | null | key |\n| --- | --- | --- | --- |\n");
        for c in &t.columns {
            let mut key = Vec::new();
            if c.primary_key {
                key.push("primary key".to_string());
            }
            if let Some(r) = &c.references {
                key.push(format!("references {r}"));
            }
            out.push_str(&markdown_row(&[
                cell(&c.name, width),
                cell(&c.ty, width),
                if c.not_null { "not null" } else { "null" }.into(),
                key.join(", "),
            ]));
        }
        if !t.indexes.is_empty() {
            out.push_str(&format!("indexes: {}\n", t.indexes.join("; ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_escaped_and_cut_and_counts_say_what_was_left_out() {
        let mut t = Table::new(vec!["a|b".into(), "note".into()], 5);
        t.push(vec![None, Some("line\none and more".into())], 10);
        assert_eq!(t.to_markdown(), "| a\\|b | note |\n| --- | --- |\n| NULL | line\\n… |\n\n1 row");
        let empty = Table::new(vec!["x".into()], 5);
        assert_eq!(empty.to_markdown(), "| x |\n| --- |\n\n0 rows");
        assert_eq!(Table::new(vec![], 5).to_markdown(), "(no columns)\n\n0 rows");
    }

    #[test]
    fn a_schema_lists_columns_keys_and_indexes() {
        let t = TableSchema {
            name: "city".into(),
            kind: "table".into(),
            columns: vec![
                ColumnSchema {
                    name: "id".into(),
                    ty: "INTEGER".into(),
                    not_null: true,
                    primary_key: true,
                    references: None,
                },
                ColumnSchema {
                    name: "country".into(),
                    ty: "INTEGER".into(),
                    references: Some("country(id)".into()),
                    ..Default::default()
                },
            ],
            indexes: vec!["city_country (country)".into()],
            schema: None,
        };
        assert_eq!(
            schema_markdown(&[t], 50),
            "## city (table)\n| column | type | null | key |\n| --- | --- | --- | --- |\n\
             | id | INTEGER | not null | primary key |\n| country | INTEGER | null | references country(id) |\n\
             indexes: city_country (country)\n"
        );
        assert_eq!(schema_markdown(&[], 50), "(no tables)");
    }
}
