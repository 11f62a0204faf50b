//! Configuration: one struct, layered from several places.
//!
//! Precedence, lowest first: built-in defaults < the user file (`$CAIRN_CONFIG`, else
//! `~/.config/cairn/config.toml`) < the project file (the nearest `.cairn.toml` at or above the
//! working directory) < `CAIRN_*` environment variables < command-line flags (applied by the
//! binary). Files are merged key by key, so a project file that sets one limit keeps the user's
//! other settings. Unknown keys are errors that name the file, so a typo never passes silently.
//! A relative `store.path`, `embedding.model_dir` or `images.dir` in a file is taken relative to that file's
//! directory.
//!
//! The data directory is `$CAIRN_HOME`, else the platform data directory (`~/.local/share/cairn`
//! on Linux); the database defaults to `cairn.db` inside it, never to the working directory.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The file name of a project's own configuration.
pub const PROJECT_FILE: &str = ".cairn.toml";
/// The database file name inside the data directory.
pub const DATABASE_FILE: &str = "cairn.db";

/// All of cairn's settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Overrides the detected project name (normally set in a project's `.cairn.toml`).
    pub project: Option<String>,
    pub store: StoreConfig,
    pub limits: Limits,
    pub search: SearchConfig,
    pub embedding: EmbeddingConfig,
    pub mcp: McpConfig,
    pub server: ServerConfig,
    pub sessions: SessionsConfig,
    pub context: ContextConfig,
    pub summarizer: SummarizerConfig,
    pub slots: SlotsConfig,
    pub conflicts: ConflictsConfig,
    pub files: FilesConfig,
    pub images: ImagesConfig,
    pub audit: AuditConfig,
}

/// Images kept with memories (`cairn store --image`): where, and how much.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImagesConfig {
    /// The image directory; default `<database file>-images` beside the database.
    pub dir: Option<PathBuf>,
    /// Largest image, in bytes (of the file, not of its base64), checked before decoding.
    pub max_bytes: u64,
    /// Longest side, in pixels, read from the header before decoding.
    pub max_side: u32,
    /// Most pixels (width × height), read from the header before decoding.
    pub max_pixels: u64,
    /// Most bytes all images together may take; an image that would pass it is refused.
    pub quota_bytes: u64,
    /// Read the text in images (OCR) so it is searchable, when the OCR model is installed
    /// (`CAIRN_OCR=off` turns it off).
    pub ocr: bool,
    /// A directory holding the OCR model's files (or `CAIRN_OCR_DIR`); default: where
    /// `cairn model install ocr` puts them (the Hugging Face cache).
    pub ocr_dir: Option<PathBuf>,
    /// Make each image's look vector (images that look alike are found), when the look model
    /// is installed (`CAIRN_LOOK=off` turns it off).
    pub look: bool,
    /// A directory holding the look model's `model.safetensors` (or `CAIRN_LOOK_DIR`);
    /// default: where `cairn model install look` puts it (the Hugging Face cache).
    pub look_dir: Option<PathBuf>,
    /// Make each image's CLIP vector (images are found by words that describe them), when a
    /// CLIP model is installed (`CAIRN_CLIP=off` turns it off).
    pub clip: bool,
    /// A Hugging Face CLIP directory (`config.json`, `model.safetensors`, `merges.txt`) or
    /// SigLIP one (`config.json`, `model.safetensors`, `tokenizer.json`), or an OpenCLIP
    /// MobileCLIP one (`open_clip_config.json`, `open_clip_model.safetensors`,
    /// `tokenizer.json`), or `CAIRN_CLIP_DIR`;
    /// default: where `cairn model install clip` (else `siglip`) puts it (the Hugging Face
    /// cache).
    pub clip_dir: Option<PathBuf>,
}

impl Default for ImagesConfig {
    fn default() -> Self {
        ImagesConfig {
            dir: None,
            max_bytes: 10 << 20,
            max_side: 16_384,
            max_pixels: 50_000_000,
            quota_bytes: 500 << 20,
            ocr: true,
            ocr_dir: None,
            look: true,
            look_dir: None,
            clip: true,
            clip_dir: None,
        }
    }
}

