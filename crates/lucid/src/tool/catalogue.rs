//! A catalogue of ready-made tools: what each is, what it needs, and how to make it.
//!
//! The tools themselves live in crates of their own (`lucid-tools`: files, calculator,
//! time, `ask_user`; `lucid-sandbox`: `shell`, `python`; `lucid-code`: `code_outline`,
//! `run_tests`, `coverage`; `lucid-sql`: the SQL tools), each exporting its entries as a
//! `TOOLS` slice of [`BuiltinTool`]s. An application puts the ones it offers into one
//! [`Catalogue`] (the names it knows, its help texts, its configuration's tool list all come
//! from it) and makes them from one [`Setup`]: the folder they work in, who answers
//! `ask_user`, and each crate's own settings, kept by type ([`Setup::with`]).
//!
//! ```
//! use std::sync::Arc;
//! use lucid::tool::Tool;
//! use lucid::tool::catalogue::{BuiltinTool, Catalogue, Need, Setup};
//!
//! /// Settings of a tool crate, kept in the setup by their type.
//! #[derive(Debug, Clone, Default)]
//! struct Greeting(String);
//!
//! /// Says hello.
//! #[lucid::tool]
//! fn hello() -> String { "hello".into() }
//!
//! const TOOLS: &[BuiltinTool] = &[BuiltinTool::new("hello", "says hello", false, &[], |_| Ok(Arc::new(hello)))];
//! const GREETERS: &[BuiltinTool] = &[BuiltinTool::new("greet", "greets in the project", true, &[Need::Root], |s| {
//!     let _greeting = s.get::<Greeting>().cloned().unwrap_or_default();
//!     Ok(Arc::new(hello))
//! })];
//!
//! let catalogue = Catalogue::new().with(TOOLS).with(GREETERS);
//! assert_eq!(catalogue.names().collect::<Vec<_>>(), ["hello", "greet"]);
//! assert!(catalogue.find("greet").unwrap().needs(Need::Root));
//! let setup = Setup::new(std::env::temp_dir()).with(Greeting("hi".into()));
//! assert_eq!(catalogue.find("hello").unwrap().build(&setup).unwrap().spec().name(), "hello");
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{Interviewer, Tool};

/// Something a tool needs from outside the conversation, as data an application can act on
/// (refuse a tool without its database, keep project code out of an untrusted folder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Need {
    /// A folder to work in (the setup's root), which must exist.
    Root,
    /// A database ([`Setup`] settings of the SQL tools): without one the tool is not made.
    Database,
    /// An interpreter found on the system (Python): without one the tool is not made.
    Interpreter,
    /// It runs the project's own code (its tests, its build), which only a folder the user
    /// trusts should be asked to do.
    ProjectCode,
    /// It may reach the network.
    Network,
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Need::Root => "a folder to work in",
            Need::Database => "a database",
            Need::Interpreter => "an interpreter",
            Need::ProjectCode => "a project trusted to run its own code",
            Need::Network => "the network",
        })
    }
}

/// One ready-made tool: what it is, not where an application turns it on (that is the
/// application's policy).
#[derive(Clone, Copy)]
pub struct BuiltinTool {
    /// The tool's name, as the model and a tool list spell it.
    pub name: &'static str,
    /// What it does, in one line for help texts.
    pub summary: &'static str,
    /// It changes things outside the conversation (files, commands, a database), so a
    /// cautious policy asks before each call.
    pub writes: bool,
    /// What it needs from outside.
    pub needs: &'static [Need],
    make: fn(&Setup) -> std::io::Result<Arc<dyn Tool>>,
}

impl fmt::Debug for BuiltinTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltinTool")
            .field("name", &self.name)
            .field("writes", &self.writes)
            .field("needs", &self.needs)
            .finish()
    }
}

impl BuiltinTool {
    /// An entry: `make` builds the tool from a [`Setup`] (see the [module](self) example).
    pub const fn new(
        name: &'static str,
        summary: &'static str,
        writes: bool,
        needs: &'static [Need],
        make: fn(&Setup) -> std::io::Result<Arc<dyn Tool>>,
    ) -> Self {
        BuiltinTool { name, summary, writes, needs, make }
    }

