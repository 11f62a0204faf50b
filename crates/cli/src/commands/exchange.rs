//! `cairn export` and `cairn import`: JSON Lines, streamed.
//!
//! Export to a file writes a temporary file beside it and renames it into place at the end, so
//! an interrupted export never leaves a truncated file under the real name. Import runs in one
//! transaction (see the service): a bad line changes nothing.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::Outcome;
use crate::app::App;
use crate::args::{ExportArgs, ImportArgs};
use crate::output::{Format, View};

fn write_records(app: &App, out: &mut dyn Write) -> Result<u64> {
    let count = app.api.export(&mut |record| {
        serde_json::to_writer(&mut *out, record).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    out.flush()?;
    Ok(count)
}

pub fn export(app: &App, args: &ExportArgs) -> Result<Outcome> {
    if args.file == Path::new("-") {
        let mut out = BufWriter::new(io::stdout().lock());
        let count = write_records(app, &mut out)?;
        app.out.notice(&format!("exported {count} memories"));
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
    let written = (|| -> Result<u64> {
        let file = File::create(&temporary)
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        let mut out = BufWriter::new(file);
        let count = write_records(app, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temporary, &target)
            .with_context(|| format!("cannot move the export to {}", target.display()))?;
        Ok(count)
    })();
    let count = written.inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })?;
    let to = target.display().to_string();
    if app.out.format() == Format::Text {
        app.out
            .notice(&format!("exported {count} memories to {to}"));
    } else {
        app.out.print(&View::Exported { count, to: &to })?;
    }
    Ok(Outcome::Done)
}

pub fn import(app: &App, args: &ImportArgs) -> Result<Outcome> {
    let mut input: Box<dyn BufRead> = if args.file == Path::new("-") {
        Box::new(BufReader::new(io::stdin().lock()))
    } else {
        let file = File::open(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
        Box::new(BufReader::with_capacity(1 << 16, file))
    };
    let bar = if io::stderr().is_terminal() {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} importing: {msg} ({elapsed})")
                .expect("valid template"),
        );
        Some(bar)
    } else {
        None
    };
    let report = app.api.import_with_progress(&mut input, &mut |progress| {
        if let Some(bar) = &bar {
            bar.set_message(format!("{} records", progress.records));
            bar.tick();
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    app.out.print(&View::Imported(&report?))?;
    Ok(Outcome::Done)
}
