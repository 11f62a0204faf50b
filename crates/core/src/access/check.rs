//! [`Access`]: what the caller of one request may do, and the checks [`crate::api::Api`] runs
//! before an operation reads or writes anything.
//!
//! [`Access::Full`] passes every check. A [`Grant`] reads its project and the global scope,
//! writes its project (with [`Right::Write`]), and nothing else. Each refusal is logged (which
//! token, what it asked for) and answered with [`Error::Forbidden`] naming what the token
//! reaches, so its holder knows which token to ask for.

use crate::access::model::{Right, TokenId};
use crate::error::{Error, Result};
use crate::scope::{ProjectName, Scope, ScopeFilter};
use crate::slot::{SlotAddress, SlotScope};

/// What a request may do.
#[derive(Debug, Clone, PartialEq)]
pub enum Access {
    /// Everything: the local operator, or a server's own `--token`.
    Full,
    /// What one store token allows.
    Token(Grant),
}

/// A token's reach: one project, with a right.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub token: TokenId,
    pub project: ProjectName,
    pub right: Right,
}

impl Grant {
    fn refuse(&self, field: &str, asked: &str) -> Error {
        let reach = match self.right {
            Right::Read => format!("reads project '{}' and global memories", self.project),
            Right::Write => format!(
                "reads project '{}' and global memories and writes project '{}'",
                self.project, self.project
            ),
        };
        tracing::warn!(
            token = %self.token,
            project = %self.project,
            right = %self.right,
            field,
            asked,
            "refused a request outside its token's scope"
        );
        Error::Forbidden {
            field: field.into(),
            message: format!(
                "{asked} is outside this token's scope (token {} {reach}); ask the operator for \
                 a token of that project",
                self.token
            ),
        }
    }

    fn reads(&self, scope: &Scope) -> bool {
        match scope {
            Scope::Global => true,
            Scope::Project(project) => *project == self.project,
        }
    }
}

impl Access {
    /// The project a token is scoped to; `None` for full access.
    pub fn project(&self) -> Option<&ProjectName> {
        match self {
            Access::Full => None,
            Access::Token(grant) => Some(&grant.project),
        }
    }

    /// True when the caller may read `scope` (a quiet check, for filtering answers).
    pub fn can_read(&self, scope: &Scope) -> bool {
        match self {
            Access::Full => true,
            Access::Token(grant) => grant.reads(scope),
        }
    }

    /// The caller may read what is stored in `scope`; `field` names the request's part that
    /// pointed there.
    pub fn read(&self, scope: &Scope, field: &str) -> Result<()> {
        match self {
            Access::Token(grant) if !grant.reads(scope) => {
                Err(grant.refuse(field, &format!("reading {}", described(scope))))
            }
            _ => Ok(()),
        }
    }

    /// The caller may write into `scope`.
    pub fn write(&self, scope: &Scope, field: &str) -> Result<()> {
        let Access::Token(grant) = self else {
            return Ok(());
        };
        let own = matches!(scope, Scope::Project(project) if *project == grant.project);
        if own && grant.right == Right::Write {
            return Ok(());
        }
        Err(grant.refuse(field, &format!("writing {}", described(scope))))
    }

    /// Narrows a read over memories to what the caller may see: "every scope" becomes the
    /// token's project and the global scope; any other project is refused.
    pub fn narrow(&self, filter: &mut ScopeFilter) -> Result<()> {
        let Access::Token(grant) = self else {
            return Ok(());
        };
        match filter {
            ScopeFilter::All => {
                *filter = ScopeFilter::ProjectAndGlobal(grant.project.clone());
                Ok(())
            }
            ScopeFilter::Global => Ok(()),
            ScopeFilter::Project(project) | ScopeFilter::ProjectAndGlobal(project) => {
                self.read(&Scope::Project(project.clone()), "project")
            }
        }
    }

    /// Narrows a read where `None` means every project (sessions, observations, relation
    /// counts): a token reads its own project.
    pub fn narrow_project(&self, project: &mut Option<ProjectName>) -> Result<()> {
        let Access::Token(grant) = self else {
            return Ok(());
        };
        match project {
            None => {
                *project = Some(grant.project.clone());
                Ok(())
            }
            Some(named) => self.read(&Scope::Project(named.clone()), "project"),
        }
    }