/// Markdown files (`cairn files`): a project's memories also kept as units in its repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilesConfig {
    /// Keep this project's memories in files (set in the project's `.cairn.toml`; the first
    /// cairn command or agent hook run in the project then starts the workspace, as
    /// `cairn files init` does).
    pub enabled: bool,
    /// The files' directory, relative to the project's root.
    pub dir: String,
    /// Also keep session summaries in the files (and so in git). Global memories, memories
    /// tagged `private` and observations never go there.
    pub include_summaries: bool,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig {
            enabled: false,
            dir: crate::files::DEFAULT_DIR.to_string(),
            include_summaries: false,
        }
    }
}

/// Agent sessions and observations, as hooks record them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionsConfig {
    /// Days an observation is kept; older ones are hidden from every read and deleted by
    /// `prune`. Memories never expire this way.
    pub retention_days: u32,
    /// Longest prompt or tool input kept in an observation, in characters.
    pub max_input_chars: usize,
    /// Longest tool output or error kept in an observation, in characters.
    pub max_output_chars: usize,
    /// Store `*Remember*: …` facts from the agent's last message when a turn stops.
    pub extract_on_stop: bool,
    /// When a session of an agent starts, that agent's other sessions in the project that never
    /// recorded an end and have been idle this many minutes are ended (with a note) and
    /// summarised: an agent that was quit without its end hook (Codex's background server after
    /// `/quit`, a killed process) leaves none open. 0: never.
    pub close_idle_minutes: u32,
    /// Days a session's summary memory is kept; it then expires like any memory with an expiry
    /// (hidden from every read, deleted by `prune`). 0: kept until deleted.
    pub summary_retention_days: u32,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            retention_days: 30,
            max_input_chars: 2_000,
            max_output_chars: 2_000,
            extract_on_stop: true,
            close_idle_minutes: 120,
            summary_retention_days: 90,
        }
    }
}

/// The audit log of changes (`cairn audit`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditConfig {
    /// Days an entry is kept; older ones are deleted as new ones are appended. 0 keeps none
    /// (the log is off).
    pub retention_days: u32,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig { retention_days: 90 }
    }
}

/// Memory slots (`cairn slot …`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SlotsConfig {
    /// When a session ends, write its TODO/FIXME items, its pattern (tools, commands, errors)
    /// and the files it touched into the project's pending_items, session_patterns and
    /// project_context slots.
    pub reflect_on_session_end: bool,
}

impl Default for SlotsConfig {
    fn default() -> Self {
        SlotsConfig {
            reflect_on_session_end: true,
        }
    }
}

/// Conflict candidates: what a write reports as memories it may contradict, refine or replace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConflictsConfig {
    /// Look for candidates on every store and update.
    pub detect: bool,
    /// The most candidates one write reports (and records as pending judgments).
    pub max_candidates: usize,
    /// Days a pending judgment marks both memories "contested" in search results; older ones
    /// are still listed by `cairn conflicts list` but stop annotating (0: never annotate).
    pub annotate_pending_days: u32,
}

impl Default for ConflictsConfig {
    fn default() -> Self {
        ConflictsConfig {
            detect: true,
            max_candidates: 3,
            annotate_pending_days: 14,
        }
    }
}

/// What `cairn context` (and the SessionStart hook) injects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    /// Tokens the context may take, counted with a real tokenizer (`--budget`).
    pub budget_tokens: usize,
    /// Before a compaction, tell the agent to save its session summary first (with
    /// `memory_session_summary`), ahead of the context.
    pub compaction_instruction: bool,
    /// At a prompt, remind a session that has saved nothing in its project for this many
    /// minutes (and has run as long) to save what it decided or found; 0 turns it off.
    pub save_reminder_minutes: u32,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            budget_tokens: 2_000,
            compaction_instruction: true,
            save_reminder_minutes: 15,
        }
    }
}

