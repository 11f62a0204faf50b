//! What every command needs: the layered config, the service over the store, the current
//! project, and the printer. Built once per process.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use cairn_core::access::Access;
use cairn_core::api::{Api, Caller, FilterInput};
use cairn_core::config::{Config, ConfigSources};
use cairn_core::image::ImageDir;
use cairn_core::input::{Bounded, MAX_TEXT_INPUT_BYTES};
use cairn_core::memory::MemoryFilter;
use cairn_core::project::detect_project;
use cairn_core::store::Store;
use cairn_core::{ApiParts, ProjectName, Source, dates};
use cairn_embed::clip::{locate_clip, open_clip_model};
use cairn_embed::look::{LookNetwork, locate_look};
use cairn_embed::ocr::{OcrReader, locate_ocr};
use cairn_embed::{DEFAULT_MODEL, LazyEmbedder};
use cairn_store_postgres::PostgresStore;
use cairn_store_sqlite::{SqliteError, SqliteStore};
use jiff::Timestamp;

use crate::args::{Cli, FilterArgs, ProjectArgs};
use crate::hook::spool::Spool;
use crate::output::Printer;
use crate::summarizer::summarizer_part;

pub struct App {
    pub config: Config,
    /// The one way into cairn's behaviour, as for MCP and HTTP.
    pub api: Api,
    pub out: Printer,
    cwd: PathBuf,
}

impl App {
    /// Opens the store. A process that is `serving` (`cairn serve`, `cairn mcp`) answers many
    /// requests at once: it gets a read connection per core beside the writer and a background
    /// worker (images read, text embedded); a one-shot command gets neither and does that work
    /// for what it wrote at the end.
    pub fn open(cli: &Cli, serving: bool) -> Result<Self> {
        let readers = match serving {
            true => std::thread::available_parallelism()
                .map_or(2, usize::from)
                .clamp(2, 8),
            false => 0,
        };
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let config = load_config(cli, &cwd)?;
        let path = config.database_path()?;
        let store = open_store(&config, |sqlite| sqlite.with_read_connections(readers))?;
        let mut parts = ApiParts::new(store);
        parts.images = Some(ImageDir::new(config.images_dir()?));
        if config.embedding.enabled
            && let Some(location) =
                cairn_embed::locate(config.embedding.model_dir.as_deref(), DEFAULT_MODEL)?
        {
            tracing::debug!(model = %location.dir.display(), "embedding model found");
            parts.embedder = Some(Arc::new(LazyEmbedder::new(&location.dir, DEFAULT_MODEL)?));
        }
        if config.images.ocr
            && let Some(dir) = locate_ocr(config.images.ocr_dir.as_deref())?
        {
            tracing::debug!(ocr = %dir.display(), "OCR model found");
            parts.reader = Some(Arc::new(OcrReader::new(&dir)));
        }
        if config.images.look
            && let Some(dir) = locate_look(config.images.look_dir.as_deref())?
        {
            tracing::debug!(look = %dir.display(), "look model found");
            parts.look_model = Some(Arc::new(LookNetwork::new(&dir)));
        }
        if config.images.clip
            && let Some((dir, name)) = locate_clip(config.images.clip_dir.as_deref())?
        {
            tracing::debug!(clip = %dir.display(), "CLIP model found");
            parts.clip_model = Some(open_clip_model(&dir, &name));
        }
        parts.summarizer = summarizer_part(&config.summarizer);
        let api = match serving {
            true => Api::open(parts, &config).serving(),
            false => Api::open(parts, &config),
        };
        let out = Printer::new(cli.format, cli.quiet, api.now().time_zone().clone());
        // Hook events that found the store busy wait in the spool: record them first.
        let spool = Spool::beside(&path);
        if !spool.is_empty()
            && let Err(error) = spool.drain(&api)
        {
            tracing::warn!(%error, "spooled hook events could not be recorded yet");
        }
        let app = App {
            config,
            api,
            out,
            cwd,
        };
        app.start_files_workspace();
        Ok(app)
    }

    /// The project's root: the repository around the current directory, else the directory.
    pub fn project_root(&self) -> PathBuf {
        cairn_core::project::project_root(&self.cwd)
    }

    /// `files.enabled` (a project's `.cairn.toml`): the project's workspace starts the first
    /// time a command runs in it. A failure is a warning: the command itself goes on.
    fn start_files_workspace(&self) {
        let started = self
            .caller(&ProjectArgs::default(), false)
            .and_then(|caller| {
                Ok(self
                    .api
                    .start_files_if_enabled(&caller, &self.project_root())?)
            });
        if let Err(error) = started {
            tracing::warn!(%error, "files.enabled: the project's memory files could not be started");
        }
    }

    /// The project this command acts in: --project, else config (CAIRN_PROJECT, .cairn.toml),
    /// else detected from git or the directory.
    pub fn project(&self, args: &ProjectArgs) -> Result<ProjectName> {
        if let Some(name) = args.project.as_deref().or(self.config.project.as_deref()) {
            return Ok(ProjectName::new(name)?);
        }
        let (name, origin) = detect_project(&self.cwd);
        tracing::debug!(project = %name, ?origin, "detected project");
        Ok(name)
    }

    /// Who the CLI is to the shared `api` conversions: the detected project is the default,
    /// unless the command names its scope itself.
    pub fn caller(&self, args: &ProjectArgs, names_scope: bool) -> Result<Caller> {
        Ok(Caller {
            access: Access::Full,
            default_project: if names_scope || args.global || args.project.is_some() {
                None
            } else {
                Some(self.project(args)?)
            },
            source: Source::Cli,
            agent: None,
        })
    }

