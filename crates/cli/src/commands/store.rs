//! `cairn store`: remember something.

use anyhow::{Result, bail};
use cairn_core::api::StoreInput;

use super::Outcome;
use crate::app::{App, split_list, text_or_file};
use crate::args::StoreArgs;
use crate::output::View;

pub fn run(app: &App, args: &StoreArgs) -> Result<Outcome> {
    let Some(content) = text_or_file(args.content.as_ref(), args.file.as_ref())? else {
        bail!(cairn_core::Error::invalid(
            "content",
            "give the text to remember as an argument, or with --file PATH (--file - reads standard input)"
        ));
    };
    // The same reading of a new memory as MCP and HTTP; the project is the detected one.
    let input = StoreInput {
        content,
        title: args.title.clone(),
        category: Some(args.category.parse()?),
        tags: args.tags.as_deref().map(split_list).unwrap_or_default(),
        project: args.project.project.clone(),
        global: args.project.global,
        topic_key: args.topic_key.clone(),
        importance: args.importance,
        expires: args.expires.clone(),
        entered_by: args.entered_by.clone(),
    };
    let outcome = app.api.store(&app.caller(&args.project, false)?, input)?;
    app.out.print(&View::Write(&outcome))?;
    Ok(Outcome::Done)
}