/// An optional language model that writes session summaries, through any OpenAI-compatible
/// chat-completions endpoint. Off unless `endpoint` is set; cairn's own summary is used when it
/// is off or fails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SummarizerConfig {
    /// Base URL, e.g. `http://127.0.0.1:11434/v1` (`/chat/completions` is appended).
    pub endpoint: Option<String>,
    pub model: String,
    /// The environment variable holding the API key, if the endpoint needs one.
    pub api_key_env: Option<String>,
    pub timeout_seconds: u64,
}

impl Default for SummarizerConfig {
    fn default() -> Self {
        SummarizerConfig {
            endpoint: None,
            model: "gpt-4o-mini".into(),
            api_key_env: None,
            timeout_seconds: 30,
        }
    }
}

/// Which tools the MCP server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolProfile {
    /// The tools an agent needs every session: store, search, get, update, forget, context,
    /// session summary, judge, and reading and keeping its slots (get, append, replace).
    #[default]
    Core,
    /// Everything, including browsing (list, tags, stats), conflicts, `memory_add` and slot
    /// administration (list, create, delete).
    All,
    /// engram's tools under engram's names (`mem_save`, `mem_search`, `mem_context`,
    /// `mem_session_summary`, `mem_judge`, `mem_compare`), for its protocol and skills.
    Engram,
}

/// The MCP server (`cairn mcp`, and `/mcp` of `cairn serve`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// `core`, `all` or `engram` (`--tools`).
    pub tools: ToolProfile,
}

/// The HTTP server (`cairn serve`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address and port to listen on (`--bind`, `CAIRN_BIND`). Anything but loopback needs a
    /// token.
    pub bind: String,
    /// Bearer token every request must carry (`--token`, `CAIRN_TOKEN`); none means no auth,
    /// which only a loopback address allows.
    pub token: Option<String>,
    /// Largest request body, in bytes, except imports (raised to fit a memory with an inline
    /// image of `images.max_bytes`).
    pub max_body_bytes: usize,
    /// Largest import body, in bytes.
    pub max_import_bytes: usize,
    /// Origins (`https://tools.example.com`) whose web pages may call the server, besides the
    /// server's own (its viewer). Every other page is refused, loopback or not.
    pub allowed_origins: Vec<String>,
    /// Seconds a client may take to send a request's headers (also how long an idle
    /// connection stays open) or leave a request's body silent.
    pub read_timeout_secs: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: "127.0.0.1:7437".into(),
            token: None,
            max_body_bytes: 1 << 20,
            max_import_bytes: 256 << 20,
            allowed_origins: Vec::new(),
            read_timeout_secs: 30,
        }
    }
}

/// Semantic search's model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmbeddingConfig {
    /// Use an embedding model when one is installed (`CAIRN_EMBEDDING=off` turns it off).
    pub enabled: bool,
    /// A directory holding the model (config.json, tokenizer.json, model.safetensors); default:
    /// the Hugging Face cache, where `cairn model install` puts it.
    pub model_dir: Option<PathBuf>,
    /// Memories embedded per batch (the model spreads a batch over every core; a batch is also
    /// the unit of progress and of each write of vectors).
    pub batch_size: usize,
}

impl Default for EmbeddingConfig {
    fn default() -> Self {
        EmbeddingConfig {
            enabled: true,
            model_dir: None,
            batch_size: 256,
        }
    }
}

/// Where the store lives: the embedded SQLite file, or a PostgreSQL database for a team.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StoreConfig {
    /// The SQLite database file; default `<data dir>/cairn.db`.
    pub path: Option<PathBuf>,
    /// A PostgreSQL database (`postgres://user[:password]@host[:port]/database`) to use instead
    /// of the SQLite file; env `CAIRN_STORE`, flag `--store`.
    pub url: Option<String>,
}

