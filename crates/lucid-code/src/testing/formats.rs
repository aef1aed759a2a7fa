//! Coverage reports read into per-line hit counts: lcov, Cobertura XML, JaCoCo XML,
//! coverage.py's JSON, llvm-cov's JSON export and Go's cover profile. The format is found
//! from the content.

use std::collections::BTreeMap;

use serde_json::Value;

/// The instrumented lines of one file and how often each ran.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FileLines {
    pub path: String,
    /// Line (1-based) → times it ran.
    pub hits: BTreeMap<u32, u64>,
    /// Branches, and how many of them ran, where the report gives them (coverage.py with
    /// branch measurement, lcov's `BRF`/`BRH`).
    pub branches: Option<(usize, usize)>,
}

impl FileLines {
    pub fn covered(&self) -> usize {
        self.hits.values().filter(|h| **h > 0).count()
    }

    /// The lines that never ran, as inclusive ranges; a range goes on over lines that are
    /// not instrumented (blank lines, comments) to the next line that never ran.
    pub fn uncovered(&self) -> Vec<[u32; 2]> {
        let mut out: Vec<[u32; 2]> = Vec::new();
        let mut open = false;
        for (&line, &hits) in &self.hits {
            if hits > 0 {
                open = false;
            } else if open {
                if let Some(last) = out.last_mut() {
                    last[1] = line;
                }
            } else {
                out.push([line, line]);
                open = true;
            }
        }
        out
    }
}

/// A report's format, by name in answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Lcov,
    Cobertura,
    Jacoco,
    CoveragePy,
    LlvmCov,
    GoCover,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Lcov => "lcov",
            Format::Cobertura => "cobertura",
            Format::Jacoco => "jacoco",
            Format::CoveragePy => "coverage.py json",
            Format::LlvmCov => "llvm-cov json",
            Format::GoCover => "go coverprofile",
        }
    }
}

/// Reads a report of any known format.
pub(crate) fn parse(text: &str) -> Result<(Format, Vec<FileLines>), String> {
    let start = text.trim_start();
    if start.starts_with('{') {
        let v: Value = serde_json::from_str(start).map_err(|e| format!("the JSON report does not parse: {e}"))?;
        if v["type"].as_str().is_some_and(|t| t.starts_with("llvm.coverage.json")) || v["data"].is_array() {
            return Ok((Format::LlvmCov, llvm_cov(&v)));
        }
        if v["files"].is_object() {
            return Ok((Format::CoveragePy, coverage_py(&v)));
        }
        return Err("a JSON report that is neither coverage.py's nor llvm-cov's export".into());
    }
    if start.starts_with('<') {
        let opts = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
        let doc = roxmltree::Document::parse_with_options(start, opts)
            .map_err(|e| format!("the XML report does not parse: {e}"))?;
        let root = doc.root_element();
        return match root.tag_name().name() {
            "coverage" => Ok((Format::Cobertura, cobertura(root))),
            "report" => Ok((Format::Jacoco, jacoco(root))),
            other => Err(format!("an XML report with root <{other}> (Cobertura has <coverage>, JaCoCo <report>)")),
        };
    }
    if start.lines().any(|l| l.starts_with("SF:")) {
        return Ok((Format::Lcov, lcov(start)));
    }
    if start.starts_with("mode: ") {
        return Ok((Format::GoCover, go_cover(start)));
    }
    Err("not a coverage report lucid reads (lcov, Cobertura XML, JaCoCo XML, coverage.py JSON, llvm-cov JSON, \
         Go cover profile)"
        .into())
}

