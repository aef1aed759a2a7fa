//! The core of the tools that run command lines (`shell` here, `run_tests` and `coverage`
//! in `lucid-code`): their settings (the workspace root, the environment, the network, the
//! timeout, the output cap) and their plumbing, written once. [`CommandRunner::run`] runs
//! one command line with [`process::run`], a project's own code in a [`Scratch`] folder
//! with a private home and the user's homes hidden, turns a run that did not finish into
//! a [`ToolError`], and says what the sandbox does not hold on this system.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use lucid::tool::ToolError;
use tokio_util::sync::CancellationToken;

use crate::process::{self, Finished};
use crate::sandbox::{Environment, Hide, Plan};

/// The settings a command-running tool holds, and the one way it runs a command.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use lucid_sandbox::command::{CommandRunner, Scratch};
/// let runner = CommandRunner::new(std::env::temp_dir(), "the tests").timeout(Duration::from_secs(5));
/// // A project's own code: a scratch folder of the run, a private home, the user's homes hidden.
/// let scratch = Scratch::new().unwrap();
/// let ran = runner.run("echo $HOME", &Default::default(), Some(&scratch)).await.unwrap();
/// assert_eq!(ran.finished.status_text(), "exit code 0");
/// assert!(String::from_utf8_lossy(&ran.finished.stdout).starts_with(&*scratch.path().to_string_lossy()));
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct CommandRunner {
    root: PathBuf,
    what: &'static str,
    environment: Environment,
    plan: Plan,
    timeout: Duration,
    cap: usize,
}

/// What [`CommandRunner::run`] left: the finished command, and the notes about what the
/// sandbox did not hold for it (none when everything did).
#[derive(Debug)]
#[non_exhaustive]
pub struct Ran {
    /// The command's output and status.
    pub finished: Finished,
    /// What the sandbox did not hold for this run, in words for the model and the user.
    pub notes: Vec<String>,
}

impl CommandRunner {
    /// Commands run in `root` (`what` names them in notes: "the command", "the tests"),
    /// with a 60 s timeout, 16 KiB of each output stream, the allowlisted environment and
    /// no network.
    pub fn new(root: impl Into<PathBuf>, what: &'static str) -> Self {
        CommandRunner {
            root: root.into(),
            what,
            environment: Environment::default(),
            plan: Plan::new(false, 0),
            timeout: Duration::from_secs(60),
            cap: 16 * 1024,
        }
    }

    /// Lets commands reach the network (only the user, PID and mount namespaces are new).
    pub fn network(mut self, on: bool) -> Self {
        self.plan.network = on;
        self
    }

    /// The environment commands start with (the allowlisted variables of this process
    /// unless set; [`Environment::isolated`] for a server).
    pub fn environment(mut self, environment: Environment) -> Self {
        self.environment = environment;
        self
    }

