//! One module per command group. Each parses its arguments into service requests, calls the
//! service, and prints a [`View`](crate::output::View) — no rules of its own.

mod audit;
mod conflicts;
mod doctor;
mod exchange;
mod files;
mod history;
mod list;
mod mcp;
mod memory;
mod migrate;
mod model;
mod prune;
mod reference;
mod search;
mod serve;
mod sessions;
mod slots;
mod stats;
mod store;
mod tokens;
mod vision;

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Result, bail};

use crate::app::{App, HOW_TO_ENABLE};
use crate::args::{Cli, Command};
use crate::outcome::Outcome;

/// What to run about an error, when the command line has an answer that core's message, shared
/// with MCP and HTTP callers, cannot name.
pub fn hint(error: &anyhow::Error) -> Option<String> {
    let error = error.downcast_ref::<cairn_core::Error>()?;
    // The slot's label, as core's refusals quote it, and whether it is the global one.
    let slot = |message: &str| {
        let label = message.split('\'').nth(1)?.to_string();
        let global = if message.contains("(global)") {
            " --global"
        } else {
            ""
        };
        Some((label, global))
    };
    match error {
        cairn_core::Error::Unavailable { .. } => Some(HOW_TO_ENABLE.into()),
        cairn_core::Error::ReadOnly { field, message }
            if field == "id" && !message.contains("a file agents follow") =>
        {
            Some("edit the markdown file, then `cairn files sync`".into())
        }
        cairn_core::Error::Invalid { field, message }
            if field == "project" && message.contains("keeps no markdown files") =>
        {
            Some("`cairn files init` in the project starts its files".into())
        }
        cairn_core::Error::ReadOnly { message, .. } => {
            let (label, global) = slot(message)?;
            Some(format!(
                "`cairn slot set {label}{global} --read-only false` unlocks it"
            ))
        }
        cairn_core::Error::Missing { field, message } if field == "label" => {
            let (label, global) = slot(message)?;
            if message.contains("resetting it brings it back") {
                Some(format!("`cairn slot reset {label}{global}` brings it back"))
            } else {
                Some("`cairn slot list` shows the labels".into())
            }
        }
        cairn_core::Error::Missing { field, .. } if field == "session" => {
            Some("`cairn sessions` lists the recorded sessions".into())
        }
        cairn_core::Error::Missing { field, .. } if field == "judgment_id" => {
            Some("`cairn conflicts list --status pending` shows the open judgments".into())
        }
        _ => None,
    }
}

pub fn run(cli: &Cli, command: &Command) -> Result<Outcome> {
    // Hooks open the store their own way (no model, short lock waits); setup needs no store.
    match command {
        Command::Hook(args) => return crate::hook::run(cli, args),
        Command::Setup(args) => return crate::setup::run(cli, args),
        // Generated from the parser's own definitions: no store.
        Command::Completions(args) => return reference::completions(args),
        Command::Man(args) => return reference::man(args),
        // Opens the stores it names itself.
        Command::MigrateStore(args) => return migrate::run(cli, args),
        _ => {}
    }
    if let Command::Model(model_command) = command
        && let Some(outcome) = model::run_without_store(cli, model_command)?
    {
        return Ok(outcome);
    }
    let serving = matches!(command, Command::Serve(_) | Command::Mcp(_));
    let app = match (App::open(cli, serving), command) {
        (Ok(app), _) => app,
        // The doctor says what it can of a store that will not open.
        (Err(error), Command::Doctor(args)) => return doctor::unopened(cli, args, error),
        (Err(error), _) => return Err(error),
    };
    let outcome = match command {
        Command::Store(args) => store::run(&app, args),
        Command::Get(args) => memory::get(&app, args),
        Command::Update(args) => memory::update(&app, args),
        Command::Forget(args) => memory::forget(&app, args),
        Command::List(args) => list::list(&app, args),
        Command::Tags(args) => list::tags(&app, args),
        Command::Search(args) => search::run(&app, args),
        Command::Prune(args) => prune::run(&app, args),
        Command::Stats(args) => stats::run(&app, args),
        Command::Export(args) => exchange::export(&app, args),
        Command::Import(args) if args.agent.is_some() => history::import(&app, args),
        Command::Import(args) => exchange::import(&app, args),
        Command::Backup(args) => exchange::backup(&app, args),
        Command::Restore(args) => exchange::restore(&app, args),
        Command::Model(_) => model::status(&app),
        Command::Reindex(args) => model::reindex(&app, args),
        Command::Mcp(args) => mcp::run(&app, args),
        Command::Serve(args) => serve::run(&app, args),
        Command::Context(args) => sessions::context(&app, args),
        Command::Sessions(args) => sessions::sessions(&app, args),
        Command::Extract(args) => sessions::extract(&app, args),
        Command::Slot(command) => slots::run(&app, command),
        Command::Conflicts(command) => conflicts::run(&app, command),
        Command::Files(command) => files::run(&app, command),
        Command::Vision(command) => vision::run(&app, command),
        Command::Add(args) => files::add(&app, args),
        Command::Token(command) => tokens::run(&app, command),
        Command::Audit(args) => audit::run(&app, args),
        Command::Doctor(args) => doctor::run(&app, args),
        Command::Hook(_)
        | Command::Setup(_)
        | Command::MigrateStore(_)
        | Command::Completions(_)
        | Command::Man(_) => {
            unreachable!("handled before the store opens")
        }
    }?;
    // What the command wrote gets its images read and its embedding before the process ends
    // (an image's text first: it is embedded with its memory). The command's own work is done
    // and stays done: what fails here waits for the next run, and the command still succeeds.
    if let Err(error) = model::read_written_images(&app) {
        app.out.notice(&format!(
            "stored, but its images are not read yet ({error:#}); cairn reindex --images reads them"
        ));
    }
    if let Err(error) = model::embed_written(&app) {
        app.out.notice(&format!(
            "stored, but not embedded yet ({error:#}); the next command that embeds (or cairn \
             reindex --embeddings) does it, and keyword search finds it meanwhile"
        ));
    }
    // A search found the vector index damaged: rebuilt in the background, not on the way out.
    if !serving
        && app.api.vector_index_damage().is_some()
        && let Ok(db) = app.config.database_path()
    {
        crate::background::reindex(&db, &["--vector-index"], "rebuilding the vector index");
    }
    Ok(outcome)
}

/// True when a person at a terminal can answer a question.
fn interactive() -> bool {
    std::io::stdin().is_terminal()
}

/// Whether a destructive command may go ahead: `force`, or a person answering yes to
/// `question` (told `declined` otherwise). Without a terminal to ask at, the command stops and
/// says to pass `--force`; `what` says why it asks.
fn confirmed(app: &App, force: bool, question: &str, what: &str, declined: &str) -> Result<bool> {
    if force {
        return Ok(true);
    }
    if !interactive() {
        bail!(
            "{what} and needs confirmation: pass --force (or --dry-run, where there is one, to see what it would do)"
        );
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let yes = matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    if !yes {
        app.out.notice(declined);
    }
    Ok(yes)
}
