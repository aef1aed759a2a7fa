//! Consent before a project's own code runs: `run_tests` and `coverage` run the project's
//! tests (a `conftest.py`, a `build.rs`, a Jest setup file…), so the first time in a folder
//! the user says yes, on the terminal or with `--trust`. The folders said yes to are
//! remembered by canonical path in `$XDG_STATE_HOME/lucid/trusted-folders.json` (else
//! `~/.local/state/lucid/…`), a file the project's code cannot reach (its home is hidden).

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::config::{AgentSettings, ConfigError};

/// The file of trusted folders.
pub fn store_path() -> Option<PathBuf> {
    let var = |v: &str| std::env::var_os(v).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = var("XDG_STATE_HOME").or_else(|| var("HOME").map(|h| h.join(".local/state")))?;
    Some(base.join("lucid").join("trusted-folders.json"))
}

/// The trusted folders in the file at `path` (none when there is no file).
fn read(path: &Path) -> Result<Vec<PathBuf>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| ConfigError(format!("{} is not a list of trusted folders: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(ConfigError(format!("cannot read {}: {e}", path.display()))),
    }
}

/// Adds `folder` to the file at `path` (written whole, private to the user).
fn remember(path: &Path, folder: &Path) -> Result<(), ConfigError> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut all = read(path)?;
    if !all.iter().any(|f| f == folder) {
        all.push(folder.to_path_buf());
    }
    let dir = path.parent().ok_or_else(|| ConfigError(format!("{} has no folder", path.display())))?;
    std::fs::create_dir_all(dir).map_err(|e| ConfigError(format!("cannot create {}: {e}", dir.display())))?;
    let tmp = path.with_extension(format!("json.{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        f.write_all(serde_json::to_string_pretty(&all).unwrap_or_default().as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        ConfigError(format!("cannot write {}: {e}", path.display()))
    })
}

/// Whether the project in `folder` was trusted before (a store that cannot be read
/// trusts nothing).
pub fn is_trusted(folder: &Path) -> bool {
    let (Ok(folder), Some(store)) = (std::fs::canonicalize(folder), store_path()) else { return false };
    read(&store).is_ok_and(|all| all.contains(&folder))
}

/// Whether the settings' tools run the project's own code (the catalogue says which do:
/// `run_tests` and `coverage`).
pub fn runs_project_code(settings: &AgentSettings) -> bool {
    settings
        .tools
        .iter()
        .any(|t| crate::catalogue::find(t).is_some_and(|e| e.needs(lucid::tool::catalogue::Need::ProjectCode)))
}

/// Makes sure the user agreed that the project in `folder` may run its own code, before
/// any of it runs: already trusted, `trust` (`--trust`, then remembered), or a yes on the
/// terminal (then remembered). Otherwise an error saying how to agree.
pub fn ensure(folder: &Path, trust: bool) -> Result<(), ConfigError> {
    let folder = std::fs::canonicalize(folder)
        .map_err(|e| ConfigError(format!("cannot resolve the project folder {}: {e}", folder.display())))?;
    let store = store_path();
    if let Some(store) = &store
        && read(store)?.contains(&folder)
    {
        return Ok(());
    }
    let shown = crate::display::safe(&folder.display().to_string()).into_owned();
    let agreed = trust || (std::io::stdin().is_terminal() && std::io::stderr().is_terminal() && ask(&shown));
    if !agreed {
        return Err(ConfigError(format!(
            "the tools run_tests and coverage run this project's own code (its tests, conftest.py, build scripts), \
             and the folder {shown} is not trusted yet: pass --trust to trust it (remembered), or run in a terminal \
             to be asked"
        )));
    }
    match &store {
        Some(store) => remember(store, &folder),
        None => {
            tracing::warn!("no state folder (set HOME or XDG_STATE_HOME): the trust in {shown} is not remembered");
            Ok(())
        }
    }
}

/// Asks on the terminal; yes only for `y` or `yes`.
fn ask(folder: &str) -> bool {
    eprint!(
        "lucid: run_tests and coverage will run the own code of the project in {folder} (in the sandbox, \
         without your home folder). Trust this folder? [y/N] "
    );
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusted_folders_are_remembered_once_each_in_a_private_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("lucid-trust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = dir.join("state/lucid/trusted-folders.json");
        assert!(read(&store).unwrap().is_empty());
        remember(&store, Path::new("/p/one")).unwrap();
        remember(&store, Path::new("/p/one")).unwrap();
        remember(&store, Path::new("/p/two")).unwrap();
        assert_eq!(read(&store).unwrap(), [PathBuf::from("/p/one"), PathBuf::from("/p/two")]);
        assert_eq!(std::fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::write(&store, "{").unwrap();
        assert!(read(&store).unwrap_err().0.contains("not a list of trusted folders"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
