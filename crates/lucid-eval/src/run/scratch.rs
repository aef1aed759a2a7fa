//! An attempt's own folder: a fresh copy of the case's starting project and database, so
//! each attempt starts from the same files and none sees what another changed. The copy
//! is bounded (files and bytes) and keeps the project's links only where they stay inside
//! it; the folder is removed when the attempt has been judged.

use std::path::{Path, PathBuf};

use crate::dataset::{Case, inside};

/// The most bytes a case's project and database may hold together.
pub const MAX_PROJECT_BYTES: u64 = 512 * 1024 * 1024;
/// The most files and folders a case's project may hold.
pub const MAX_PROJECT_ENTRIES: usize = 50_000;

/// The folder an attempt works in.
#[derive(Debug)]
pub(super) struct Scratch {
    _dir: Folder,
    /// The project's copy (the attempt's folder itself when the case has no project).
    pub workdir: PathBuf,
    /// The database's copy.
    pub database: Option<PathBuf>,
}

/// The attempt's folder for `case`, or `None` when it names neither a project nor a
/// database. Blocking: run it off the runtime's threads.
pub(super) fn prepare(folder: Option<&Path>, case: &Case) -> Result<Option<Scratch>, String> {
    if case.project.is_none() && case.database.is_none() {
        return Ok(None);
    }
    let dir = Folder::new().map_err(|e| format!("cannot make the attempt's folder: {e}"))?;
    let mut budget = Budget { bytes: MAX_PROJECT_BYTES, entries: MAX_PROJECT_ENTRIES };
    let workdir = dir.0.join("project");
    let project = case.project.as_deref().map(|p| inside(folder, p)).transpose()?;
    match &project {
        Some(from) => copy_tree(from, from, &workdir, &mut budget)
            .map_err(|e| format!("copying the case's project {}: {e}", from.display()))?,
        None => std::fs::create_dir(&workdir).map_err(|e| format!("cannot make the attempt's folder: {e}"))?,
    }
    let database = match case.database.as_deref() {
        None => None,
        Some(name) => {
            let from = inside(folder, name)?;
            match project.as_ref().and_then(|p| from.strip_prefix(p).ok()) {
                // Copied with the project: the agent's database is that copy.
                Some(rel) => Some(workdir.join(rel)),
                None => {
                    let to = workdir.join(from.file_name().unwrap_or("database".as_ref()));
                    copy_file(&from, &to, &mut budget)
                        .map_err(|e| format!("copying the case's database {}: {e}", from.display()))?;
                    Some(to)
                }
            }
        }
    };
    Ok(Some(Scratch { _dir: dir, workdir, database }))
}

/// A new empty folder of this process in the temporary folder (only its owner may enter
/// it on Unix), removed with everything in it when dropped.
#[derive(Debug)]
struct Folder(PathBuf);