/// `go test -coverprofile`: `mode: set`, then `file:l1.c1,l2.c2 statements count` per
/// block, a file named by its import path (`module/dir/file.go`). A line counts as run
/// when some block over it ran.
fn go_cover(text: &str) -> Vec<FileLines> {
    let mut by_path: BTreeMap<String, FileLines> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let Some((path, block)) = line.rsplit_once(':') else { continue };
        let mut parts = block.split([',', ' ']);
        let line_of = |p: Option<&str>| p.and_then(|p| p.split('.').next()?.parse::<u32>().ok());
        let (Some(a), Some(b), _, Some(count)) =
            (line_of(parts.next()), line_of(parts.next()), parts.next(), parts.next().and_then(|c| c.parse().ok()))
        else {
            continue;
        };
        let f =
            by_path.entry(path.to_string()).or_insert_with(|| FileLines { path: path.into(), ..Default::default() });
        for n in a..=b {
            let hits = f.hits.entry(n).or_default();
            *hits = (*hits).max(count);
        }
    }
    by_path.into_values().collect()
}

fn lcov(text: &str) -> Vec<FileLines> {
    let mut out = Vec::new();
    let mut file: Option<FileLines> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(path) = line.strip_prefix("SF:") {
            file = Some(FileLines { path: path.to_string(), ..Default::default() });
        } else if let Some(da) = line.strip_prefix("DA:") {
            let mut parts = da.split(',');
            let (Some(n), Some(h)) = (parts.next(), parts.next()) else { continue };
            if let (Some(f), Ok(n), Ok(h)) = (file.as_mut(), n.parse::<u32>(), h.parse::<f64>()) {
                *f.hits.entry(n).or_default() += h.max(0.0) as u64;
            }
        } else if let Some((key, n)) = line.split_once(':').filter(|(k, _)| *k == "BRF" || *k == "BRH") {
            // `BRF:0` (llvm-cov without branch instrumentation) measures no branch.
            if let (Some(f), Ok(n @ 1..)) = (file.as_mut(), n.trim().parse::<usize>()) {
                let b = f.branches.get_or_insert((0, 0));
                if key == "BRF" { b.0 += n } else { b.1 += n }
            }
        } else if line == "end_of_record" {
            out.extend(file.take());
        }
    }
    out.extend(file);
    merge(out)
}

/// Files named twice (a report per test binary, a class per inner class) added up.
fn merge(files: Vec<FileLines>) -> Vec<FileLines> {
    let mut by_path: BTreeMap<String, FileLines> = BTreeMap::new();
    for f in files {
        let entry =
            by_path.entry(f.path.clone()).or_insert_with(|| FileLines { path: f.path.clone(), ..Default::default() });
        for (line, hits) in f.hits {
            *entry.hits.entry(line).or_default() += hits;
        }
        // The same file's branches reported twice are the same branches: the larger counts.
        if let Some((n, ran)) = f.branches {
            let b = entry.branches.get_or_insert((0, 0));
            (b.0, b.1) = (b.0.max(n), b.1.max(ran));
        }
    }
    by_path.into_values().collect()
}

fn cobertura(root: roxmltree::Node<'_, '_>) -> Vec<FileLines> {
    // Paths are relative to the first <source> (coverage.py writes the project folder there).
    let source = root.descendants().find(|n| n.has_tag_name("source")).and_then(|n| n.text()).map(str::trim);
    let files = root.descendants().filter(|n| n.has_tag_name("class")).map(|class| {
        let name = class.attribute("filename").unwrap_or_default();
        let path = match source {
            Some(s) if !s.is_empty() && !name.starts_with('/') && s != "." => {
                format!("{}/{name}", s.trim_end_matches('/'))
            }
            _ => name.to_string(),
        };
        let hits = class
            .descendants()
            .filter(|n| n.has_tag_name("line"))
            .filter_map(|l| Some((l.attribute("number")?.parse().ok()?, l.attribute("hits")?.parse().ok()?)))
            .collect();
        FileLines { path, hits, branches: None }
    });
    merge(files.collect())
}

