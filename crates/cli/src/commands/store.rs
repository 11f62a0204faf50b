//! `cairn store`: remember something.

use anyhow::{Result, bail};
use cairn_core::{NewMemory, Source};

use super::Outcome;
use crate::app::{App, read_content_file, split_list};
use crate::args::StoreArgs;
use crate::output::View;

pub fn run(app: &App, args: &StoreArgs) -> Result<Outcome> {
    let content = match (&args.content, &args.file) {
        (Some(text), None) => text.clone(),
        (None, Some(path)) => read_content_file(path)?,
        _ => bail!(cairn_core::Error::invalid(
            "content",
            "give the text to remember as an argument, or with --file PATH (--file - reads standard input)"
        )),
    };
    let new = NewMemory {
        content,
        title: args.title.clone(),
        category: args.category.parse()?,
        tags: args.tags.as_deref().map(split_list).unwrap_or_default(),
        scope: app.write_scope(&args.project)?,
        topic_key: args.topic_key.clone(),
        entered_by: args.entered_by.clone(),
        session_id: None,
        source: Source::Cli,
        importance: args.importance,
        expires_at: args
            .expires
            .as_deref()
            .map(|t| app.time("expires", t))
            .transpose()?,
    };
    let outcome = app.service.store(new)?;
    app.out.print(&View::Write(&outcome))?;
    super::model::embed_pending(app)?;
    Ok(Outcome::Done)
}
