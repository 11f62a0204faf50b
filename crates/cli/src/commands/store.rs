//! `cairn store`: remember something.

use anyhow::{Result, bail};
use cairn_core::api::StoreInput;

use crate::app::{App, split_list, text_or_file};
use crate::args::StoreArgs;
use crate::outcome::Outcome;
use crate::output::View;

pub fn run(app: &App, args: &StoreArgs) -> Result<Outcome> {
    let content = text_or_file(args.content.as_ref(), args.file.as_ref())?;
    let Some(content) = content.or_else(|| args.image.as_ref().map(|_| String::new())) else {
        bail!(cairn_core::Error::invalid(
            "content",
            "give the text to remember as an argument, or with --file PATH (--file - reads standard input), or an image with --image PATH"
        ));
    };
    // The same reading of a new memory as MCP and HTTP; the project is the detected one.
    let input = StoreInput {
        content,
        image: None,
        title: args.title.clone(),
        category: args.category.as_deref().map(str::parse).transpose()?,
        tags: args.tags.as_deref().map(split_list).unwrap_or_default(),
        project: args.project.project.clone(),
        global: args.project.global,
        topic_key: args.topic_key.clone(),
        importance: args.importance,
        expires: args.expires.clone(),
        entered_by: args.entered_by.clone(),
    };
    let caller = app.caller(&args.project, false)?;
    let outcome = match &args.image {
        Some(file) => app.api.store_with_image_file(&caller, input, file)?,
        None => app.api.store(&caller, input)?,
    };
    app.out.print(&View::Write(&outcome))?;
    Ok(Outcome::Done)
}