    /// Makes the tool. Fails with [`NotFound`](std::io::ErrorKind::NotFound) when what it
    /// [needs](BuiltinTool::needs) is missing (no database given, no interpreter found), and
    /// for the file tools when the setup's root is not a folder that can be opened.
    pub fn build(&self, setup: &Setup) -> std::io::Result<Arc<dyn Tool>> {
        (self.make)(setup)
    }

    /// Whether it needs `need`.
    pub fn needs(&self, need: Need) -> bool {
        self.needs.contains(&need)
    }
}

/// The tools an application offers, in the order its help texts list them; a name is in it
/// once (a later entry of a name already there is left out, with a warning).
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    tools: Vec<BuiltinTool>,
}

impl Catalogue {
    /// An empty catalogue.
    pub fn new() -> Self {
        Catalogue::default()
    }

    /// Adds `tools` after those already in.
    pub fn with(mut self, tools: &[BuiltinTool]) -> Self {
        for tool in tools {
            if self.find(tool.name).is_some() {
                tracing::warn!(
                    tool = tool.name,
                    "a tool of this name is already in the catalogue; the later one is left out"
                );
            } else {
                self.tools.push(*tool);
            }
        }
        self
    }

    /// The entries, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, BuiltinTool> {
        self.tools.iter()
    }

    /// The entry named `name`.
    pub fn find(&self, name: &str) -> Option<&BuiltinTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tools.iter().map(|t| t.name)
    }
}

impl<'a> IntoIterator for &'a Catalogue {
    type Item = &'a BuiltinTool;
    type IntoIter = std::slice::Iter<'a, BuiltinTool>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// What the catalogue's tools are made from: the folder they work in, who answers
/// `ask_user` (nobody: the deferred form, which stops the run with the questions), and
/// each tool crate's settings, kept by their type ([`with`](Setup::with),
/// [`get`](Setup::get)). Tools that share one resource (the file tools one workspace, the
/// SQL tools one connection) make it once per setup ([`shared`](Setup::shared)).
pub struct Setup {
    root: PathBuf,
    interviewer: Option<Arc<dyn Interviewer>>,
    settings: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    shared: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setup")
            .field("root", &self.root)
            .field("interviewer", &self.interviewer.is_some())
            .field("settings", &self.settings.len())
            .finish()
    }
}

