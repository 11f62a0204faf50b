//! `cairn get`, `cairn update`, `cairn forget`: one memory at a time, by id or handle.

use anyhow::Result;
use cairn_core::IdRef;
use cairn_core::api::PatchInput;

use crate::app::{App, split_list, text_or_file};
use crate::args::{ForgetArgs, GetArgs, UpdateArgs};
use crate::outcome::Outcome;
use crate::output::View;

pub fn get(app: &App, args: &GetArgs) -> Result<Outcome> {
    let refs = args
        .ids
        .iter()
        .map(|id| IdRef::parse(id))
        .collect::<Result<Vec<_>, _>>()?;
    if args.history {
        let histories = refs
            .iter()
            .map(|r| app.api.history(&app.operator(), r))
            .collect::<Result<Vec<_>, _>>()?;
        app.out.print(&View::Histories(&histories))?;
    } else {
        let operator = app.operator();
        let memories = app.api.memories(&operator, &refs)?;
        let relations = app.api.relations_of(&operator, &memories)?;
        let images = app.api.images_of(&operator, &memories)?;
        app.out.print(&View::Memories {
            memories: &memories,
            relations: &relations,
            images: &images,
        })?;
    }
    Ok(Outcome::Done)
}

pub fn update(app: &App, args: &UpdateArgs) -> Result<Outcome> {
    let content = text_or_file(args.content.as_ref(), args.file.as_ref())?;
    // The same reading of a change ("" clears, `never` removes the expiry) as MCP and HTTP.
    let patch = PatchInput {
        content,
        title: args.title.clone(),
        category: args.category.as_deref().map(str::parse).transpose()?,
        tags: args.tags.as_deref().map(split_list),
        importance: args.importance,
        expires: args.expires.clone(),
        topic_key: args.topic_key.clone(),
    };
    let outcome = app.api.update(&app.operator(), &args.id, patch)?;
    app.out.print(&View::Write(&outcome))?;
    Ok(Outcome::Done)
}

pub fn forget(app: &App, args: &ForgetArgs) -> Result<Outcome> {
    if args.undo {
        let memory = app.api.restore_memory(&app.operator(), &args.id)?;
        app.out.print(&View::Unforgotten(&memory))?;
        return Ok(Outcome::Done);
    }
    let memory = app.api.forget(&app.operator(), &args.id, args.purge)?;
    app.out.print(&View::Forgotten {
        memory: &memory,
        purged: args.purge,
    })?;
    Ok(Outcome::Done)
}