fn jacoco(root: roxmltree::Node<'_, '_>) -> Vec<FileLines> {
    let mut out = Vec::new();
    for package in root.descendants().filter(|n| n.has_tag_name("package")) {
        let dir = package.attribute("name").unwrap_or_default();
        for file in package.children().filter(|n| n.has_tag_name("sourcefile")) {
            let name = file.attribute("name").unwrap_or_default();
            let path = if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
            // A line counts as run when some of its instructions ran (`ci`).
            let hits = file
                .children()
                .filter(|n| n.has_tag_name("line"))
                .filter_map(|l| {
                    let nr = l.attribute("nr")?.parse().ok()?;
                    let ci: u64 = l.attribute("ci")?.parse().ok()?;
                    Some((nr, ci))
                })
                .collect();
            out.push(FileLines { path, hits, branches: None });
        }
    }
    merge(out)
}

fn coverage_py(v: &Value) -> Vec<FileLines> {
    let Some(files) = v["files"].as_object() else { return Vec::new() };
    let lines = |f: &Value, key: &str| -> Vec<u32> {
        f[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_u64())
            .filter_map(|n| u32::try_from(n).ok())
            .collect()
    };
    files
        .iter()
        .map(|(path, f)| {
            let mut hits: BTreeMap<u32, u64> = lines(f, "executed_lines").into_iter().map(|l| (l, 1)).collect();
            hits.extend(lines(f, "missing_lines").into_iter().map(|l| (l, 0)));
            // With branch measurement on (`meta.branch_coverage`), the summary counts them.
            let branches = v["meta"]["branch_coverage"].as_bool().unwrap_or(false).then(|| {
                let n = |key: &str| f["summary"][key].as_u64().unwrap_or(0) as usize;
                (n("num_branches"), n("covered_branches"))
            });
            FileLines { path: path.clone(), hits, branches }
        })
        .collect()
}

/// llvm-cov's JSON export: each file's line counts from its region segments, the way
/// llvm-cov itself counts lines (`LineCoverageStats`): a line is instrumented when a
/// region starts on it or one from an earlier line runs over it (and it does not start a
/// skipped region), and its count is the largest of those regions'.
fn llvm_cov(v: &Value) -> Vec<FileLines> {
    let mut out = Vec::new();
    for export in v["data"].as_array().into_iter().flatten() {
        for file in export["files"].as_array().into_iter().flatten() {
            let path = file["filename"].as_str().unwrap_or_default().to_string();
            let segments: Vec<Segment> =
                file["segments"].as_array().into_iter().flatten().filter_map(Segment::read).collect();
            out.push(FileLines { path, hits: segment_lines(&segments), branches: None });
        }
    }
    merge(out)
}

/// `[line, col, count, has_count, is_region_entry, is_gap_region]`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    line: u32,
    count: u64,
    has_count: bool,
    entry: bool,
    gap: bool,
}

impl Segment {
    fn read(v: &Value) -> Option<Segment> {
        let a = v.as_array()?;
        Some(Segment {
            line: u32::try_from(a.first()?.as_u64()?).ok()?,
            count: a.get(2)?.as_u64()?,
            has_count: a.get(3)?.as_bool()?,
            entry: a.get(4)?.as_bool()?,
            gap: a.get(5).and_then(Value::as_bool).unwrap_or(false),
        })
    }

    fn starts_region(&self) -> bool {
        !self.gap && self.has_count && self.entry
    }
}