impl Setup {
    /// Tools working in `root` (which must exist when a tool that [needs](Need::Root) it is
    /// built), with nobody to answer `ask_user`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Setup { root: root.into(), interviewer: None, settings: HashMap::new(), shared: Mutex::default() }
    }

    /// Who answers `ask_user`.
    pub fn interviewer(mut self, interviewer: Arc<dyn Interviewer>) -> Self {
        self.interviewer = Some(interviewer);
        self
    }

    /// The folder the tools work in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Who answers `ask_user`, if anyone.
    pub fn answerer(&self) -> Option<&Arc<dyn Interviewer>> {
        self.interviewer.as_ref()
    }

    /// Keeps `settings` (one value per type; a second replaces the first).
    ///
    /// ```
    /// #[derive(Debug, PartialEq)]
    /// struct Timeout(u64);
    /// let setup = lucid::tool::catalogue::Setup::new(".").with(Timeout(5)).with(Timeout(9));
    /// assert_eq!(setup.get::<Timeout>(), Some(&Timeout(9)));
    /// assert_eq!(setup.get::<String>(), None);
    /// ```
    pub fn with<T: Any + Send + Sync>(mut self, settings: T) -> Self {
        self.settings.insert(TypeId::of::<T>(), Box::new(settings));
        self
    }

    /// The settings of type `T`, when given.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.settings.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref())
    }

    /// The settings of type `T`, given or changed by `change` (for a builder method of a
    /// tool crate that sets one field).
    pub fn update<T: Any + Send + Sync + Default>(mut self, change: impl FnOnce(&mut T)) -> Self {
        let entry = self.settings.entry(TypeId::of::<T>()).or_insert_with(|| Box::new(T::default()));
        if let Some(value) = entry.downcast_mut::<T>() {
            change(value);
        }
        self
    }

    /// The one `T` of this setup, made by `make` the first time it is asked for (a failure
    /// is returned and not kept, so a later call tries again).
    ///
    /// ```
    /// let setup = lucid::tool::catalogue::Setup::new(".");
    /// let a = setup.shared(|| Ok(vec![1, 2])).unwrap();
    /// let b = setup.shared::<Vec<i32>>(|| unreachable!()).unwrap();
    /// assert!(std::sync::Arc::ptr_eq(&a, &b));
    /// ```
    pub fn shared<T: Any + Send + Sync>(&self, make: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<Arc<T>> {
        let key = TypeId::of::<T>();
        let found = self.shared.lock().unwrap_or_else(|p| p.into_inner()).get(&key).cloned();
        if let Some(any) = found
            && let Ok(t) = any.downcast::<T>()
        {
            return Ok(t);
        }
        let made = Arc::new(make()?);
        let mut shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        let kept = shared.entry(key).or_insert_with(|| made as Arc<dyn Any + Send + Sync>).clone();
        kept.downcast::<T>().map_err(|_| std::io::Error::other("a shared value of another type"))
    }

    /// The tool `name` of a set made once per setup for the key type `K` (tools sharing
    /// one resource, a workspace or a database, are made together by `make` and handed out
    /// by name); `what` names the set in the error when it has no such tool.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lucid::prelude::*;
    /// /// Says hello.
    /// #[tool]
    /// fn hello() -> String { "hello".into() }
    /// struct Greeters;
    /// let setup = lucid::tool::catalogue::Setup::new(".");
    /// let make = || Ok(vec![Arc::new(hello) as Arc<dyn Tool>]);
    /// let a = setup.shared_tool::<Greeters>("hello", "the greeters", make).unwrap();
    /// let b = setup.shared_tool::<Greeters>("hello", "the greeters", || unreachable!()).unwrap();
    /// assert!(Arc::ptr_eq(&a, &b));
    /// let Err(err) = setup.shared_tool::<Greeters>("bye", "the greeters", || unreachable!()) else { panic!() };
    /// assert_eq!(err.to_string(), "the greeters has no tool `bye`");
    /// ```
    pub fn shared_tool<K: 'static>(
        &self,
        name: &str,
        what: &str,
        make: impl FnOnce() -> std::io::Result<Vec<Arc<dyn Tool>>>,
    ) -> std::io::Result<Arc<dyn Tool>> {
        let tools = self.shared(|| make().map(|t| SharedTools::<K>(t, std::marker::PhantomData)))?;
        tools
            .0
            .iter()
            .find(|t| t.spec().name() == name)
            .cloned()
            .ok_or_else(|| std::io::Error::other(format!("{what} has no tool `{name}`")))
    }
}

/// A set of tools made once per setup, kept under the key type `K`.
struct SharedTools<K>(Vec<Arc<dyn Tool>>, std::marker::PhantomData<fn() -> K>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catalogue_keeps_the_first_of_two_equal_names() {
        fn make(_: &Setup) -> std::io::Result<Arc<dyn Tool>> {
            Err(std::io::Error::other("not made here"))
        }
        const A: &[BuiltinTool] = &[BuiltinTool::new("x", "first", false, &[], make)];
        const B: &[BuiltinTool] = &[
            BuiltinTool::new("x", "second", true, &[], make),
            BuiltinTool::new("y", "other", false, &[Need::Database], make),
        ];
        let c = Catalogue::new().with(A).with(B);
        assert_eq!(c.names().collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(c.find("x").unwrap().summary, "first");
        assert!(c.find("y").unwrap().needs(Need::Database) && !c.find("y").unwrap().needs(Need::Root));
        assert!(c.find("x").unwrap().build(&Setup::new(".")).is_err());
    }

    #[test]
    fn settings_update_in_place_and_shared_values_are_made_once() {
        #[derive(Default, Debug, PartialEq)]
        struct S {
            a: u32,
            b: u32,
        }
        let setup = Setup::new(".").update::<S>(|s| s.a = 1).update::<S>(|s| s.b = 2);
        assert_eq!(setup.get::<S>(), Some(&S { a: 1, b: 2 }));
        assert!(setup.shared::<u8>(|| Err(std::io::Error::other("first try fails"))).is_err());
        assert_eq!(*setup.shared::<u8>(|| Ok(7)).unwrap(), 7);
        assert_eq!(*setup.shared::<u8>(|| Ok(9)).unwrap(), 7);
    }
}
