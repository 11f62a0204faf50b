//! Slots at the front door: the inputs of the slot operations over MCP and HTTP (and the CLI's
//! flags), their conversion into the slot domain's requests for a [`Caller`], and the `Api`
//! operations (each edit pinned to a slot the caller may write).
//!
//! A REST route carries the label in its path (`/v1/slots/{label}`), so the body and query types
//! here leave it out; the MCP tools take the same types with a `label` beside them
//! ([`SlotInput`], [`SlotEditInput`]). A request that names no project means the caller's.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Api;
use super::Caller;
use super::lenient;
use crate::audit::{AuditAction, Change};
use crate::error::{Error, Result};
use crate::scope::{ProjectName, Scope};
use crate::session::SessionKey;
use crate::slot::{DEFAULT_SLOTS, Reflection, Slot};
use crate::slot::{NewSlot, SlotSettings};
use crate::slot::{SlotAddress, SlotLabel, SlotScope};

/// Which of the slots with a label is meant.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SlotTarget {
    /// `project` or `global`; when omitted, the project's slot if it has one, else the global
    /// slot of that label.
    pub scope: Option<SlotScope>,
    /// The project; the caller's project when omitted.
    pub project: Option<String>,
}

impl SlotTarget {
    pub fn address(&self, label: &str, caller: &Caller) -> Result<SlotAddress> {
        Ok(SlotAddress {
            label: SlotLabel::new(label)?,
            project: project_or_callers(self.project.as_deref(), caller)?,
            scope: self.scope,
        })
    }
}

/// Input of `memory_slot_get` and `memory_slot_delete`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotInput {
    /// The slot's label, e.g. `pending_items`.
    pub label: String,
    #[serde(flatten)]
    pub target: SlotTarget,
}

/// Which project's slots: the input of `memory_slot_list` and `GET /v1/slots`, and the query of
/// `POST /v1/slots/{label}/reset`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SlotProjectInput {
    /// The project whose slots (with the global ones) are listed; the caller's when omitted.
    pub project: Option<String>,
}

impl SlotProjectInput {
    pub fn project(&self, caller: &Caller) -> Result<Option<ProjectName>> {
        project_or_callers(self.project.as_deref(), caller)
    }
}

/// Text for a slot: the body of `PUT /v1/slots/{label}` (replace) and
/// `POST /v1/slots/{label}/append`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotTextInput {
    /// For append, the lines to add at the end; for replace, the whole new content (empty
    /// empties the slot). Over the slot's limit, nothing is written.
    #[serde(alias = "text")]
    pub content: String,
    /// `project` or `global`; when omitted, the project's slot if it has one, else the global
    /// slot of that label.
    #[serde(default)]
    pub scope: Option<SlotScope>,
    /// The project; the caller's project when omitted.
    #[serde(default)]
    pub project: Option<String>,
}

impl SlotTextInput {
    /// Which slot the text is for.
    pub fn target(&self) -> SlotTarget {
        SlotTarget {
            scope: self.scope,
            project: self.project.clone(),
        }
    }
}

/// Input of `memory_slot_append` and `memory_slot_replace`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotEditInput {
    /// The slot's label, e.g. `pending_items`.
    pub label: String,
    #[serde(flatten)]
    pub text: SlotTextInput,
}

/// Input of `memory_slot_create` and `POST /v1/slots`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotCreateInput {
    /// A lowercase letter, then lowercase letters, digits and `_` (at most 64), e.g. `api_conventions`.
    pub label: String,
    /// The initial content (default empty).
    #[serde(default)]
    pub content: String,
    /// What belongs in the slot, for whoever edits it.
    #[serde(default)]
    pub description: Option<String>,
    /// Most characters the slot may hold (1–20000, default 2000).
    #[serde(default, alias = "sizeLimit")]
    #[schemars(range(min = 1, max = 20000))]
    pub limit: Option<usize>,
    /// Inject it at the top of every session's context (default true: a slot is made to be
    /// seen).
    #[serde(default = "pinned_by_default", deserialize_with = "lenient::bool")]
    pub pinned: bool,
    /// Refuse every change (append, replace, delete) until it is unlocked.
    #[serde(default, alias = "readOnly", deserialize_with = "lenient::bool")]
    pub read_only: bool,
    /// `project` (the default when a project is known) or `global`.
    #[serde(default)]
    pub scope: Option<SlotScope>,
    /// The project; the caller's project when omitted.
    #[serde(default)]
    pub project: Option<String>,
}