/// Validation limits enforced by the service on every entry point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest memory content, in bytes of UTF-8.
    pub max_content_bytes: usize,
    /// Longest title, in characters.
    pub max_title_chars: usize,
    /// Most tags on one memory.
    pub max_tags: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_content_bytes: 10_240,
            max_title_chars: 200,
            max_tags: 32,
        }
    }
}

/// Search defaults and ranking weights (see `search::fusion` for how they combine).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Results returned when no `--limit` is given.
    pub default_limit: usize,
    /// No longer used: fuzzy search runs by itself only for the query words no memory holds,
    /// however many memories exact search found. Accepted so that config files written for
    /// earlier versions still load.
    #[serde(skip_serializing)]
    pub fuzzy_min_results: usize,
    /// How alike (0–1, normalised edit distance) a word must be to count as a typo of another.
    pub fuzzy_threshold: f64,
    /// Weight of the exact (lexical) signal in fusion (scores are normalised to 0–1 per signal,
    /// then summed with these weights; see `search::fusion`).
    pub lexical_weight: f64,
    /// Weight of the fuzzy signal in fusion.
    pub fuzzy_weight: f64,
    /// Weight of the semantic signal in fusion.
    pub semantic_weight: f64,
    /// The least cosine similarity a memory needs to be found by meaning: every memory is
    /// *nearest* to something, and below this it is not related.
    pub semantic_min_similarity: f64,
    /// Largest recency boost, in first places (a signal's full score at weight 1), for a memory
    /// updated just now.
    pub recency_weight: f64,
    /// Days after which the recency boost has halved.
    pub recency_half_life_days: f64,
    /// Largest importance boost, in first places, for importance 5 (1 gets the negative).
    pub importance_weight: f64,
    /// Boost, in first places, for a memory of the project a search is made from: among
    /// comparable hits that project's memories come first, while a memory of another project
    /// (or a global one) that answers clearly better still ranks above them.
    pub project_weight: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            default_limit: 10,
            fuzzy_min_results: 5,
            fuzzy_threshold: 0.7,
            lexical_weight: 0.6,
            fuzzy_weight: 0.3,
            semantic_weight: 0.4,
            semantic_min_similarity: 0.2,
            recency_weight: 0.05,
            recency_half_life_days: 30.0,
            importance_weight: 0.05,
            project_weight: 0.2,
        }
    }
}

/// Where configuration is read from; [`ConfigSources::discover`] fills it from the process.
#[derive(Debug, Clone, Default)]
pub struct ConfigSources {
    pub user_file: Option<PathBuf>,
    pub project_file: Option<PathBuf>,
    /// `CAIRN_*` variables (name, value).
    pub env: Vec<(String, String)>,
}

