//! The environment the code tools start from: an allowlist, never the operator's secrets.

use std::ffi::OsString;
use std::path::Path;

/// The variables a code tool (`shell`, `python`) starts with.
///
/// [`Environment::inherited`] (the default) passes only the [`ALLOWED`](Environment::ALLOWED)
/// names (and every `LC_*`) from this process, plus the names given to
/// [`pass`](Environment::pass); [`Environment::isolated`] passes nothing from this
/// process (a fixed `PATH`, `LANG=C.UTF-8` and `HOME` set to the tool's folder), which is
/// what a server running other people's requests wants. Either way a provider's key
/// variable (`OPENAI_API_KEY`, …) and any `*_API_KEY`, `*_TOKEN`, `*_SECRET`,
/// `*_PASSWORD` is never passed, even when named.
///
/// ```
/// use lucid_sandbox::Environment;
/// let env = Environment::inherited().pass("CARGO_HOME").set("PYTHONHASHSEED", "0");
/// let none = Environment::isolated();
/// # let _ = (env, none);
/// ```
#[derive(Debug, Clone)]
pub struct Environment {
    inherit: bool,
    pass: Vec<String>,
    set: Vec<(String, String)>,
}

impl Default for Environment {
    fn default() -> Self {
        Environment::inherited()
    }
}

/// The `PATH` of an isolated environment.
const ISOLATED_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

impl Environment {
    /// The names passed from this process by [`Environment::inherited`] (with every
    /// `LC_*` locale variable).
    pub const ALLOWED: &'static [&'static str] =
        &["PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "TMPDIR", "SHELL"];

    /// The allowlisted variables of this process, and nothing else.
    pub fn inherited() -> Self {
        Environment { inherit: true, pass: Vec::new(), set: Vec::new() }
    }

    /// Nothing from this process: `PATH=/usr/local/bin:/usr/bin:/bin`, `LANG=C.UTF-8`,
    /// `HOME` the tool's working folder, and what [`set`](Environment::set) adds.
    pub fn isolated() -> Self {
        Environment { inherit: false, pass: Vec::new(), set: Vec::new() }
    }

    /// Also passes the variable `name` from this process (when it is set). Ignored by an
    /// [isolated](Environment::isolated) environment, and for an API key variable.
    pub fn pass(mut self, name: impl Into<String>) -> Self {
        self.pass.push(name.into());
        self
    }

    /// Sets `name` to `value` in the tool's environment.
    pub fn set(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.set.push((name.into(), value.into()));
        self
    }

    /// Whether this process's variables are passed at all.
    pub fn is_isolated(&self) -> bool {
        !self.inherit
    }

    /// The variables, from `vars` (this process's), for a tool whose folder is `home`.
    pub fn resolve(&self, vars: impl Iterator<Item = (OsString, OsString)>, home: &Path) -> Vec<(OsString, OsString)> {
        let mut out: Vec<(OsString, OsString)> = if self.inherit {
            vars.filter(|(k, _)| {
                k.to_str().is_some_and(|k| {
                    (Environment::ALLOWED.contains(&k) || k.starts_with("LC_") || self.pass.iter().any(|p| p == k))
                        && !is_secret(k)
                })
            })
            .collect()
        } else {
            vec![
                ("PATH".into(), ISOLATED_PATH.into()),
                ("LANG".into(), "C.UTF-8".into()),
                ("HOME".into(), home.as_os_str().to_owned()),
            ]
        };
        for (k, v) in &self.set {
            out.retain(|(name, _)| name.to_str() != Some(k));
            out.push((k.into(), v.into()));
        }
        out
    }

    /// This environment with a home of its own in `home` (an empty private folder):
    /// `HOME` and the XDG configuration, cache, data and state folders all inside it, so
    /// that code reading or writing `~/.config`, `~/.ssh`, `~/.cache/huggingface` or
    /// `~/.local/share` finds the empty folder, never the user's files. The toolchains
    /// that live in the user's home by default (`CARGO_HOME`, `RUSTUP_HOME`, `GOPATH`,
    /// `PYENV_ROOT`, `NVM_DIR`) are pointed at the user's folders, which only an
    /// [inherited](Environment::inherited) environment does.
    pub fn with_private_home(&self, home: &Path) -> Environment {
        let mut env = self.clone();
        if env.inherit {
            let user_home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            for (var, default) in TOOLCHAINS {
                let found = std::env::var_os(var)
                    .map(std::path::PathBuf::from)
                    .or_else(|| user_home.as_ref().map(|h| h.join(default)).filter(|p| p.is_dir()));
                if let Some(dir) = found {
                    env = env.set(*var, dir.to_string_lossy());
                }
            }
        }
        let at = |sub: &str| home.join(sub).to_string_lossy().into_owned();
        env.set("HOME", home.to_string_lossy())
            .set("XDG_CONFIG_HOME", at(".config"))
            .set("XDG_CACHE_HOME", at(".cache"))
            .set("XDG_DATA_HOME", at(".local/share"))
            .set("XDG_STATE_HOME", at(".local/state"))
    }

    /// Clears `cmd`'s environment and gives it these variables.
    pub(crate) fn apply(&self, cmd: &mut tokio::process::Command, home: &Path) {
        cmd.env_clear().envs(self.resolve(std::env::vars_os(), home));
    }
}