    /// How long a command may run before it is killed.
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }

    /// How many bytes of each output stream are kept (at least one; the rest is dropped
    /// and counted).
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.cap = bytes.max(1);
        self
    }

    /// The folder commands run in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How commands are confined.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// How many bytes of each output stream are kept.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Runs `command` with `sh -c` in the root, until it ends, times out or `cancel` fires.
    ///
    /// With a `scratch` folder the command is a project's own code (its tests, a build
    /// script), chosen by the tool: it gets a home of its own in `scratch` (`HOME` and
    /// the XDG folders; where the system gives it a mount namespace, the user's home
    /// folders show that folder too, the project and the toolchains bound back), and an
    /// error names the command. Without one it runs from the environment as it is.
    pub async fn run(
        &self,
        command: &str,
        cancel: &CancellationToken,
        scratch: Option<&Scratch>,
    ) -> Result<Ran, ToolError> {
        let (environment, hide, home_note) = match scratch {
            Some(scratch) => {
                let (environment, hide, note) = self.confinement(scratch)?;
                (Cow::Owned(environment), hide, note)
            }
            None => (Cow::Borrowed(&self.environment), None, None),
        };
        tracing::debug!(%command, what = self.what, "running a command");
        let finished = process::run(command, &self.root, &environment, self.plan, hide, self.timeout, self.cap, cancel)
            .await
            .map_err(|e| match scratch {
                Some(_) => ToolError::new(format!("`{command}`: {e}")),
                None => ToolError::new(e.to_string()),
            })?;
        let notes = self.plan.network_note(self.what).into_iter().chain(home_note).collect();
        Ok(Ran { finished, notes })
    }

    /// How a run of the project's own code is kept from the user's files: the environment
    /// with the run's private home, the hiding of the user's homes where the system
    /// allows it, and a note saying what does not hold.
    fn confinement(&self, scratch: &Scratch) -> Result<(Environment, Option<Hide>, Option<String>), ToolError> {
        let what = self.what;
        let home = scratch.home()?;
        let environment = self.environment.with_private_home(&home);
        if !self.plan.can_hide_homes() {
            let note = format!(
                "this system gives {what} no mount namespace: HOME is a private folder, but the user's home \
                 folders are readable by their absolute paths"
            );
            return Ok((environment, None, Some(note)));
        }
        #[cfg(target_os = "linux")]
        {
            let vars = environment.resolve(std::env::vars_os(), &self.root);
            match Hide::new(&self.root, &home, &scratch.path, &vars) {
                Ok(hide) => {
                    let note = hide.note.clone();
                    Ok((environment, Some(hide), note))
                }
                Err(e) => {
                    tracing::warn!("the user's home folders are not hidden from {what}: {e}");
                    let note = format!("the user's home folders are readable by their absolute paths ({e})");
                    Ok((environment, None, Some(note)))
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            Ok((environment, None, None))
        }
    }
}

/// A folder of one run, private to this user (made new, mode 0700), removed when it is
/// dropped: where a project's command writes its reports, and its private home.
///
/// ```
/// let scratch = lucid_sandbox::command::Scratch::new().unwrap();
/// assert!(scratch.path().is_dir());
/// let path = scratch.path().to_path_buf();
/// drop(scratch);
/// assert!(!path.exists());
/// ```
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// A new empty folder in the temporary folder.
    pub fn new() -> Result<Scratch, ToolError> {
        use std::os::unix::fs::DirBuilderExt;
        static N: AtomicU64 = AtomicU64::new(0);
        loop {
            let dir = std::env::temp_dir().join(format!(
                "lucid-tests-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            // Never a folder someone else made there first.
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(Scratch { path: dir }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(ToolError::new(format!("cannot make a scratch folder: {e}"))),
            }
        }
    }

    /// Where the folder is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run's private home: an empty folder with the XDG folders in it.
    fn home(&self) -> Result<PathBuf, ToolError> {
        let home = self.path.join("home");
        for sub in [".config", ".cache", ".local/share", ".local/state"] {
            std::fs::create_dir_all(home.join(sub))
                .map_err(|e| ToolError::new(format!("cannot make the run's home folder: {e}")))?;
        }
        Ok(home)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(runner: &CommandRunner, command: &str, scratch: Option<&Scratch>) -> Result<Ran, ToolError> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(runner.run(command, &CancellationToken::new(), scratch))
    }

    #[test]
    fn an_unfinished_run_names_the_command_only_when_the_tool_chose_it() {
        let runner = CommandRunner::new(std::env::temp_dir(), "the tests").timeout(Duration::from_millis(200));
        let given = run(&runner, "sleep 5", None).unwrap_err();
        assert_eq!(given.message(), "the command did not finish within 0.2 s and was killed");
        let scratch = Scratch::new().unwrap();
        let chosen = run(&runner, "sleep 5", Some(&scratch)).unwrap_err();
        assert_eq!(chosen.message(), "`sleep 5`: the command did not finish within 0.2 s and was killed");
    }

    #[test]
    fn a_project_command_gets_a_private_home_and_the_notes_say_what_the_system_lacks() {
        let mut runner = CommandRunner::new(std::env::temp_dir(), "the tests").output_cap(0);
        assert_eq!(runner.cap(), 1);
        // As on a system without user namespaces: the network the plan cuts is reachable.
        runner.plan.available.namespaces = false;
        runner.plan.available.proc = false;
        let scratch = Scratch::new().unwrap();
        let ran = run(&runner.clone().output_cap(4096), "echo $HOME", Some(&scratch)).unwrap();
        let home = String::from_utf8_lossy(&ran.finished.stdout).trim().to_string();
        assert_eq!(Path::new(&home), scratch.path().join("home"));
        assert_eq!(ran.notes.len(), 2, "{:?}", ran.notes);
        assert!(ran.notes[0].contains("does not let the tests run without network"), "{:?}", ran.notes);
        assert!(ran.notes[1].contains("gives the tests no mount namespace"), "{:?}", ran.notes);
        // A command the caller gave runs from the environment as it is, with no home note.
        let ran = run(&runner.output_cap(4096), "echo $HOME", None).unwrap();
        assert_ne!(String::from_utf8_lossy(&ran.finished.stdout).trim(), home);
        assert_eq!(ran.notes.len(), 1, "{:?}", ran.notes);
    }
}
