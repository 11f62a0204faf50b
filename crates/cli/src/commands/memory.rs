//! `cairn get`, `cairn update`, `cairn forget`: one memory at a time, by id or handle.

use anyhow::Result;
use cairn_core::{IdRef, MemoryPatch};

use super::Outcome;
use crate::app::{App, read_content_file, split_list};
use crate::args::{ForgetArgs, GetArgs, UpdateArgs};
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
            .map(|r| app.service.history(r))
            .collect::<Result<Vec<_>, _>>()?;
        app.out.print(&View::Histories(&histories))?;
    } else {
        let memories = app.service.get(&refs)?;
        app.out.print(&View::Memories(&memories))?;
    }
    Ok(Outcome::Done)
}

/// `""` clears an optional text field.
fn clearable(value: &Option<String>) -> Option<Option<String>> {
    value
        .as_ref()
        .map(|v| Some(v.clone()).filter(|v| !v.trim().is_empty()))
}

pub fn update(app: &App, args: &UpdateArgs) -> Result<Outcome> {
    let target = IdRef::parse(&args.id)?;
    let content = match &args.file {
        Some(path) => Some(read_content_file(path)?),
        None => args.content.clone(),
    };
    let expires_at = match args.expires.as_deref().map(str::trim) {
        None => None,
        Some(never) if never.eq_ignore_ascii_case("never") => Some(None),
        Some(when) => Some(Some(app.time("expires", when)?)),
    };
    let tags = args.tags.as_deref().map(split_list);
    let patch = MemoryPatch {
        content,
        title: clearable(&args.title),
        category: args.category.as_deref().map(str::parse).transpose()?,
        tags,
        importance: args.importance,
        expires_at,
        topic_key: clearable(&args.topic_key),
    };
    let outcome = app.service.update(&target, patch)?;
    app.out.print(&View::Write(&outcome))?;
    super::model::embed_pending(app)?;
    Ok(Outcome::Done)
}

pub fn forget(app: &App, args: &ForgetArgs) -> Result<Outcome> {
    let target = IdRef::parse(&args.id)?;
    let memory = if args.purge {
        app.service.purge(&target)?
    } else {
        app.service.forget(&target)?
    };
    app.out.print(&View::Forgotten {
        memory: &memory,
        purged: args.purge,
    })?;
    Ok(Outcome::Done)
}