    /// The local user for a call that names what it acts on (an id, a built request): full
    /// access, no default project.
    pub fn operator(&self) -> Caller {
        Caller::local(Source::Cli)
    }

    /// Says, once per store, that search is by keyword only and how to add meaning. Remembered
    /// by a marker file beside the database.
    pub fn semantic_off_notice(&self) {
        let Ok(db) = self.config.database_path() else {
            return;
        };
        let marker = db.with_extension("semantic-notice-shown");
        if marker.exists() {
            return;
        }
        self.out.notice(&format!(
            "note: searching by keyword and near-spelling only; {}",
            HOW_TO_ENABLE
        ));
        let _ = std::fs::write(&marker, b"");
    }

    /// Resolves a date flag against the service's clock.
    pub fn time(&self, field: &str, text: &str) -> Result<Timestamp> {
        Ok(dates::parse_time(field, text, &self.api.now())?)
    }

    /// The filter of a read: the same conversion MCP and HTTP use, with the detected project as
    /// the default.
    pub fn filter(&self, args: &FilterArgs) -> Result<MemoryFilter> {
        let caller = self.caller(&args.project, args.all_projects)?;
        Ok(self.api.filter(&caller, self.filter_input(args)?)?)
    }

    /// The filter flags as the shared input type, not yet resolved.
    pub fn filter_input(&self, args: &FilterArgs) -> Result<FilterInput> {
        Ok(FilterInput {
            project: args.project.project.clone(),
            all_projects: args.all_projects,
            global: args.project.global,
            tags: args.tags.as_deref().map(split_list).unwrap_or_default(),
            any_tags: args.any_tag.as_deref().map(split_list).unwrap_or_default(),
            category: args.category.as_deref().map(str::parse).transpose()?,
            entered_by: args.entered_by.clone(),
            session: None,
            after: args.after.clone(),
            before: args.before.clone(),
            include_expired: args.include_expired,
            include_forgotten: args.include_forgotten,
        })
    }
}

/// What the command line says when there is no model: how to get one.
pub const HOW_TO_ENABLE: &str = "no embedding model is installed; run `cairn model install` (about 90 MB, once) to search \
     by meaning";

/// The layered config as seen from `cwd`, with `--db` applied.
pub fn load_config(cli: &Cli, cwd: &Path) -> Result<Config> {
    let mut config = Config::load(&ConfigSources::discover(cwd))?;
    if let Some(db) = &cli.db {
        config.store.path = Some(std::path::absolute(db).unwrap_or_else(|_| db.clone()));
        // A file named on the command line is the store, whatever the environment says.
        config.store.url = None;
    }
    if let Some(url) = &cli.store {
        config.store.url = Some(url.clone());
    }
    Ok(config)
}

/// The store the config names: the PostgreSQL database of `store.url` when set, else the SQLite
/// file (opened, then adjusted by `sqlite`: read connections for a server, a short lock wait for
/// a hook).
pub fn open_store(
    config: &Config,
    sqlite: impl FnOnce(SqliteStore) -> Result<SqliteStore, SqliteError>,
) -> Result<Box<dyn Store>> {
    if let Some(url) = &config.store.url {
        let store = PostgresStore::open(url)?;
        tracing::debug!(store = %store.location(), "opening store");
        return Ok(Box::new(store));
    }
    let path = config.database_path()?;
    tracing::debug!(db = %path.display(), "opening store");
    let store = SqliteStore::open(&path)?;
    if let Some(upgrade) = store.upgrade() {
        // Once, by the process that upgraded: the older cairn cannot read it any more.
        eprintln!(
            "cairn: upgraded {} from schema {} to {}; the database as it was is kept at {} \
             (cairn restore {} goes back to it)",
            path.display(),
            upgrade.from,
            upgrade.to,
            upgrade.backup.display(),
            upgrade.backup.display()
        );
    }
    Ok(Box::new(sqlite(store)?))
}

/// A comma-separated flag value as raw items; the service normalises and validates them.
pub fn split_list(text: &str) -> Vec<String> {
    text.split(',').map(String::from).collect()
}

/// Text given as an argument or with `--file` (clap keeps the two apart); `None` when neither.
pub fn text_or_file(text: Option<&String>, file: Option<&PathBuf>) -> Result<Option<String>> {
    match (text, file) {
        (Some(text), _) => Ok(Some(text.clone())),
        (None, Some(path)) => read_content_file(path).map(Some),
        (None, None) => Ok(None),
    }
}

/// The text of a `--file` argument: a path, or `-` for standard input, read up to
/// [`MAX_TEXT_INPUT_BYTES`] (so `/dev/zero` or an endless pipe stops there) and as UTF-8.
fn read_content_file(path: &Path) -> Result<String> {
    let bounded = Bounded {
        field: "content",
        limit: MAX_TEXT_INPUT_BYTES,
        setting: "the most cairn reads for one text; a memory holds far less: \
                  limits.max_content_bytes",
    };
    if path == Path::new("-") {
        return Ok(bounded.read_text(&mut std::io::stdin().lock(), "standard input")?);
    }
    let mut file = std::fs::File::open(path)
        .with_context(|| format!("content: cannot read {}", path.display()))?;
    Ok(bounded.read_text(&mut file, &path.display().to_string())?)
}
