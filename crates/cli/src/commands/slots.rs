//! `cairn slot …`: memory slots, through the same input types and [`Api`](cairn_core::api::Api) calls as the MCP
//! tools and the REST routes, so every refusal reads the same everywhere.

use anyhow::{Result, bail};
use cairn_core::api::{
    Caller, SlotCreateInput, SlotProjectInput, SlotSettingsInput, SlotTarget, SlotTextInput,
};
use cairn_core::slot::SlotScope;

use super::sessions::session_key;
use crate::app::{App, text_or_file};
use crate::args::{ProjectArgs, SlotArgs, SlotCommand, SlotTextArgs};
use crate::outcome::Outcome;
use crate::output::{SlotView, View};

pub fn run(app: &App, command: &SlotCommand) -> Result<Outcome> {
    let api = &app.api;
    match command {
        SlotCommand::List(args) => {
            let slots = api.slots(
                &caller(app, args.project.as_deref())?,
                &SlotProjectInput::default(),
            )?;
            app.out.print(&View::Slot(SlotView::Slots(&slots)))?;
        }
        SlotCommand::Get(args) => {
            let slot = api.slot(&slot_caller(app, args)?, &args.label, &target(args))?;
            app.out.print(&View::Slot(SlotView::Slot {
                status: None,
                slot: &slot,
            }))?;
        }
        SlotCommand::Create(args) => {
            let slot_args = &args.text.slot;
            let input = SlotCreateInput {
                label: slot_args.label.clone(),
                content: text(&args.text)?.unwrap_or_default(),
                description: args.description.clone(),
                limit: args.limit,
                pinned: args.pinned,
                read_only: args.read_only,
                scope: target(slot_args).scope,
                project: None,
            };
            let slot = api.create_slot(&slot_caller(app, slot_args)?, input)?;
            app.out.print(&View::Slot(SlotView::Slot {
                status: Some("created"),
                slot: &slot,
            }))?;
        }
        SlotCommand::Append(args) | SlotCommand::Replace(args) => {
            let Some(content) = text(args)? else {
                bail!(cairn_core::Error::invalid(
                    "content",
                    "is missing; give the text, or --file PATH (- for standard input)"
                ));
            };
            let input = SlotTextInput {
                content,
                scope: target(&args.slot).scope,
                project: None,
            };
            let caller = slot_caller(app, &args.slot)?;
            let (slot, status) = match command {
                SlotCommand::Append(_) => (
                    api.append_slot(&caller, &args.slot.label, &input)?,
                    "appended",
                ),
                _ => (
                    api.replace_slot(&caller, &args.slot.label, &input)?,
                    "replaced",
                ),
            };
            app.out.print(&View::Slot(SlotView::Slot {
                status: Some(status),
                slot: &slot,
            }))?;
        }
        SlotCommand::Set(args) => {
            let input = SlotSettingsInput {
                description: args.description.clone(),
                limit: args.limit,
                pinned: args.pinned,
                read_only: args.read_only,
                target: target(&args.slot),
            };
            let slot =
                api.configure_slot(&slot_caller(app, &args.slot)?, &args.slot.label, &input)?;
            app.out.print(&View::Slot(SlotView::Slot {
                status: Some("configured"),
                slot: &slot,
            }))?;
        }
        SlotCommand::Delete(args) => {
            let slot = api.delete_slot(&slot_caller(app, args)?, &args.label, &target(args))?;
            app.out.print(&View::Slot(SlotView::Slot {
                status: Some("deleted"),
                slot: &slot,
            }))?;
        }
        SlotCommand::Reset(args) => {
            let caller = caller(app, args.project.as_deref())?;
            let slots =
                api.reset_slots(&caller, args.label.as_deref(), &SlotProjectInput::default())?;
            app.out.print(&View::Slot(SlotView::SlotsReset(&slots)))?;
        }
        SlotCommand::Reflect(args) => {
            let reflection = match &args.session {
                Some(text) => {
                    let key = session_key(app, text)?;
                    api.reflect(&app.operator(), &key.agent, &key.id)?
                }
                None => api.reflect_latest(&app.project(&ProjectArgs {
                    project: args.project.clone(),
                    global: false,
                })?)?,
            };
            app.out
                .print(&View::Slot(SlotView::Reflection(&reflection)))?;
        }
    }
    Ok(Outcome::Done)
}

/// The caller: in the named project, else the configured or detected one.
fn caller(app: &App, project: Option<&str>) -> Result<Caller> {
    let project = app.project(&ProjectArgs {
        project: project.map(String::from),
        global: false,
    })?;
    Ok(Caller {
        default_project: Some(project),
        ..app.operator()
    })
}

fn slot_caller(app: &App, args: &SlotArgs) -> Result<Caller> {
    caller(app, args.project.as_deref())
}

fn target(args: &SlotArgs) -> SlotTarget {
    SlotTarget {
        scope: args.global.then_some(SlotScope::Global),
        project: None,
    }
}

/// The text given as an argument or read from --file.
fn text(args: &SlotTextArgs) -> Result<Option<String>> {
    text_or_file(args.text.as_ref(), args.file.as_ref())
}