    /// Pins a slot edit to the scope the caller may write: a token's edit goes to its project's
    /// slot (never falls through to the global one of that label).
    pub fn write_slot(&self, address: &mut SlotAddress) -> Result<()> {
        if let Access::Token(grant) = self {
            let scope = match (address.scope, &address.project) {
                (Some(SlotScope::Global), _) | (None, None) => Scope::Global,
                (_, Some(project)) => Scope::Project(project.clone()),
                (Some(SlotScope::Project), None) => return Ok(()), // refused as invalid later
            };
            self.write(&scope, "scope")?;
            // Only the token's own project reaches here.
            address.scope = Some(SlotScope::Project);
            address.project = Some(grant.project.clone());
        }
        Ok(())
    }

    /// The caller may run `operation`, which reaches the whole store (every project).
    pub fn whole_store(&self, operation: &str) -> Result<()> {
        match self {
            Access::Full => Ok(()),
            Access::Token(grant) => {
                Err(grant.refuse("token", &format!("{operation} (it reaches every project)")))
            }
        }
    }
}

fn described(scope: &Scope) -> String {
    match scope {
        Scope::Global => "the global scope".into(),
        Scope::Project(project) => format!("project '{project}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(project: &str, right: Right) -> Access {
        Access::Token(Grant {
            token: TokenId::parse("0123456789ab").unwrap(),
            project: ProjectName::new(project).unwrap(),
            right,
        })
    }

    fn project(name: &str) -> Scope {
        Scope::Project(ProjectName::new(name).unwrap())
    }

    #[test]
    fn full_access_passes_every_check() {
        let full = Access::Full;
        assert!(full.read(&project("p"), "project").is_ok());
        assert!(full.write(&Scope::Global, "scope").is_ok());
        assert!(full.whole_store("an export").is_ok());
        let mut all = ScopeFilter::All;
        full.narrow(&mut all).unwrap();
        assert_eq!(all, ScopeFilter::All);
    }

    #[test]
    fn a_token_reads_its_project_and_global_and_nothing_else() {
        let reader = token("p", Right::Read);
        assert!(reader.read(&project("p"), "project").is_ok());
        assert!(reader.read(&Scope::Global, "project").is_ok());
        let error = reader.read(&project("q"), "project").unwrap_err();
        assert!(matches!(&error, Error::Forbidden { field, .. } if field == "project"));
        let message = error.to_string();
        assert!(message.contains("project 'q'"), "{message}");
        assert!(message.contains("0123456789ab"), "{message}");
    }

    #[test]
    fn only_a_write_token_writes_and_only_its_own_project() {
        let writer = token("p", Right::Write);
        assert!(writer.write(&project("p"), "scope").is_ok());
        assert!(writer.write(&Scope::Global, "scope").is_err());
        assert!(writer.write(&project("q"), "scope").is_err());
        assert!(
            token("p", Right::Read)
                .write(&project("p"), "scope")
                .is_err()
        );
        assert!(writer.whole_store("an export").is_err());
    }

    #[test]
    fn a_read_of_everything_is_narrowed_and_another_project_refused() {
        let reader = token("p", Right::Read);
        let mut filter = ScopeFilter::All;
        reader.narrow(&mut filter).unwrap();
        assert_eq!(
            filter,
            ScopeFilter::ProjectAndGlobal(ProjectName::new("p").unwrap())
        );
        let mut global = ScopeFilter::Global;
        reader.narrow(&mut global).unwrap();
        assert_eq!(global, ScopeFilter::Global);
        let mut other = ScopeFilter::Project(ProjectName::new("q").unwrap());
        assert!(reader.narrow(&mut other).is_err());
        let mut every = None;
        reader.narrow_project(&mut every).unwrap();
        assert_eq!(every, Some(ProjectName::new("p").unwrap()));
    }

    #[test]
    fn a_token_edits_its_projects_slot_never_the_global_one() {
        let writer = token("p", Right::Write);
        let label = crate::slot::SlotLabel::new("pending_items").unwrap();
        let mut shadowing = SlotAddress {
            label: label.clone(),
            project: Some(ProjectName::new("p").unwrap()),
            scope: None,
        };
        writer.write_slot(&mut shadowing).unwrap();
        assert_eq!(shadowing.scope, Some(SlotScope::Project));
        let mut global = SlotAddress {
            label,
            project: Some(ProjectName::new("p").unwrap()),
            scope: Some(SlotScope::Global),
        };
        assert!(writer.write_slot(&mut global).is_err());
    }
}