/// The toolchains whose default folder is in the user's home: their variable and that
/// folder (from the home).
const TOOLCHAINS: &[(&str, &str)] = &[
    ("CARGO_HOME", ".cargo"),
    ("RUSTUP_HOME", ".rustup"),
    ("GOPATH", "go"),
    ("PYENV_ROOT", ".pyenv"),
    ("NVM_DIR", ".nvm"),
];

/// The endings of the names of variables that hold a secret (upper case).
const SECRET_ENDINGS: &[&str] =
    &["_API_KEY", "_API_KEYS", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY", "PASSWORD", "_CREDENTIALS"];

/// A variable that holds an API key or a token: every provider preset's key variables,
/// and any other name ending in `_API_KEY`, `_TOKEN`, `_SECRET`, `_PASSWORD` and the like
/// (`HF_TOKEN`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `LUCID_SERVE_API_KEYS`).
pub(crate) fn is_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_ENDINGS.iter().any(|e| upper.ends_with(e))
        || lucid::model::Provider::holds_key(lucid::model::Provider::all(), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[(&str, &str)]) -> impl Iterator<Item = (OsString, OsString)> {
        names.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))).collect::<Vec<_>>().into_iter()
    }

    fn names(v: &[(OsString, OsString)]) -> Vec<String> {
        v.iter().map(|(k, _)| k.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn only_allowlisted_and_passed_names_reach_the_tool_and_never_a_key() {
        let process = [
            ("PATH", "/bin"),
            ("HOME", "/home/me"),
            ("LC_ALL", "C"),
            ("DATABASE_URL", "postgres://me:pw@db"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("LUCID_SERVE_API_KEYS", "a=sk-1"),
            ("OPENAI_API_KEY", "sk-2"),
            ("CARGO_HOME", "/c"),
        ];
        let env = Environment::inherited().pass("CARGO_HOME").pass("OPENAI_API_KEY");
        let got = env.resolve(vars(&process), Path::new("/w"));
        assert_eq!(names(&got), ["PATH", "HOME", "LC_ALL", "CARGO_HOME"]);
        let isolated =
            Environment::isolated().pass("CARGO_HOME").set("X", "1").resolve(vars(&process), Path::new("/w"));
        assert_eq!(names(&isolated), ["PATH", "LANG", "HOME", "X"]);
        assert_eq!(isolated[2].1, "/w");
    }

    #[test]
    fn a_private_home_replaces_the_users_home_and_xdg_folders_even_when_passed() {
        let process = [("HOME", "/home/me"), ("XDG_CONFIG_HOME", "/home/me/.config"), ("PATH", "/bin")];
        let env = Environment::inherited().pass("XDG_CONFIG_HOME").set("HOME", "/elsewhere");
        let got = env.with_private_home(Path::new("/run/home")).resolve(vars(&process), Path::new("/w"));
        let value = |name: &str| got.iter().find(|(k, _)| k == name).map(|(_, v)| v.to_string_lossy().into_owned());
        assert_eq!(value("HOME").as_deref(), Some("/run/home"));
        assert_eq!(value("XDG_CONFIG_HOME").as_deref(), Some("/run/home/.config"));
        assert_eq!(value("XDG_DATA_HOME").as_deref(), Some("/run/home/.local/share"));
        assert_eq!(value("XDG_STATE_HOME").as_deref(), Some("/run/home/.local/state"));
        assert_eq!(value("XDG_CACHE_HOME").as_deref(), Some("/run/home/.cache"));
        assert_eq!(got.iter().filter(|(k, _)| k == "HOME").count(), 1);
        assert!(!got.iter().any(|(_, v)| v.to_string_lossy().starts_with("/home/me")), "{got:?}");
    }

    #[test]
    fn provider_keys_are_secrets() {
        let names = [
            "PATH",
            "OPENAI_API_KEY",
            "GOOGLE_API_KEY",
            "MY_SERVICE_API_KEY",
            "HOME",
            "API_KEY_HINT",
            "HF_TOKEN",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "LUCID_SERVE_API_KEYS",
            "PGPASSWORD",
            "CARGO_HOME",
        ];
        let secret: Vec<&str> = names.into_iter().filter(|n| is_secret(n)).collect();
        assert_eq!(
            secret,
            [
                "OPENAI_API_KEY",
                "GOOGLE_API_KEY",
                "MY_SERVICE_API_KEY",
                "HF_TOKEN",
                "GITHUB_TOKEN",
                "AWS_SECRET_ACCESS_KEY",
                "LUCID_SERVE_API_KEYS",
                "PGPASSWORD",
            ]
        );
    }
}