impl Folder {
    fn new() -> std::io::Result<Folder> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("lucid-eval-{}-{n}", std::process::id()));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            // Never a folder someone else made there first.
            match builder.create(&dir) {
                Ok(()) => return Ok(Folder(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a copy may still take.
struct Budget {
    bytes: u64,
    entries: usize,
}

impl Budget {
    fn take(&mut self, bytes: u64) -> std::io::Result<()> {
        self.entries = self
            .entries
            .checked_sub(1)
            .ok_or_else(|| std::io::Error::other(format!("more than {MAX_PROJECT_ENTRIES} files and folders")))?;
        self.bytes = self
            .bytes
            .checked_sub(bytes)
            .ok_or_else(|| std::io::Error::other(format!("more than {MAX_PROJECT_BYTES} bytes")))?;
        Ok(())
    }
}

/// Copies the folder `from` (inside the project `root`) to `to`.
fn copy_tree(root: &Path, from: &Path, to: &Path, budget: &mut Budget) -> std::io::Result<()> {
    budget.take(0)?;
    std::fs::create_dir(to)?;
    let mut entries = std::fs::read_dir(from)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            copy_link(root, &path, &target, budget)?;
        } else if kind.is_dir() {
            copy_tree(root, &path, &target, budget)?;
        } else if kind.is_file() {
            copy_file(&path, &target, budget)?;
        }
        // Sockets, pipes and devices are not a project's files: left out.
    }
    Ok(())
}

fn copy_file(from: &Path, to: &Path, budget: &mut Budget) -> std::io::Result<()> {
    budget.take(std::fs::metadata(from)?.len())?;
    std::fs::copy(from, to)?;
    Ok(())
}

/// A link is kept (as the same link) when it resolves inside the project; one that leads
/// out of it, or nowhere, is refused: the attempt would reach the user's other files.
fn copy_link(root: &Path, path: &Path, to: &Path, budget: &mut Budget) -> std::io::Result<()> {
    let leads_out =
        || std::io::Error::other(format!("the link {} leads outside the project (or nowhere)", path.display()));
    let resolved = std::fs::canonicalize(path).map_err(|_| leads_out())?;
    if !resolved.starts_with(root) {
        return Err(leads_out());
    }
    budget.take(0)?;
    #[cfg(unix)]
    return std::os::unix::fs::symlink(std::fs::read_link(path)?, to);
    #[cfg(not(unix))]
    {
        let _ = to;
        Err(std::io::Error::other(format!("the link {}: links are copied on Unix only", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(project: Option<&str>, database: Option<&str>) -> Case {
        Case { project: project.map(Into::into), database: database.map(Into::into), ..Case::default() }
    }

    #[test]
    fn each_attempt_gets_a_fresh_copy_removed_afterwards() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proj/src")).unwrap();
        std::fs::write(dir.path().join("proj/src/lib.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("proj/app.db"), b"SQLite format 3\0").unwrap();
        std::fs::write(dir.path().join("other.db"), b"SQLite format 3\0").unwrap();

        let one = prepare(Some(dir.path()), &case(Some("proj"), Some("proj/app.db"))).unwrap().unwrap();
        let two = prepare(Some(dir.path()), &case(Some("proj"), Some("proj/app.db"))).unwrap().unwrap();
        assert_ne!(one.workdir, two.workdir);
        std::fs::write(one.workdir.join("src/lib.py"), "x = 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(two.workdir.join("src/lib.py")).unwrap(), "x = 1\n");
        assert_eq!(one.database.as_deref(), Some(one.workdir.join("app.db").as_path()));
        let gone = one.workdir.clone();
        drop(one);
        assert!(!gone.exists());

        // A database outside the project is copied beside it; alone, into an empty folder.
        let db = prepare(Some(dir.path()), &case(None, Some("other.db"))).unwrap().unwrap();
        assert_eq!(db.database.as_deref(), Some(db.workdir.join("other.db").as_path()));
        assert!(db.database.as_ref().unwrap().is_file());
        assert!(prepare(Some(dir.path()), &case(None, None)).unwrap().is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_project_is_refused_and_one_inside_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proj")).unwrap();
        std::fs::write(dir.path().join("proj/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("a.txt", dir.path().join("proj/b.txt")).unwrap();
        let s = prepare(Some(dir.path()), &case(Some("proj"), None)).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(s.workdir.join("b.txt")).unwrap(), "a");
        assert!(s.workdir.join("b.txt").is_symlink());

        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("proj/secret")).unwrap();
        let e = prepare(Some(dir.path()), &case(Some("proj"), None)).unwrap_err();
        assert!(e.contains("leads outside the project"), "{e}");
        let e = prepare(Some(dir.path()), &case(Some("../"), None)).unwrap_err();
        assert!(e.contains("outside the dataset's folder"), "{e}");
    }

    #[test]
    fn a_copy_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let mut budget = Budget { bytes: 10, entries: 100 };
        std::fs::write(dir.path().join("big"), [0u8; 11]).unwrap();
        let e = copy_file(&dir.path().join("big"), &dir.path().join("copy"), &mut budget).unwrap_err();
        assert!(e.to_string().contains("bytes"), "{e}");
        let mut budget = Budget { bytes: 1 << 20, entries: 2 };
        std::fs::create_dir_all(dir.path().join("t/u/v")).unwrap();
        let e = copy_tree(dir.path(), &dir.path().join("t"), &dir.path().join("t2"), &mut budget).unwrap_err();
        assert!(e.to_string().contains("files and folders"), "{e}");
    }
}
