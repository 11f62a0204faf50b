//! Scope: whether a memory belongs to one project or to every project (global).
//!
//! A project is named by a stable string — normally the normalised git remote
//! (`github.com/acme/api`), else the git root, else the directory (see [`crate::project`]).
//! Reads by default see the current project's memories plus global ones ([`ScopeFilter`]).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// A project's stable name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProjectName(String);

impl ProjectName {
    pub const MAX_CHARS: usize = 512;

    pub fn new(raw: &str) -> Result<Self, Error> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(Error::invalid("project", "is empty"));
        }
        if name.chars().count() > Self::MAX_CHARS {
            return Err(Error::invalid(
                "project",
                format!("is longer than {} characters", Self::MAX_CHARS),
            ));
        }
        Ok(ProjectName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Serialize for ProjectName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ProjectName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ProjectName::new(&String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for ProjectName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a memory belongs. Serialised as the project name, or `null` for global.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Project(ProjectName),
}

impl Scope {
    pub fn project(&self) -> Option<&ProjectName> {
        match self {
            Scope::Global => None,
            Scope::Project(name) => Some(name),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str("global"),
            Scope::Project(name) => write!(f, "{name}"),
        }
    }
}

impl Serialize for Scope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Scope::Global => serializer.serialize_none(),
            Scope::Project(name) => serializer.serialize_some(name.as_str()),
        }
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(deserializer)? {
            None => Ok(Scope::Global),
            Some(name) => ProjectName::new(&name)
                .map(Scope::Project)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// Which scopes a read looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeFilter {
    /// One project's memories and the global ones: the default for a read made in a project.
    ProjectAndGlobal(ProjectName),
    /// Only global memories.
    Global,
    /// Only one project's memories (not the global ones).
    Project(ProjectName),
    /// Every scope.
    All,
}

impl ScopeFilter {
    /// Exactly the memories of `scope`: one project's, or the global ones.
    pub fn only(scope: &Scope) -> Self {
        match scope {
            Scope::Global => ScopeFilter::Global,
            Scope::Project(project) => ScopeFilter::Project(project.clone()),
        }
    }
}
