//! `cairn export`, `cairn import` (JSON Lines, streamed), `cairn backup` and `cairn restore`
//! (the database's bytes).
//!
//! Export to a file writes a temporary file beside it and renames it into place at the end, so
//! an interrupted export never leaves a truncated file under the real name. Import runs in one
//! transaction (see core's `exchange`): a bad record changes nothing. Restore asks first; the
//! store backs up what it replaces, beside it, so a restore can be undone.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, Result};
use cairn_core::exchange::{Counts, ExportOptions};
use indicatif::{ProgressBar, ProgressStyle};

use crate::app::App;
use crate::args::{BackupArgs, ExportArgs, ImportArgs, RestoreArgs};
use crate::outcome::Outcome;
use crate::output::{Format, View, text};

fn write_records(app: &App, args: &ExportArgs, out: &mut dyn Write) -> Result<Counts> {
    let options = ExportOptions {
        sessions: args.sessions,
    };
    let counts = app.api.export(&app.operator(), options, &mut |line| {
        Ok(out.write_all(line)?)
    })?;
    out.flush()?;
    images_left_out(app)?;
    Ok(counts)
}

/// Exports do not carry images yet: say so, and where they stay, when the store has some.
fn images_left_out(app: &App) -> Result<()> {
    let (totals, dir) = app.api.image_totals()?;
    if totals.images > 0 {
        let place = dir.map_or_else(String::new, |d| format!(" in {}", d.display()));
        app.out.notice(&format!(
            "note: the export leaves out the {} image{} memories show ({}); they stay{place}",
            totals.images,
            if totals.images == 1 { "" } else { "s" },
            text::bytes(totals.bytes)
        ));
    }
    Ok(())
}

pub fn export(app: &App, args: &ExportArgs) -> Result<Outcome> {
    if args.file == Path::new("-") {
        let mut out = BufWriter::new(io::stdout().lock());
        let counts = write_records(app, args, &mut out)?;
        app.out.notice(&text::exported(&counts));
        return Ok(Outcome::Done);
    }
    let target = std::path::absolute(&args.file)?;
    let temporary = target.with_file_name(format!(
        ".{}.{}.partial",
        target
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let written = (|| -> Result<Counts> {
        let file = File::create(&temporary)
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        let mut out = BufWriter::new(file);
        let counts = write_records(app, args, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temporary, &target)
            .with_context(|| format!("cannot move the export to {}", target.display()))?;
        Ok(counts)
    })();
    let counts = written.inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })?;
    let to = target.display().to_string();
    if app.out.format() == Format::Text {
        app.out
            .notice(&format!("{} to {to}", text::exported(&counts)));
    } else {
        app.out.print(&View::Exported {
            counts: &counts,
            to: &to,
        })?;
    }
    Ok(Outcome::Done)
}

pub fn import(app: &App, args: &ImportArgs) -> Result<Outcome> {
    let Some(path) = &args.file else {
        anyhow::bail!("import reads a FILE (or - for standard input), or --agent's history");
    };
    let mut input: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(BufReader::new(io::stdin().lock()))
    } else {
        let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Box::new(BufReader::with_capacity(1 << 16, file))
    };
    let bar = if io::stderr().is_terminal() {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} importing: {msg} ({elapsed})")
                .expect("valid template"),
        );
        // Ticking on its own: after the last record the commit can take a while (a bulk import
        // builds the store's deferred indexes then), and a frozen clock looks like a hang.
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Some(bar)
    } else {
        None
    };
    let caller = app.caller(&args.project, false)?;
    let report = app.api.import(&caller, &mut input, &mut |progress| {
        if let Some(bar) = &bar {
            bar.set_message(format!("{} records", progress.records));
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    app.out.print(&View::Imported(&report?))?;
    Ok(Outcome::Done)
}

pub fn backup(app: &App, args: &BackupArgs) -> Result<Outcome> {
    let file = std::path::absolute(&args.file)?;
    app.api.backup(&file)?;
    let file = file.display().to_string();
    app.out.print(&View::BackedUp { file: &file })?;
    Ok(Outcome::Done)
}

pub fn restore(app: &App, args: &RestoreArgs) -> Result<Outcome> {
    let from = std::path::absolute(&args.file)?;
    let database = app.config.database_path()?;
    let question = format!(
        "Replace everything in {} with {}? (what it holds now is saved beside it first)",
        database.display(),
        from.display()
    );
    if !super::confirmed(
        app,
        args.force,
        &question,
        "restore replaces the whole store",
        "nothing restored",
    )? {
        return Ok(Outcome::Done);
    }
    let previous = app.api.restore(&from)?;
    let previous = previous.map(|path| path.display().to_string());
    app.out.print(&View::Restored {
        from: &from.display().to_string(),
        previous: previous.as_deref(),
    })?;
    Ok(Outcome::Done)
}
