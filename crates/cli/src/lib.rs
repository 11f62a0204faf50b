//! `cairn`: the command line, as a library the binary runs (and the fuzz targets reach).
//!
//! Parses arguments, sets up logging to stderr, runs one command against the local store and
//! maps the result to an exit status: 0 ok, 1 a search found nothing (or `cairn doctor` found
//! something), 2 error. A closed output pipe (`cairn list | head -1`) ends quietly with 0. All
//! behaviour is in `cairn-core`; this crate only translates between the terminal and the
//! service.

mod app;
pub mod args;
mod background;
mod commands;
mod history;
pub mod hook;
mod outcome;
mod output;
mod setup;
mod summarizer;

use std::process::ExitCode;

use crate::args::Cli;
use crate::outcome::Outcome;

/// The guide printed by `--agent-context`.
const AGENT_CONTEXT: &str = include_str!("agent_context.md");

/// The whole program: what `main` runs.
pub fn run() -> ExitCode {
    let cli = Cli::from_args();
    init_logging(cli.verbose);
    let result = if cli.agent_context {
        print_stdout(AGENT_CONTEXT).map(|_| Outcome::Done)
    } else if let Some(command) = &cli.command {
        commands::run(&cli, command)
    } else {
        use clap::CommandFactory;
        Cli::command()
            .print_help()
            .map(|_| Outcome::Done)
            .map_err(Into::into)
    };
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::NothingFound | Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Refused) => ExitCode::from(2),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            report(&error);
            ExitCode::from(2)
        }
    }
}

fn print_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn init_logging(verbose: bool) {
    let level = if verbose {
        tracing::Level::DEBUG
    } else {
        tracing::Level::WARN
    };
    // Colour only for a person at a terminal: a hook's log, a pipe or a file gets plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_target(false)
        .with_ansi(colour)
        .init();
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints the error, each cause that adds something new, and what to run about it.
fn report(error: &anyhow::Error) {
    let mut shown = error.to_string();
    eprintln!("error: {shown}");
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !shown.contains(&text) {
            eprintln!("  caused by: {text}");
            shown.push_str(&text);
        }
    }
    if let Some(hint) = commands::hint(error) {
        eprintln!("hint: {hint}");
    }
}