impl SlotCreateInput {
    pub fn into_new_slot(self, caller: &Caller) -> Result<NewSlot> {
        let project = project_or_callers(self.project.as_deref(), caller)?;
        let scope = match (self.scope, project) {
            (Some(SlotScope::Global), _) | (None, None) => Scope::Global,
            (_, Some(project)) => Scope::Project(project),
            (Some(SlotScope::Project), None) => {
                return Err(Error::invalid(
                    "scope",
                    "project needs a project; name one (project) or create a global slot",
                ));
            }
        };
        Ok(NewSlot {
            label: self.label,
            scope,
            content: self.content,
            description: self.description,
            limit: self.limit,
            pinned: self.pinned,
            read_only: self.read_only,
        })
    }
}

fn pinned_by_default() -> bool {
    true
}

/// The body of `PATCH /v1/slots/{label}`: only the settings given change.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SlotSettingsInput {
    /// A new description; `""` removes it.
    pub description: Option<String>,
    /// A new limit in characters (1–20000), not below what the slot holds.
    #[serde(alias = "sizeLimit")]
    #[schemars(range(min = 1, max = 20000))]
    pub limit: Option<usize>,
    #[serde(deserialize_with = "lenient::option_bool")]
    pub pinned: Option<bool>,
    /// `false` unlocks a read-only slot.
    #[serde(alias = "readOnly", deserialize_with = "lenient::option_bool")]
    pub read_only: Option<bool>,
    #[serde(flatten)]
    pub target: SlotTarget,
}

impl SlotSettingsInput {
    pub fn settings(&self) -> SlotSettings {
        SlotSettings {
            description: self.description.clone(),
            limit: self.limit,
            pinned: self.pinned,
            read_only: self.read_only,
        }
    }
}

fn project_or_callers(named: Option<&str>, caller: &Caller) -> Result<Option<ProjectName>> {
    match named {
        Some(name) => Ok(Some(ProjectName::new(name)?)),
        None => Ok(caller.default_project.clone()),
    }
}

impl Api {
    /// The slots a caller sees: the project's and the global ones it does not shadow.
    pub fn slots(&self, caller: &Caller, input: &SlotProjectInput) -> Result<Vec<Slot>> {
        let project = input.project(caller)?;
        if let Some(project) = &project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        self.domains.slots().slots(project.as_ref())
    }

