//! What is generated from the command line's own definitions (`args.rs`): shell completions
//! (`cairn completions SHELL`, by clap_complete) and the manual page (`cairn man`, by
//! clap_mangen) — so neither can drift from the parser. The page's examples are the README's
//! tour (`tour.sh`, which a test holds equal to the README's block), then each command's own
//! examples from its `--help`.

use std::io::Write;

use anyhow::{Context, Result};
use clap::CommandFactory;
use roff::{Roff, bold, roman};

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::outcome::Outcome;

/// The README's tour: the examples of the manual page.
pub const TOUR: &str = include_str!("../tour.sh");

pub fn completions(args: &CompletionsArgs) -> Result<Outcome> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "cairn", &mut out);
    print(&out)?;
    Ok(Outcome::Done)
}

/// Prints cairn(1), or with `--dir` writes it and one page per command there, naming each file
/// written on stdout.
pub fn man(args: &ManArgs) -> Result<Outcome> {
    let Some(dir) = &args.dir else {
        print(&man_page()?)?;
        return Ok(Outcome::Done);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // A page per command (and per subcommand of those that have them), then cairn(1) itself
    // over the generator's plainer one.
    clap_mangen::generate_to(Cli::command(), dir)
        .with_context(|| format!("writing the manual pages into {}", dir.display()))?;
    let top = dir.join("cairn.1");
    std::fs::write(&top, man_page()?).with_context(|| format!("writing {}", top.display()))?;
    // The pages this binary's commands have (pages an older cairn left there are not named).
    let mut written = Vec::new();
    page_names("cairn", &Cli::command(), &mut written);
    let written: Vec<_> = written
        .into_iter()
        .map(|name| dir.join(format!("{name}.1")))
        .filter(|path| path.exists())
        .collect();
    let list: String = written
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect();
    print(list.as_bytes())?;
    Ok(Outcome::Done)
}

/// The manual page, `cairn(1)`, as roff.
pub fn man_page() -> Result<Vec<u8>> {
    let command = Cli::command();
    let page = clap_mangen::Man::new(command.clone()).manual("cairn manual");
    let mut out = Vec::new();
    page.render_title(&mut out)?;
    // NAME is "cairn - <about>": the about line without its own leading "cairn — ".
    let about = command
        .get_about()
        .map(ToString::to_string)
        .unwrap_or_default();
    let about = about.trim_start_matches("cairn — ").trim_end_matches('.');
    clap_mangen::Man::new(command.clone().about(about.to_string()))
        .render_name_section(&mut out)?;
    page.render_synopsis_section(&mut out)?;
    page.render_description_section(&mut out)?;
    page.render_options_section(&mut out)?;
    page.render_subcommands_section(&mut out)?;

    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]);
    verbatim(&mut roff, TOUR);
    roff.control("SH", ["COMMANDS"]);
    roff.text([roman(
        "Each command's own examples and notes, as `cairn COMMAND --help` shows them.",
    )]);
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let Some(notes) = sub.get_after_help() else {
            continue;
        };
        roff.control("SS", [format!("cairn {}", sub.get_name()).as_str()]);
        if let Some(about) = sub.get_about() {
            roff.text([roman(about.to_string())]);
        }
        verbatim(&mut roff, &notes.to_string());
    }
    roff.control("SH", ["FILES AND EXIT STATUS"]);
    if let Some(notes) = command.get_after_help() {
        let notes = notes.to_string();
        // The examples in the general notes are the tour's first lines: keep what follows them.
        let rest = notes
            .split_once("\n\n")
            .map_or(notes.as_str(), |(_, rest)| rest);
        verbatim(&mut roff, rest);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([
        bold("cairn"),
        roman(" COMMAND --help; the README and ARCHITECTURE.md in cairn's repository."),
    ]);
    roff.to_writer(&mut out)?;
    page.render_version_section(&mut out)?;
    Ok(out)
}

/// The page names of `command` (called `name`) and of every command under it, as
/// clap_mangen names their files (`cairn-slot-append`).
fn page_names(name: &str, command: &clap::Command, names: &mut Vec<String>) {
    names.push(name.to_string());
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        page_names(&format!("{name}-{}", sub.get_name()), sub, names);
    }
}

/// `text` line for line, as written (no filling, no hyphenation).
fn verbatim(roff: &mut Roff, text: &str) {
    roff.control("nf", []);
    for line in text.trim_end().lines() {
        roff.text([roman(line)]);
    }
    roff.control("fi", []);
}

fn print(bytes: &[u8]) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .context("writing to stdout")
}