impl ConfigSources {
    /// The user file, the nearest project file above `cwd`, and the process environment.
    pub fn discover(cwd: &Path) -> Self {
        let env: Vec<_> = std::env::vars()
            .filter(|(k, _)| k.starts_with("CAIRN_"))
            .collect();
        let user_file = env
            .iter()
            .find(|(k, _)| k == "CAIRN_CONFIG")
            .map(|(_, v)| PathBuf::from(v))
            .or_else(|| dirs::config_dir().map(|d| d.join("cairn").join("config.toml")));
        let project_file = cwd
            .ancestors()
            .map(|dir| dir.join(PROJECT_FILE))
            .find(|file| file.is_file());
        ConfigSources {
            user_file,
            project_file,
            env,
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }
}

impl Config {
    /// Loads and layers every source. A missing file is fine; a broken one is an error.
    pub fn load(sources: &ConfigSources) -> Result<Config, Error> {
        let mut merged = toml::Table::new();
        for file in [&sources.user_file, &sources.project_file]
            .into_iter()
            .flatten()
        {
            if let Some(table) = read_file(file)? {
                merge(&mut merged, table);
            }
        }
        let mut config =
            Config::deserialize(toml::Value::Table(merged)).map_err(|e| Error::Config {
                origin: "files".into(),
                message: e.to_string(),
            })?;
        if let Some(db) = sources.var("CAIRN_DB") {
            config.store.path = Some(absolute(Path::new(db)));
        }
        if let Some(url) = sources.var("CAIRN_STORE").filter(|url| !url.is_empty()) {
            config.store.url = Some(url.to_string());
        }
        if let Some(project) = sources.var("CAIRN_PROJECT") {
            config.project = Some(project.to_string());
        }
        if let Some(bytes) = sources.var("CAIRN_MAX_CONTENT_BYTES") {
            config.limits.max_content_bytes = bytes.parse().map_err(|_| Error::Config {
                origin: "CAIRN_MAX_CONTENT_BYTES".into(),
                message: format!("'{bytes}' is not a whole number of bytes"),
            })?;
        }
        if let Some(bind) = sources.var("CAIRN_BIND") {
            config.server.bind = bind.to_string();
        }
        if let Some(token) = sources.var("CAIRN_TOKEN") {
            config.server.token = Some(token.to_string());
        }
        if let Some(dir) = sources.var("CAIRN_MODEL_DIR") {
            config.embedding.model_dir = Some(absolute(Path::new(dir)));
        }
        if let Some(on) = switch(sources, "CAIRN_EMBEDDING")? {
            config.embedding.enabled = on;
        }
        if let Some(dir) = sources.var("CAIRN_OCR_DIR") {
            config.images.ocr_dir = Some(absolute(Path::new(dir)));
        }
        if let Some(on) = switch(sources, "CAIRN_OCR")? {
            config.images.ocr = on;
        }
        if let Some(dir) = sources.var("CAIRN_LOOK_DIR") {
            config.images.look_dir = Some(absolute(Path::new(dir)));
        }
        if let Some(on) = switch(sources, "CAIRN_LOOK")? {
            config.images.look = on;
        }
        if let Some(dir) = sources.var("CAIRN_CLIP_DIR") {
            config.images.clip_dir = Some(absolute(Path::new(dir)));
        }
        if let Some(on) = switch(sources, "CAIRN_CLIP")? {
            config.images.clip = on;
        }
        config.store.path =
            config.store.path.take().or_else(|| {
                data_home(sources.var("CAIRN_HOME")).map(|home| home.join(DATABASE_FILE))
            });
        Ok(config)
    }

    /// The image directory: `images.dir`, else `<database file>-images` beside the database
    /// (one directory per database, like SQLite's own `-wal` file).
    pub fn images_dir(&self) -> Result<PathBuf, Error> {
        if let Some(dir) = &self.images.dir {
            return Ok(dir.clone());
        }
        Ok(images_beside(&self.database_path()?))
    }

    /// The database file to open: `store.path`, else `<data dir>/cairn.db`.
    pub fn database_path(&self) -> Result<PathBuf, Error> {
        self.store.path.clone().ok_or_else(|| Error::Config {
            origin: "store.path".into(),
            message: "no data directory is known on this platform; set CAIRN_HOME or pass --db"
                .into(),
        })
    }
}

/// The image directory that goes with a database file: `<file>-images` beside it (like
/// SQLite's own `-wal` file), for a store's images and for a backup's.
pub fn images_beside(database: &Path) -> PathBuf {
    let mut root = database.as_os_str().to_owned();
    root.push("-images");
    PathBuf::from(root)
}

/// `$CAIRN_HOME`, else the platform data directory joined with `cairn`.
pub fn data_home(cairn_home: Option<&str>) -> Option<PathBuf> {
    match cairn_home {
        Some(home) => Some(absolute(Path::new(home))),
        None => dirs::data_dir().map(|d| d.join("cairn")),
    }
}

/// An on/off environment variable: `None` when unset.
fn switch(sources: &ConfigSources, name: &str) -> Result<Option<bool>, Error> {
    let Some(value) = sources.var(name) else {
        return Ok(None);
    };
    match value.to_ascii_lowercase().as_str() {
        "on" | "1" | "true" => Ok(Some(true)),
        "off" | "0" | "false" => Ok(Some(false)),
        _ => Err(Error::Config {
            origin: name.into(),
            message: format!("'{value}' is not on or off"),
        }),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Parses one file, checking it on its own so errors name it; `None` when it does not exist.
fn read_file(file: &Path) -> Result<Option<toml::Table>, Error> {
    let text = match fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::Config {
                origin: file.display().to_string(),
                message: e.to_string(),
            });
        }
    };
    let bad = |message: String| Error::Config {
        origin: file.display().to_string(),
        message,
    };
    let mut table: toml::Table = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
    Config::deserialize(toml::Value::Table(table.clone())).map_err(|e| bad(e.to_string()))?;
    // Relative paths are relative to the file that names them.
    for (section, key) in [
        ("store", "path"),
        ("embedding", "model_dir"),
        ("images", "dir"),
    ] {
        if let Some(toml::Value::Table(table)) = table.get_mut(section)
            && let Some(toml::Value::String(path)) = table.get_mut(key)
        {
            let base = file.parent().unwrap_or(Path::new("."));
            *path = absolute(&base.join(&*path)).to_string_lossy().into_owned();
        }
    }
    Ok(Some(table))
}

