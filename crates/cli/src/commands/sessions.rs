//! `cairn context`, `cairn sessions`, `cairn extract`: what hooks recorded, and what a session
//! should know.

use anyhow::Result;
use cairn_core::context::ContextRequest;
use cairn_core::session::{SessionFilter, SessionKey};
use cairn_core::{ProjectName, Scope};

use crate::app::{App, split_list};
use crate::args::{ContextArgs, ExtractArgs, ProjectArgs, SessionsArgs};
use crate::outcome::Outcome;
use crate::output::{SessionView, View};

pub fn context(app: &App, args: &ContextArgs) -> Result<Outcome> {
    let project = project_unless_all(app, args.project.as_deref(), args.all_projects)?;
    let session = args
        .session
        .as_deref()
        .map(|text| session_key(app, text))
        .transpose()?;
    let context = app.api.context_request(
        &app.operator(),
        &ContextRequest {
            project,
            query: args.query.clone(),
            files: args.files.as_deref().map(split_list).unwrap_or_default(),
            session,
            budget: args.budget.unwrap_or(app.config.context.budget_tokens),
        },
    )?;
    app.out
        .print(&View::Session(SessionView::Context(&context)))?;
    Ok(Outcome::Done)
}

pub fn sessions(app: &App, args: &SessionsArgs) -> Result<Outcome> {
    if let Some(text) = &args.session {
        let key = session_key(app, text)?;
        let (session, observations) = app.api.session(&app.operator(), &key.agent, &key.id)?;
        app.out.print(&View::Session(SessionView::Session {
            session: &session,
            observations: &observations,
        }))?;
        return Ok(Outcome::Done);
    }
    let project = project_unless_all(app, args.project.as_deref(), args.all_projects)?;
    let sessions = app.api.session_list(
        &app.operator(),
        &SessionFilter {
            project,
            agent: args.agent.clone(),
            id: None,
            limit: args.limit,
            offset: 0,
        },
    )?;
    app.out
        .print(&View::Session(SessionView::Sessions(&sessions)))?;
    if sessions.is_empty()
        && let Some(home) = dirs::home_dir()
    {
        app.out.notice(&crate::setup::hooks_advice(&home));
    }
    Ok(if sessions.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// The most `cairn extract` reads from standard input: an agent's whole message, with room.
const EXTRACT_INPUT_BYTES: u64 = 16 << 20;

pub fn extract(app: &App, args: &ExtractArgs) -> Result<Outcome> {
    let bounded = cairn_core::input::Bounded {
        field: "text",
        limit: EXTRACT_INPUT_BYTES,
        setting: "the most `cairn extract` reads",
    };
    let text = bounded.read_text(&mut std::io::stdin().lock(), "standard input")?;
    let scope = if args.project.global {
        Scope::Global
    } else {
        Scope::Project(app.project(&args.project)?)
    };
    let outcomes = app.api.extract(
        &app.operator(),
        &text,
        scope,
        args.agent.clone(),
        args.session.clone(),
    )?;
    app.out
        .print(&View::Session(SessionView::Extracted(&outcomes)))?;
    Ok(if outcomes.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// The project named or detected, or `None` for every project.
fn project_unless_all(
    app: &App,
    project: Option<&str>,
    all_projects: bool,
) -> Result<Option<ProjectName>> {
    if all_projects {
        return Ok(None);
    }
    let args = ProjectArgs {
        project: project.map(String::from),
        global: false,
    };
    Ok(Some(app.project(&args)?))
}

/// `AGENT/ID`, or a bare id that exactly one agent has a session with.
pub(super) fn session_key(app: &App, text: &str) -> Result<SessionKey> {
    Ok(app.api.session_key(text)?)
}
