//! `cairn migrate-store`: moves everything one store holds into another (core's
//! `exchange::migrate`), with progress on a terminal, and fails when the final check finds a
//! difference.

use anyhow::{Result, bail};
use cairn_core::api::{Api, Caller};
use cairn_core::config::Config;
use cairn_core::store::Store;
use cairn_core::{ApiParts, Source};

use crate::app::{load_config, open_store};
use crate::args::{Cli, MigrateStoreArgs};
use crate::outcome::Outcome;
use crate::output::progress::bar;
use crate::output::{Printer, View};

pub fn run(cli: &Cli, args: &MigrateStoreArgs) -> Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let config = load_config(cli, &cwd)?;
    let source = match &args.from {
        Some(spec) => open_named(&config, spec, "from")?,
        None => open_store(&config, Ok)?,
    };
    let target = open_named(&config, &args.to, "to")?;
    let api = Api::open(ApiParts::new(source), &config);
    let out = Printer::new(cli.format, cli.quiet, api.now().time_zone().clone());
    let progress = bar(&out);
    let report = api.migrate_store(&Caller::local(Source::Cli), target.as_ref(), &mut |p| {
        progress.set_message(p.stage.as_str());
        progress.set_length(p.total);
        progress.set_position(p.done);
    });
    progress.finish_and_clear();
    let report = report?;
    out.print(&View::Migrated(&report))?;
    if !report.verified() {
        let differing: Vec<&str> = report
            .check
            .iter()
            .filter(|kind| !kind.same)
            .map(|kind| kind.kind.as_str())
            .collect();
        bail!(
            "the stores differ after the move ({}): the target held something of its own, or \
             the source changed while it moved; move into an empty store with writers stopped",
            differing.join(", ")
        );
    }
    Ok(Outcome::Done)
}

/// The store `spec` names: `postgres://…`, or `sqlite:PATH` / a path. The source (`from`) must
/// exist: a mistyped path would otherwise move an empty new file.
fn open_named(config: &Config, spec: &str, field: &str) -> Result<Box<dyn Store>> {
    let mut config = config.clone();
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        config.store.url = Some(spec.to_string());
    } else {
        let path = std::path::absolute(spec.strip_prefix("sqlite:").unwrap_or(spec))?;
        if field == "from" && !path.exists() {
            return Err(cairn_core::Error::invalid(
                field,
                format!(
                    "{} does not exist; name the SQLite file to move",
                    path.display()
                ),
            )
            .into());
        }
        config.store.url = None;
        config.store.path = Some(path);
    }
    open_store(&config, Ok)
}
