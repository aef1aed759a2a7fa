//! The one error of configuration: a problem the user fixes in the flags, the file or the
//! environment.

/// A configuration problem, shown to the user as is (exit code 2).
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}