    pub fn slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        let address = target.address(label, caller)?;
        if let Some(project) = &address.project {
            caller
                .access
                .read(&Scope::Project(project.clone()), "project")?;
        }
        self.domains.slots().slot(&address)
    }

    pub fn create_slot(&self, caller: &Caller, input: SlotCreateInput) -> Result<Slot> {
        let new = input.into_new_slot(caller)?;
        caller.access.write(&new.scope, "scope")?;
        let slot = self.domains.slots().create_slot(new)?;
        self.audit_slot(caller, AuditAction::SlotCreate, &slot, "");
        Ok(slot)
    }

    /// After a change of one slot, its audit entry.
    fn audit_slot(&self, caller: &Caller, action: AuditAction, slot: &Slot, detail: &str) {
        let change = Change::in_scope(action, &slot.scope)
            .of(&slot.label)
            .saying(detail);
        self.audited(caller, change);
    }

    /// The slot a change means, pinned to one the caller may write.
    pub(super) fn writable_slot(
        &self,
        caller: &Caller,
        label: &str,
        target: &SlotTarget,
    ) -> Result<SlotAddress> {
        let mut address = target.address(label, caller)?;
        caller.access.write_slot(&mut address)?;
        Ok(address)
    }

    pub fn append_slot(&self, caller: &Caller, label: &str, input: &SlotTextInput) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target())?;
        let slot = self.domains.slots().append_slot(&address, &input.content)?;
        self.audit_slot(caller, AuditAction::SlotEdit, &slot, "append");
        Ok(slot)
    }

    pub fn replace_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotTextInput,
    ) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target())?;
        let slot = self
            .domains
            .slots()
            .replace_slot(&address, &input.content)?;
        self.audit_slot(caller, AuditAction::SlotEdit, &slot, "replace");
        Ok(slot)
    }

    pub fn configure_slot(
        &self,
        caller: &Caller,
        label: &str,
        input: &SlotSettingsInput,
    ) -> Result<Slot> {
        let address = self.writable_slot(caller, label, &input.target)?;
        let slot = self
            .domains
            .slots()
            .configure_slot(&address, &input.settings())?;
        self.audit_slot(caller, AuditAction::SlotConfigure, &slot, "");
        Ok(slot)
    }

    pub fn delete_slot(&self, caller: &Caller, label: &str, target: &SlotTarget) -> Result<Slot> {
        let slot = self
            .domains
            .slots()
            .delete_slot(&self.writable_slot(caller, label, target)?)?;
        self.audit_slot(caller, AuditAction::SlotDelete, &slot, "");
        Ok(slot)
    }

    /// Puts default slot `label` back as seeded, or (without a label) re-creates every deleted
    /// default of the caller's project and the global scope.
    pub fn reset_slots(
        &self,
        caller: &Caller,
        label: Option<&str>,
        input: &SlotProjectInput,
    ) -> Result<Vec<Slot>> {
        let label = label.map(SlotLabel::new).transpose()?;
        let project = input.project(caller)?;
        // A reset writes each default's own scope: the project's, or the global one.
        let defaults = match &label {
            Some(label) => DEFAULT_SLOTS
                .iter()
                .filter(|spec| spec.label == label.as_str())
                .collect(),
            None => DEFAULT_SLOTS.iter().collect::<Vec<_>>(),
        };
        for spec in defaults {
            let scope = match (&project, spec.global) {
                (Some(project), false) => Scope::Project(project.clone()),
                _ => Scope::Global,
            };
            caller.access.write(&scope, "label")?;
        }
        let slots = self
            .domains
            .slots()
            .reset_slots(project.as_ref(), label.as_ref())?;
        for slot in &slots {
            self.audit_slot(caller, AuditAction::SlotReset, slot, "");
        }
        Ok(slots)
    }

    /// Writes what a recorded session says into its project's slots.
    pub fn reflect(&self, caller: &Caller, agent: &str, id: &str) -> Result<Reflection> {
        let key = SessionKey::new(agent, id)?;
        let session = self.domains.sessions().session(&key)?;
        caller
            .access
            .write(&Scope::Project(session.project), "session")?;
        let reflection = self.domains.slots().reflect_session(&key)?;
        if !reflection.changes.is_empty() {
            self.audit_reflection(caller, &reflection);
        }
        Ok(reflection)
    }

    /// After a reflection that changed slots, its audit entry.
    pub(super) fn audit_reflection(&self, caller: &Caller, reflection: &Reflection) {
        let change = Change::new(AuditAction::SlotReflect, Some(&reflection.project))
            .of(&reflection.session)
            .saying(format!("{} slot changes", reflection.changes.len()));
        self.audited(caller, change);
    }

    /// `reflect` for a session named in a body: `AGENT/ID`, or a bare id one agent's session
    /// has (agentmemory's `POST /agentmemory/slot/reflect`).
    pub fn reflect_named(&self, caller: &Caller, input: ReflectInput) -> Result<Reflection> {
        let key = self.domains.sessions().resolve(input.session_id.trim())?;
        self.reflect(caller, &key.agent, &key.id)
    }

    /// Reflects the most recently active session of `project` into its slots.
    pub fn reflect_latest(&self, project: &ProjectName) -> Result<Reflection> {
        self.domains.slots().reflect_latest_session(project)
    }
}

