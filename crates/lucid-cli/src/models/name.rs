//! What a model name means: a short alias, `ORG/REPO` (with `:FILE.gguf` or a
//! quantization tag such as `:Q8_0`), or a full resolve URL, parsed into a [`ModelRef`];
//! and the rule that picks one GGUF among a repository's files.

use anyhow::{Context, bail};

use super::checked::{RepoId, RepoPath, Revision, shown};

/// The model used when nothing else is there: Qwen3-0.6B (Apache-2.0), in its official
/// GGUF. That repository ships one quantization, Q8_0 (639,446,688 bytes): at 0.6B
/// parameters a 4-bit file saves only ~250 MB and costs the most quality exactly where a
/// small model has none to spare (its tool calls), and Q8_0 has fast kernels everywhere.
pub const DEFAULT_MODEL: &str = "qwen3-0.6b";

/// Short names: the alias, and what it stands for (`ORG/REPO:FILE`).
pub const ALIASES: &[(&str, &str)] = &[(DEFAULT_MODEL, "Qwen/Qwen3-0.6B-GGUF:Qwen3-0.6B-Q8_0.gguf")];

/// The quantization picked in a repository when the name does not say which: the one
/// llama.cpp's `-hf ORG/REPO` picks too.
pub const DEFAULT_TAG: &str = "Q4_K_M";

/// One model file on the hub, or the rule to find it in its repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// `ORG/REPO`.
    pub repo: RepoId,
    /// A branch, tag or commit (`main` unless a URL says otherwise).
    pub revision: Revision,
    /// Which file of the repository.
    pub file: FileChoice,
    /// The hub's base URL, when a full URL named it (else the configured endpoint).
    pub endpoint: Option<String>,
}

/// A file named exactly, or a quantization tag to look for among the repository's GGUFs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChoice {
    /// This path in the repository.
    Exact(RepoPath),
    /// The GGUF whose name ends with this tag (`None`: [`DEFAULT_TAG`], see [`pick_gguf`]).
    Tag(Option<String>),
}

impl ModelRef {
    /// Parses a name as `lucid models pull` and `--model local:NAME` take it.
    ///
    /// ```ignore
    /// let r = ModelRef::parse("Qwen/Qwen3-0.6B-GGUF:Q8_0")?;
    /// assert_eq!(r.repo, "Qwen/Qwen3-0.6B-GGUF");
    /// ```
    pub fn parse(name: &str) -> anyhow::Result<ModelRef> {
        let name = name.trim();
        if let Some((_, target)) = ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(name)) {
            return ModelRef::parse(target);
        }
        if name.starts_with("http://") || name.starts_with("https://") {
            return parse_url(name);
        }
        let (repo, file) = match name.split_once(':') {
            Some((repo, file)) => (repo, Some(file)),
            None => (name, None),
        };
        let repo = check_repo(repo)?;
        let file = match file {
            Some(f) if f.to_ascii_lowercase().ends_with(".gguf") => FileChoice::Exact(RepoPath::parse(f)?),
            Some("") => bail!("`{name}`: nothing after `:` (use ORG/REPO:FILE.gguf or ORG/REPO:Q8_0)"),
            Some(tag) => FileChoice::Tag(Some(tag.to_string())),
            None => FileChoice::Tag(None),
        };
        Ok(ModelRef { repo, revision: Revision::main(), file, endpoint: None })
    }

    /// `ORG/REPO:FILE` (or the tag), as `lucid models list` and messages show it (a tag's
    /// control characters escaped).
    pub fn display(&self) -> String {
        match &self.file {
            FileChoice::Exact(f) => format!("{}:{f}", self.repo),
            FileChoice::Tag(Some(t)) => format!("{}:{}", self.repo, shown(t)),
            FileChoice::Tag(None) => self.repo.to_string(),
        }
    }
}

/// `https://HOST/ORG/REPO/resolve/REVISION/PATH` (or `/blob/`, as a browser shows it). The
/// revision and the path are checked after percent-decoding: `..%2F..` is no revision.
fn parse_url(url: &str) -> anyhow::Result<ModelRef> {
    let bad = || format!("`{}` is not a file URL of the hub (https://HOST/ORG/REPO/resolve/REVISION/FILE)", shown(url));
    let (scheme, rest) = url.split_once("://").with_context(bad)?;
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').with_context(bad)?;
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 5 || !matches!(parts[2], "resolve" | "blob") || parts[4..].iter().any(|p| p.is_empty()) {
        bail!(bad());
    }
    let repo = check_repo(&format!("{}/{}", parts[0], parts[1]))?;
    let revision = Revision::parse(&percent_decode(parts[3])).with_context(bad)?;
    let file = parts[4..].iter().map(|p| percent_decode(p)).collect::<Vec<_>>().join("/");
    Ok(ModelRef {
        repo,
        revision,
        file: FileChoice::Exact(RepoPath::parse(&file).with_context(bad)?),
        endpoint: Some(format!("{scheme}://{host}")),
    })
}

fn check_repo(repo: &str) -> anyhow::Result<RepoId> {
    RepoId::parse(repo).with_context(|| {
        format!(
            "`{}` is not a model name: use an alias ({}), ORG/REPO, ORG/REPO:FILE.gguf, ORG/REPO:QUANT or a resolve URL",
            shown(repo),
            ALIASES.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(", ")
        )
    })
}