/// Deep-merges `top` over `base`: tables merge key by key, anything else replaces.
fn merge(base: &mut toml::Table, top: toml::Table) {
    for (key, value) in top {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(existing)), toml::Value::Table(incoming)) => {
                merge(existing, incoming)
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_example_file_parses_to_the_defaults() {
        let example: Config =
            toml::from_str(include_str!("../../../config.example.toml")).expect("example parses");
        assert_eq!(example, Config::default());
    }

    #[test]
    fn project_file_overrides_user_file_key_by_key_and_env_overrides_both() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("user.toml");
        let project = tmp.path().join("proj/.cairn.toml");
        fs::create_dir_all(project.parent().unwrap()).unwrap();
        fs::write(&user, "[limits]\nmax_content_bytes = 500\nmax_tags = 4\n").unwrap();
        fs::write(
            &project,
            "project = \"acme\"\n[limits]\nmax_tags = 8\n[store]\npath = \"mem.db\"\n",
        )
        .unwrap();
        let mut sources = ConfigSources {
            user_file: Some(user),
            project_file: Some(project.clone()),
            env: vec![],
        };
        let config = Config::load(&sources).unwrap();
        assert_eq!(config.limits.max_content_bytes, 500);
        assert_eq!(config.limits.max_tags, 8);
        assert_eq!(config.project.as_deref(), Some("acme"));
        assert_eq!(
            config.database_path().unwrap(),
            project.parent().unwrap().join("mem.db")
        );

        sources.env = env(&[
            ("CAIRN_PROJECT", "other"),
            ("CAIRN_MAX_CONTENT_BYTES", "900"),
        ]);
        let config = Config::load(&sources).unwrap();
        assert_eq!(config.project.as_deref(), Some("other"));
        assert_eq!(config.limits.max_content_bytes, 900);
    }

    #[test]
    fn the_database_defaults_to_cairn_home_never_the_working_directory() {
        let sources = ConfigSources {
            env: env(&[("CAIRN_HOME", "/srv/cairn-home")]),
            ..Default::default()
        };
        let path = Config::load(&sources).unwrap().database_path().unwrap();
        assert_eq!(path, Path::new("/srv/cairn-home/cairn.db"));
        let default = Config::load(&ConfigSources::default())
            .unwrap()
            .database_path()
            .unwrap();
        assert!(default.is_absolute(), "{}", default.display());
    }

    #[test]
    fn a_typo_in_a_file_is_an_error_naming_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("config.toml");
        fs::write(&user, "[limits]\nmax_content_byte = 5\n").unwrap();
        let err = Config::load(&ConfigSources {
            user_file: Some(user.clone()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("config.toml") && err.contains("max_content_byte"),
            "{err}"
        );
    }
}
