//! `cairn audit`: the log of changes, newest first (see `cairn_core::audit`).

use anyhow::Result;
use cairn_core::api::AuditInput;

use crate::app::App;
use crate::args::AuditArgs;
use crate::outcome::Outcome;
use crate::output::View;

pub fn run(app: &App, args: &AuditArgs) -> Result<Outcome> {
    let input = AuditInput {
        limit: Some(args.limit),
        action: args.action.clone(),
        project: args.project.clone(),
        token: args.token.clone(),
        target: args.target.clone(),
        since: args.since.clone(),
    };
    let entries = app.api.audit(&app.operator(), input)?;
    app.out.print(&View::Audit(&entries))?;
    Ok(if entries.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}