fn segment_lines(segments: &[Segment]) -> BTreeMap<u32, u64> {
    let mut hits = BTreeMap::new();
    let (Some(first), Some(last)) = (segments.first(), segments.last()) else { return hits };
    let mut wrapped: Option<Segment> = None;
    let mut i = 0;
    for line in first.line..=last.line {
        let start = i;
        while i < segments.len() && segments[i].line == line {
            i += 1;
        }
        let on_line = &segments[start..i];
        let starts = on_line.iter().filter(|s| s.starts_region()).count();
        let skipped = on_line.first().is_some_and(|s| !s.has_count && s.entry);
        let mapped = !skipped && (wrapped.is_some_and(|w| w.has_count) || starts > 0);
        if mapped {
            let mut count = wrapped.map_or(0, |w| w.count);
            for s in on_line.iter().filter(|s| s.starts_region()) {
                count = count.max(s.count);
            }
            hits.insert(line, count);
        }
        if let Some(s) = on_line.last() {
            wrapped = Some(*s);
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcov_cobertura_and_jacoco_give_the_same_lines() {
        let lcov = "TN:\nSF:src/a.py\nDA:1,1\nDA:2,0\nDA:3,0\nDA:5,0\nDA:6,2\nend_of_record\n";
        let cobertura = r#"<?xml version="1.0" ?><coverage><sources><source>.</source></sources><packages><package><classes>
            <class filename="src/a.py"><lines><line number="1" hits="1"/><line number="2" hits="0"/><line number="3" hits="0"/>
            <line number="5" hits="0"/><line number="6" hits="2"/></lines></class></classes></package></packages></coverage>"#;
        let jacoco = r#"<?xml version="1.0"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="x"><package name="src">
            <sourcefile name="a.py"><line nr="1" mi="0" ci="3"/><line nr="2" mi="2" ci="0"/><line nr="3" mi="1" ci="0"/>
            <line nr="5" mi="1" ci="0"/><line nr="6" mi="0" ci="2"/></sourcefile></package></report>"#;
        // Go's blocks: line 1 ran, 2 to 3 did not, 5 did not, 6 ran twice (two blocks on it, one run).
        let go = "mode: count\nsrc/a.py:1.1,1.10 1 1\nsrc/a.py:2.1,3.5 2 0\nsrc/a.py:5.1,5.3 1 0\nsrc/a.py:6.1,6.4 1 0\nsrc/a.py:6.5,6.9 1 2\n";
        for (text, format) in
            [(lcov, Format::Lcov), (cobertura, Format::Cobertura), (jacoco, Format::Jacoco), (go, Format::GoCover)]
        {
            let (f, files) = parse(text).unwrap();
            assert_eq!(f, format);
            assert_eq!(files.len(), 1);
            assert_eq!(files[0].path, "src/a.py");
            assert_eq!((files[0].hits.len(), files[0].covered()), (5, 2), "{format:?}");
            assert_eq!(files[0].uncovered(), [[2, 5]], "{format:?}");
        }
    }

    #[test]
    fn branches_from_lcov_and_coverage_py_where_measured() {
        let lcov = "SF:a.js\nDA:1,1\nBRDA:1,0,0,1\nBRDA:1,0,1,0\nBRF:2\nBRH:1\nend_of_record\nSF:b.js\nDA:1,0\nend_of_record\n";
        let (_, files) = parse(lcov).unwrap();
        assert_eq!((files[0].branches, files[1].branches), (Some((2, 1)), None));
        let py = |branch: bool| {
            serde_json::json!({"meta": {"branch_coverage": branch}, "files": {"a.py": {"executed_lines": [1, 2], "missing_lines": [3],
                "summary": {"num_branches": 2, "covered_branches": 1}}}})
            .to_string()
        };
        assert_eq!(parse(&py(true)).unwrap().1[0].branches, Some((2, 1)));
        assert_eq!(parse(&py(false)).unwrap().1[0].branches, None);
    }

    #[test]
    fn llvm_cov_segments_count_lines_as_llvm_cov_does() {
        // fn f() { (line 1, count 1) … if (line 3: a region with count 0 until line 4) … } (line 6).
        let v = serde_json::json!({"type": "llvm.coverage.json.export", "data": [{"files": [{"filename": "/p/src/lib.rs",
            "segments": [[1, 1, 1, true, true, false], [3, 5, 0, true, true, false], [4, 6, 1, true, false, false],
                         [6, 2, 0, false, false, false]]}]}]});
        let (f, files) = parse(&v.to_string()).unwrap();
        assert_eq!(f, Format::LlvmCov);
        assert_eq!(files[0].hits, BTreeMap::from([(1, 1), (2, 1), (3, 1), (4, 0), (5, 1), (6, 1)]));
        assert!(parse("hello").is_err());
    }
}