/// Input of agentmemory's slot reflection (`POST /agentmemory/slot/reflect`): the session.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReflectInput {
    /// The session: `AGENT/ID`, or its id alone when one agent's session has it.
    #[serde(alias = "sessionId")]
    pub session_id: String,
    /// agentmemory's cap on the observations read. cairn's reflection reads every observation
    /// of the session still within retention (merging only lines not already in the slots),
    /// so the cap is taken and left.
    #[serde(default, alias = "maxObservations")]
    pub max_observations: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Source;
    use serde_json::json;

    fn caller(project: Option<&str>) -> Caller {
        Caller {
            access: crate::access::Access::Full,
            default_project: project.map(|p| ProjectName::new(p).unwrap()),
            source: Source::Mcp,
            agent: None,
        }
    }

    #[test]
    fn slot_inputs_refuse_unknown_fields_through_the_flattened_target() {
        let edit = serde_json::from_value::<SlotEditInput>(
            json!({"label": "guidance", "content": "x", "scop": "global"}),
        );
        assert!(edit.unwrap_err().to_string().contains("scop"));
        let edit: SlotEditInput =
            serde_json::from_value(json!({"label": "guidance", "content": "x", "scope": "global"}))
                .unwrap();
        assert_eq!(edit.text.scope, Some(SlotScope::Global));
        let plain: SlotEditInput =
            serde_json::from_value(json!({"label": "notes", "content": "x"})).unwrap();
        assert_eq!(plain.text.content, "x");
        let get: SlotInput = serde_json::from_value(json!({"label": "notes"})).unwrap();
        assert_eq!(get.target.scope, None);
    }

    #[test]
    fn a_created_slot_is_pinned_unless_asked_and_takes_agentmemorys_spelling() {
        let read = |value| serde_json::from_value::<SlotCreateInput>(value).unwrap();
        let plain = read(json!({"label": "notes"}));
        assert!(plain.pinned && !plain.read_only);
        let theirs = read(
            json!({"label": "notes", "readOnly": "true", "sizeLimit": 500, "pinned": "false"}),
        );
        assert_eq!(
            (theirs.pinned, theirs.read_only, theirs.limit),
            (false, true, Some(500))
        );
        let settings: SlotSettingsInput =
            serde_json::from_value(json!({"readOnly": "false", "pinned": "TRUE"})).unwrap();
        assert_eq!(
            (settings.pinned, settings.read_only),
            (Some(true), Some(false))
        );
        let refused =
            serde_json::from_value::<SlotCreateInput>(json!({"label": "n", "pinned": "maybe"}))
                .unwrap_err()
                .to_string();
        assert!(refused.contains("'maybe' is not a boolean"), "{refused}");
        // The schema shows cairn's own names and the new default, not the aliases.
        let schema = crate::api::schema::<SlotCreateInput>();
        let text = serde_json::to_string(&schema).unwrap();
        assert!(
            !text.contains("readOnly") && !text.contains("sizeLimit"),
            "{text}"
        );
        assert_eq!(schema["properties"]["pinned"]["default"], true, "{text}");
    }

    #[test]
    fn create_defaults_to_the_callers_project_else_global() {
        let input = |scope: Option<SlotScope>| SlotCreateInput {
            label: "notes".into(),
            content: String::new(),
            description: None,
            limit: None,
            pinned: false,
            read_only: false,
            scope,
            project: None,
        };
        let acme = caller(Some("acme"));
        assert_eq!(
            input(None).into_new_slot(&acme).unwrap().scope,
            Scope::Project(ProjectName::new("acme").unwrap())
        );
        assert_eq!(
            input(None).into_new_slot(&caller(None)).unwrap().scope,
            Scope::Global
        );
        assert_eq!(
            input(Some(SlotScope::Global))
                .into_new_slot(&acme)
                .unwrap()
                .scope,
            Scope::Global
        );
        let error = input(Some(SlotScope::Project))
            .into_new_slot(&caller(None))
            .unwrap_err();
        assert_eq!(error.field(), Some("scope"));
    }
}