/// `%2F` and the like in a URL's path segment, back to text.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The GGUF a tag picks among a repository's files (the rule of llama.cpp's `-hf`): the
/// file whose name ends with the tag (`-Q8_0.gguf`, case aside); without a tag
/// [`DEFAULT_TAG`], else `Q8_0`, else the first GGUF by name. Projector files (`mmproj`)
/// are never picked, and a model split over several files is refused.
pub fn pick_gguf(files: &[String], tag: Option<&str>) -> anyhow::Result<String> {
    let mut ggufs: Vec<&String> = files
        .iter()
        .filter(|f| f.to_ascii_lowercase().ends_with(".gguf") && !f.to_ascii_lowercase().contains("mmproj"))
        .collect();
    ggufs.sort();
    let tagged = |tag: &str| {
        ggufs.iter().copied().find(|f| {
            let stem = f[..f.len() - ".gguf".len()].to_ascii_lowercase();
            let tag = tag.to_ascii_lowercase();
            stem.strip_suffix(&tag).is_some_and(|head| head.ends_with(['-', '.', '_']) || head.ends_with('/'))
        })
    };
    let found = match tag {
        Some(t) => tagged(t),
        None => tagged(DEFAULT_TAG).or_else(|| tagged("Q8_0")).or_else(|| ggufs.first().copied()),
    };
    match found {
        Some(f) if is_split(f) => bail!("{f} is one part of a model split over several files, which lucid cannot run"),
        Some(f) => Ok(f.clone()),
        None if ggufs.is_empty() => bail!("no GGUF file in the repository"),
        None => bail!(
            "no GGUF file ending in `{}` in the repository; its GGUF files: {}",
            tag.unwrap_or(DEFAULT_TAG),
            ggufs.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// `…-00001-of-00003.gguf`.
fn is_split(file: &str) -> bool {
    let stem = file.trim_end_matches(".gguf");
    let parts: Vec<&str> = stem.rsplitn(3, '-').collect();
    parts.len() == 3 && parts[1] == "of" && parts[0].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_urls_parse_into_repo_revision_and_file() {
        let r = ModelRef::parse("qwen3-0.6b").unwrap();
        let exact = |f: &str| FileChoice::Exact(RepoPath::parse(f).unwrap());
        assert_eq!(
            (r.repo.to_string().as_str(), r.revision.as_str(), &r.file),
            ("Qwen/Qwen3-0.6B-GGUF", "main", &exact("Qwen3-0.6B-Q8_0.gguf"))
        );
        assert_eq!(ModelRef::parse("Org/Repo").unwrap().file, FileChoice::Tag(None));
        assert_eq!(ModelRef::parse("Org/Repo:q8_0").unwrap().file, FileChoice::Tag(Some("q8_0".into())));
        assert_eq!(ModelRef::parse("Org/Repo:m.GGUF").unwrap().file, exact("m.GGUF"));
        let u = ModelRef::parse("https://hf.example:8443/Org/Repo/resolve/v1%2E0/sub/m.gguf?download=true").unwrap();
        assert_eq!(
            (u.repo.to_string().as_str(), u.revision.as_str(), &u.file, u.endpoint.as_deref()),
            ("Org/Repo", "v1.0", &exact("sub/m.gguf"), Some("https://hf.example:8443"))
        );
        for bad in ["nothing", "a/b/c", "../x", "Org/Repo:", "https://h/Org/Repo/tree/main/m.gguf", "a/.."] {
            assert!(ModelRef::parse(bad).is_err(), "{bad} parsed");
        }
        // Names that would leave the repository's folder (or `refs/`) once on disk.
        for bad in [
            "Org/Repo:../../x.gguf",
            "Org/Repo:/etc/x.gguf",
            "Org/Repo:a\\..\\x.gguf",
            "https://h/Org/Repo/resolve/..%2F..%2Fx/m.gguf",
            "https://h/Org/Repo/resolve/main/..%2F..%2Fx.gguf",
            "https://h/Org/Repo/resolve/main/%2Fetc%2Fx.gguf",
            "https://h/Org/Repo/resolve/main/sub/../../x.gguf",
            "https://h/Org/Repo/resolve/%2E%2E/m.gguf",
        ] {
            let err = ModelRef::parse(bad).unwrap_err();
            assert!(format!("{err:#}").contains("not a"), "{bad}: {err:#}");
        }
    }

    #[test]
    fn the_pick_rule_prefers_the_tag_then_q4_k_m_then_q8_0_then_the_first() {
        let files = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let repo = files(&["README.md", "m-Q8_0.gguf", "m-Q4_K_M.gguf", "m-Q4_K_S.gguf", "mmproj-m-Q4_K_M.gguf"]);
        assert_eq!(pick_gguf(&repo, None).unwrap(), "m-Q4_K_M.gguf");
        assert_eq!(pick_gguf(&repo, Some("q8_0")).unwrap(), "m-Q8_0.gguf");
        assert!(pick_gguf(&repo, Some("Q4_K")).unwrap_err().to_string().contains("m-Q4_K_S.gguf"));
        assert_eq!(pick_gguf(&files(&["b-F16.gguf", "a-Q8_0.gguf"]), None).unwrap(), "a-Q8_0.gguf");
        assert_eq!(pick_gguf(&files(&["b-F16.gguf", "a-BF16.gguf"]), None).unwrap(), "a-BF16.gguf");
        assert!(pick_gguf(&files(&["x-Q4_K_M-00001-of-00002.gguf"]), Some("00002")).is_err());
        assert!(pick_gguf(&files(&["README.md"]), None).unwrap_err().to_string().contains("no GGUF"));
    }
}
