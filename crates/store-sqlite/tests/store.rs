//! The SQLite backend against the shared behavioural suite, plus what is specific to SQLite:
//! files on disk, WAL, and the export/import round trip over random memories.

use cairn_core::store::Store;
use cairn_store_sqlite::SqliteStore;

fn in_memory() -> Box<dyn Store> {
    Box::new(SqliteStore::open_in_memory().expect("in-memory store"))
}

cairn_core::store_behaviour_suite!(in_memory);

/// The same suite on a file with read-only connections beside the writer, as `cairn serve` opens
/// it: every read path works through a reader (which refuses to write) and sees what the writer
/// committed.
mod with_read_connections {
    use super::*;

    fn on_disk_with_readers() -> Box<dyn Store> {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("cairn.db"))
            .and_then(|store| store.with_read_connections(2))
            .expect("a file store with readers");
        // The open connections keep the unlinked files alive; nothing is left behind.
        drop(dir);
        Box::new(store)
    }

    cairn_core::store_behaviour_suite!(on_disk_with_readers);
}

mod on_disk {
    use cairn_core::{Api, ApiParts, NewMemory, Scope, Source, config::Config};
    use cairn_store_sqlite::SqliteStore;

    #[test]
    fn a_new_store_creates_its_directory_uses_wal_and_persists_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/dir/cairn.db");
        let id = {
            let api = Api::open(
                ApiParts::new(Box::new(SqliteStore::open(&path).unwrap())),
                &Config::default(),
            );
            let new = NewMemory::new("persisted across opens", Scope::Global, Source::Cli);
            api.write(&cairn_core::testing::local(), new, None)
                .unwrap()
                .memory
                .id
        };
        let conn = rusqlite_free_journal_mode(&path);
        assert_eq!(conn, "wal");
        let api = Api::open(
            ApiParts::new(Box::new(SqliteStore::open(&path).unwrap())),
            &Config::default(),
        );
        let got = api
            .memories(
                &cairn_core::testing::local(),
                &[cairn_core::IdRef::Full(id)],
            )
            .unwrap();
        assert_eq!(got[0].content, "persisted across opens");
    }

    /// Agent hooks skip the checkpoint on close; one after another, with no other connection
    /// open, they leave the log for a while but never let it grow with every event (each
    /// process would read all of it).
    #[test]
    fn processes_that_skip_the_checkpoint_keep_the_log_short() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.db");
        let log = dir.path().join("cairn.db-wal");
        let (mut left, mut longest) = (0, 0);
        for n in 0..150 {
            let store = SqliteStore::open(&path)
                .unwrap()
                .without_checkpoint_on_close()
                .unwrap();
            let api = Api::open(ApiParts::new(Box::new(store)), &Config::default());
            let content = format!("event {n}: {}", "words of a tool's output ".repeat(100));
            let new = NewMemory::new(content, Scope::Global, Source::Cli);
            api.write(&cairn_core::testing::local(), new, None).unwrap();
            drop(api);
            let bytes = std::fs::metadata(&log).map_or(0, |m| m.len());
            left += usize::from(bytes > 0);
            longest = longest.max(bytes);
        }
        assert!(
            left > 10,
            "the log was left behind after {left} of 150 processes"
        );
        assert!(
            longest < 2 * cairn_store_sqlite::SHORT_LOG_BYTES,
            "the log grew to {longest} bytes"
        );
    }

    /// An import large enough for the store to defer its read-only indexes (see `bulk.rs`)
    /// commits with every index back, holding every memory.
    #[test]
    fn a_bulk_import_commits_with_every_index_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let (fresh, bulk) = (dir.path().join("fresh.db"), dir.path().join("bulk.db"));
        drop(SqliteStore::open(&fresh).unwrap());
        let api = Api::open(
            ApiParts::new(Box::new(SqliteStore::open(&bulk).unwrap())),
            &Config::default(),
        );
        let count = 10_100;
        let records: String = (0..count)
            .map(|n| format!("{{\"content\": \"bulk note {n} on subject {}\"}}\n", n % 37))
            .collect();
        let report = api
            .import(
                &cairn_core::testing::local(),
                &mut records.as_bytes(),
                &mut |_| {},
            )
            .unwrap();
        assert_eq!(report.memories.created, count);
        drop(api);
        let indexes = |path: &std::path::Path| -> Vec<(String, Option<String>)> {
            let conn = rusqlite::Connection::open(path).unwrap();
            let mut statement = conn
                .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' ORDER BY name")
                .unwrap();
            statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(indexes(&bulk), indexes(&fresh));
        let conn = rusqlite::Connection::open(&bulk).unwrap();
        let listed: i64 = conn
            .query_row(
                "SELECT count(*) FROM memories INDEXED BY memories_by_project_updated \
                 WHERE project = ''",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(listed, count as i64);
    }

    /// Reads the journal mode from the file header: bytes 18 and 19 are 2 in WAL mode.
    fn rusqlite_free_journal_mode(path: &std::path::Path) -> &'static str {
        let header = std::fs::read(path).unwrap();
        if header[18] == 2 && header[19] == 2 {
            "wal"
        } else {
            "rollback"
        }
    }

    #[test]
    fn an_unwritable_location_is_a_clear_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "not a directory").unwrap();
        let err = SqliteStore::open(&blocker.join("cairn.db"))
            .err()
            .expect("open fails");
        let message = err.to_string();
        assert!(
            message.contains("cannot open the database at") && message.contains("file"),
            "{message}"
        );
    }
}

mod round_trip {
    use std::io::Cursor;

    use cairn_core::exchange::{
        Header, ImportReport, ObservationRecord, SlotRecord, SlotSeedsRecord,
    };
    use cairn_core::memory::MemoryRecord;
    use cairn_core::relation::{Actor, ActorKind, Relation, RelationKind, Verdict};
    use cairn_core::session::{Observation, ObservationKind, Session, SessionKey, SummaryAuthor};
    use cairn_core::slot::SlotLabel;
    use cairn_core::testing::export_all as export;
    use cairn_core::{
        Api, ApiParts, Category, Importance, Memory, MemoryId, ProjectName, RelationId, Revision,
        Scope, Source, Tag, TopicKey, config::Config,
    };
    use cairn_store_sqlite::SqliteStore;
    use jiff::Timestamp;
    use proptest::prelude::*;

    const TEXT: &str = "[a-z][a-z0-9 .,éü]{0,60}[a-z0-9]";

    fn time() -> impl Strategy<Value = Timestamp> {
        (1_600_000_000_000i64..1_900_000_000_000)
            .prop_map(|ms| Timestamp::from_millisecond(ms).unwrap())
    }

    fn tags() -> impl Strategy<Value = Vec<Tag>> {
        prop::collection::btree_set("[a-z][a-z0-9-]{0,10}", 0..4)
            .prop_map(|set| set.iter().map(|t| Tag::new(t).unwrap()).collect())
    }

    fn category() -> impl Strategy<Value = Category> {
        prop::sample::select(Category::ALL.to_vec())
    }

    fn revision() -> impl Strategy<Value = Revision> {
        (
            TEXT,
            prop::option::of(TEXT),
            category(),
            tags(),
            1i64..=5,
            prop::option::of(time()),
            time(),
        )
            .prop_map(
                |(content, title, category, tags, importance, expires_at, written_at)| Revision {
                    number: 0,
                    content,
                    title,
                    category,
                    tags,
                    importance: Importance::new(importance).unwrap(),
                    expires_at,
                    written_at,
                },
            )
    }

    fn record() -> impl Strategy<Value = MemoryRecord> {
        let scope = prop_oneof![
            Just(Scope::Global),
            "[a-z]{1,8}(/[a-z]{1,8})?".prop_map(|p| Scope::Project(ProjectName::new(&p).unwrap()))
        ];
        let labels = (
            prop::option::of("[a-z]{1,12}"),
            prop::option::of("[a-z]{1,12}"),
            prop::option::of("[a-z0-9-]{1,12}"),
        );
        let times = (
            time(),
            0i64..10_000_000,
            prop::option::of(time()),
            prop::option::of(time()),
        );
        (
            (TEXT, prop::option::of(TEXT), category(), tags(), scope),
            labels,
            (prop::sample::select(Source::ALL.to_vec()), 1i64..=5),
            times,
            prop::collection::vec(revision(), 0..3),
        )
            .prop_map(
                |(
                    (content, title, category, tags, scope),
                    (topic, agent, session),
                    (source, importance),
                    (created_at, age, expires_at, deleted_at),
                    mut revisions,
                )| {
                    for (index, revision) in revisions.iter_mut().enumerate() {
                        revision.number = index as u32 + 1;
                    }
                    MemoryRecord {
                        memory: Memory {
                            id: MemoryId::generate(),
                            content,
                            title,
                            category,
                            tags,
                            scope,
                            topic_key: topic.map(|t| TopicKey::new(&t).unwrap()),
                            entered_by: agent,
                            session_id: session,
                            source,
                            importance: Importance::new(importance).unwrap(),
                            created_at,
                            updated_at: created_at + jiff::Span::new().milliseconds(age),
                            expires_at,
                            deleted_at,
                        },
                        revisions,
                    }
                },
            )
    }

    fn slot() -> impl Strategy<Value = SlotRecord> {
        (
            ("[a-z][a-z_]{0,10}", scope(), TEXT, prop::option::of(TEXT)),
            (100usize..2_000, any::<bool>(), any::<bool>(), any::<bool>()),
            (time(), 0i64..10_000_000),
        )
            .prop_map(
                |(
                    (label, project, content, description),
                    (limit, pinned, read_only, reflects),
                    (created_at, age),
                )| {
                    SlotRecord {
                        label: SlotLabel::new(&label).unwrap(),
                        project,
                        reflected: if reflects {
                            vec![content.clone()]
                        } else {
                            vec![]
                        },
                        content,
                        description,
                        limit,
                        pinned,
                        read_only,
                        created_at,
                        updated_at: created_at + jiff::Span::new().milliseconds(age),
                    }
                },
            )
    }

    fn observation(n: usize, at: Timestamp) -> impl Strategy<Value = Observation> {
        (
            prop::sample::select(ObservationKind::ALL.to_vec()),
            prop::option::of("[A-Z][a-z]{1,6}"),
            (prop::option::of(TEXT), prop::option::of(TEXT)),
            prop::collection::vec("[a-z]{1,6}/[a-z]{1,6}\\.rs", 0..3),
            any::<bool>(),
            1i64..=5,
        )
            .prop_map(
                move |(kind, tool, (input, output), files, error, importance)| Observation {
                    event_id: format!("event-{n}"),
                    at: at + jiff::Span::new().seconds(n as i64),
                    kind,
                    tool,
                    input,
                    output,
                    files,
                    error,
                    importance: Importance::new(importance).unwrap(),
                },
            )
    }

    /// A session and its observations, numbered from `first` so event ids never repeat.
    fn session(first: usize) -> impl Strategy<Value = (Session, Vec<Observation>)> {
        (
            (
                "[a-z]{1,8}",
                "[a-z0-9]{1,8}",
                "[a-z]{1,8}",
                prop::option::of("/[a-z]{1,8}"),
            ),
            (time(), 0i64..10_000_000, any::<bool>()),
            (prop::option::of(TEXT), prop::option::of(TEXT)),
            0usize..4,
        )
            .prop_flat_map(
                move |(
                    (agent, id, project, cwd),
                    (started_at, age, ended),
                    (first_prompt, summary),
                    observations,
                )| {
                    let last_seen_at = started_at + jiff::Span::new().milliseconds(age);
                    let session = Session {
                        key: SessionKey::new(&agent, &id).unwrap(),
                        project: ProjectName::new(&project).unwrap(),
                        cwd,
                        started_at,
                        last_seen_at,
                        ended_at: ended.then_some(last_seen_at),
                        summary_by: summary.as_ref().map(|_| SummaryAuthor::Agent),
                        first_prompt,
                        summary,
                    };
                    let made: Vec<_> = (0..observations)
                        .map(|n| observation(first + n, started_at))
                        .collect();
                    (Just(session), made)
                },
            )
    }

    fn verdict() -> impl Strategy<Value = Verdict> {
        (
            prop::sample::select(RelationKind::ALL.to_vec()),
            (prop::option::of(TEXT), prop::option::of(TEXT)),
            prop::option::of((0u32..=1000).prop_map(|n| f64::from(n) / 1000.0)),
            prop::sample::select(vec![ActorKind::Agent, ActorKind::User, ActorKind::System]),
            (
                prop::option::of("[a-z]{1,8}"),
                prop::option::of("[a-z0-9-]{1,8}"),
            ),
            time(),
        )
            .prop_map(
                |(relation, (reason, evidence), confidence, kind, (name, model), judged_at)| {
                    Verdict {
                        relation,
                        reason,
                        evidence,
                        confidence,
                        actor: Actor {
                            kind,
                            name,
                            model,
                            session: None,
                        },
                        judged_at,
                    }
                },
            )
    }

    /// A relation between the `a`-th and `b`-th memory (modulo how many there are), kept only
    /// when they are two memories of one scope.
    fn relation() -> impl Strategy<Value = (usize, usize, Relation)> {
        (
            (0usize..12, 0usize..12),
            prop::option::of(0u32..=1000),
            prop::option::of(verdict()),
            prop::collection::vec(verdict(), 0..3),
            (time(), 0i64..10_000_000),
        )
            .prop_map(|((a, b), score, verdict, history, (created_at, age))| {
                let relation = Relation {
                    id: RelationId::generate(),
                    source: MemoryId::generate(),
                    target: MemoryId::generate(),
                    scope: Scope::Global,
                    score: score.map(|n| f64::from(n) / 1000.0),
                    verdict,
                    history,
                    created_at,
                    updated_at: created_at + jiff::Span::new().milliseconds(age),
                };
                (a, b, relation)
            })
    }

    fn scope() -> impl Strategy<Value = Scope> {
        prop_oneof![
            Just(Scope::Global),
            "[a-z]{1,8}".prop_map(|p| Scope::Project(ProjectName::new(&p).unwrap()))
        ]
    }

    fn api() -> Api {
        Api::open(
            ApiParts::new(Box::new(SqliteStore::open_in_memory().unwrap())),
            &Config::default(),
        )
    }

    fn import(api: &Api, jsonl: &str) -> ImportReport {
        api.import(
            &cairn_core::testing::local(),
            &mut Cursor::new(jsonl.as_bytes()),
            &mut |_| {},
        )
        .unwrap()
    }

    fn line(kind: &str, value: impl serde::Serialize) -> String {
        let mut json = serde_json::to_value(value).unwrap();
        json.as_object_mut()
            .unwrap()
            .insert("type".into(), kind.into());
        json.to_string() + "\n"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any store — memories with history, slots of both scopes, seeds, sessions with
        /// observations — exported, imported into an empty store and exported again gives the
        /// same bytes; importing it once more changes nothing.
        #[test]
        fn export_import_export_is_byte_identical_for_any_store(
            mut records in prop::collection::vec(record(), 0..12),
            slots in prop::collection::vec(slot(), 0..6),
            seeds in prop::collection::btree_map(scope(), prop::collection::btree_set("[a-z]{1,8}", 1..4), 0..3),
            sessions in (0usize..3).prop_flat_map(|n| (0..n).map(|i| session(i * 10)).collect::<Vec<_>>()),
            pairs in prop::collection::vec(relation(), 0..6),
        ) {
            // Export order is creation time, then insertion order.
            records.sort_by_key(|r| r.memory.created_at);
            let mut jsonl: String = records.iter().map(|r| line("memory", r)).collect();
            // Relations join two memories of one scope; they follow the memories, oldest first.
            let mut relations: Vec<Relation> = pairs
                .into_iter()
                .filter(|_| !records.is_empty())
                .filter_map(|(a, b, mut relation)| {
                    let (a, b) = (&records[a % records.len()].memory, &records[b % records.len()].memory);
                    (a.id != b.id && a.scope == b.scope).then(|| {
                        relation.source = a.id;
                        relation.target = b.id;
                        relation.scope = a.scope.clone();
                        relation
                    })
                })
                .collect();
            relations.sort_by_key(|r| (r.created_at, r.id));
            jsonl.extend(relations.iter().map(|r| line("relation", r)));
            let mut slot_keys = std::collections::BTreeSet::new();
            for slot in slots.iter().filter(|s| slot_keys.insert((s.project.clone(), s.label.clone()))) {
                jsonl.push_str(&line("slot", slot));
            }
            for (project, labels) in &seeds {
                let labels: Vec<SlotLabel> = labels.iter().map(|l| SlotLabel::new(l).unwrap()).collect();
                jsonl.push_str(&line("slot_seeds", SlotSeedsRecord { project: project.clone(), labels }));
            }
            let mut session_keys = std::collections::BTreeSet::new();
            let mut observations = 0;
            for (session, observed) in sessions.iter().filter(|(s, _)| session_keys.insert(s.key.to_string())) {
                jsonl.push_str(&line("session", session));
                for observation in observed {
                    observations += 1;
                    jsonl.push_str(&line("observation", ObservationRecord { session: session.key.clone(), observation: observation.clone() }));
                }
            }

            let first = api();
            import(&first, &jsonl);
            let exported = export(&first);
            let header: Header = serde_json::from_str(exported.lines().next().unwrap()).unwrap();
            prop_assert_eq!(header.counts.memories, records.len() as u64);
            prop_assert_eq!(header.counts.relations, relations.len() as u64);
            prop_assert_eq!(header.counts.slots, slot_keys.len() as u64);
            prop_assert_eq!(header.counts.slot_seeds, seeds.len() as u64);
            prop_assert_eq!(header.counts.sessions, session_keys.len() as u64);
            prop_assert_eq!(header.counts.observations, observations);
            let memories: Vec<MemoryRecord> = exported
                .lines()
                .skip(1)
                .take(records.len())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            prop_assert_eq!(&memories, &records);
            let exported_relations: Vec<Relation> = exported
                .lines()
                .skip(1 + records.len())
                .take(relations.len())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            prop_assert_eq!(&exported_relations, &relations);

            let second = api();
            let report = import(&second, &exported);
            prop_assert_eq!(report.memories.created, records.len() as u64);
            prop_assert_eq!(report.relations.created, relations.len() as u64);
            prop_assert_eq!(export(&second), exported.clone());
            let again = import(&second, &exported);
            for (_, counted) in again.kinds() {
                prop_assert_eq!((counted.created, counted.updated), (0, 0));
            }
            prop_assert_eq!(export(&second), exported);
        }
    }
}

mod index_consistency {
    use cairn_core::testing::{Harness, project};
    use cairn_core::{IdRef, MemoryPatch, NewMemory, Source};
    use cairn_store_sqlite::SqliteStore;
    use std::sync::OnceLock;

    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();

    fn on_disk() -> Box<dyn cairn_core::store::Store> {
        let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap());
        Box::new(SqliteStore::open(&dir.path().join("consistency.db")).unwrap())
    }

    #[test]
    fn the_full_text_index_matches_the_memories_after_every_kind_of_write() {
        let h = Harness::new(on_disk);
        let mut ids = Vec::new();
        for i in 0..60 {
            let mut new = NewMemory::new(
                format!("note {i} about cache layer {}", i % 7),
                project("acme"),
                Source::Cli,
            );
            new.tags = vec![format!("t{}", i % 5)];
            new.title = (i % 3 == 0).then(|| format!("title {i}"));
            new.topic_key = (i % 10 == 0).then(|| "rolling".to_string());
            ids.push(
                h.api
                    .write(&cairn_core::testing::local(), new, None)
                    .unwrap()
                    .memory
                    .id,
            );
        }
        // Memories sharing the topic key are one memory: once it is forgotten or purged, later
        // writes to it are refused as not found, and every other write succeeds.
        let mut gone = std::collections::HashSet::new();
        for (i, id) in ids.iter().enumerate() {
            let target = IdRef::Full(*id);
            let written = match i % 4 {
                0 => h
                    .api
                    .patch(
                        &cairn_core::testing::local(),
                        &target,
                        MemoryPatch {
                            content: Some(format!("rewritten {i}")),
                            ..Default::default()
                        },
                    )
                    .map(drop),
                1 => h
                    .api
                    .patch(
                        &cairn_core::testing::local(),
                        &target,
                        MemoryPatch {
                            tags: Some(vec!["moved".into()]),
                            title: Some(None),
                            ..Default::default()
                        },
                    )
                    .map(drop),
                2 => h
                    .api
                    .forget(&cairn_core::testing::local(), &target.to_string(), false)
                    .map(drop),
                _ => h
                    .api
                    .forget(&cairn_core::testing::local(), &target.to_string(), true)
                    .map(drop),
            };
            if gone.contains(id) {
                assert!(
                    matches!(written, Err(cairn_core::Error::NotFound { .. })),
                    "write {i} to a removed memory: {written:?}"
                );
            } else {
                written.unwrap_or_else(|e| panic!("write {i}: {e}"));
                if i % 4 >= 2 {
                    gone.insert(*id);
                }
            }
        }
        let exported = h.export();
        let fresh = Harness::new(|| Box::new(SqliteStore::open_in_memory().unwrap()));
        fresh.import(&exported).unwrap();
        fresh.import(&exported).unwrap();
        // Reopen the file and let SQLite and FTS5 check every entry against the table.
        let store = SqliteStore::open(&DIR.get().unwrap().path().join("consistency.db")).unwrap();
        store
            .check_integrity()
            .expect("index consistent with the memories");
    }
}

mod hostile_queries {
    use cairn_core::memory::MemoryFilter;
    use cairn_core::search::{FuzzyMode, SearchRequest};
    use cairn_core::testing::{Harness, project};
    use cairn_core::{NewMemory, Source};
    use cairn_store_sqlite::SqliteStore;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    fn harness() -> &'static Harness {
        static HARNESS: OnceLock<Harness> = OnceLock::new();
        HARNESS.get_or_init(|| {
            let h = Harness::new(|| Box::new(SqliteStore::open_in_memory().unwrap()));
            for text in [
                "docker compose up",
                "\"quoted\" (parens) NOT AND OR * ^ : - + NEAR",
                "naïve café façade",
            ] {
                h.api
                    .write(
                        &cairn_core::testing::local(),
                        NewMemory::new(text, project("acme"), Source::Cli),
                        None,
                    )
                    .unwrap();
            }
            h
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// Whatever the input, search answers with results or a query error — never a panic,
        /// never a storage error (which would mean FTS5 saw syntax it could not parse).
        #[test]
        fn no_input_crashes_search_or_leaks_an_fts5_error(
            text in prop_oneof!["\\PC{0,60}", "([A-Za-z*\"():^+-]{1,6}| AND | OR | NOT |NEAR| ){0,10}"],
            strict in any::<bool>(),
        ) {
            // Fuzzy always on, so hostile words reach the trigram index too.
            let request = SearchRequest { strict, fuzzy: FuzzyMode::Always, ..SearchRequest::new(text.clone(), MemoryFilter::default(), 5) };
            match harness().api.search_request(&cairn_core::testing::local(), &request) {
                Ok(_) => {}
                Err(err) => prop_assert_eq!(err.field(), Some("query"), "{:?}: {}", text, err),
            }
        }
    }
}

/// A database written by the previous release (schema 6: before vector spaces), made by
/// `tests/fixtures/make-schema-v6.sh` with that release's `cairn`: memories in two scopes (one
/// forgotten, one revised), their vectors by the real text model, and slots in both scopes.
/// Opening it upgrades it in place and keeps every memory, vector and slot.
mod upgrade {
    use cairn_core::embedding::{VectorSpace, VectorStore};
    use cairn_core::memory::{MemoryFilter, Visibility};
    use cairn_core::slot::SlotStore;
    use cairn_core::{MemoryId, ProjectName, Scope};
    use cairn_store_sqlite::{SqliteStore, migrations::SCHEMA_VERSION};
    use rusqlite::Connection;

    const FIXTURE: &[u8] = include_bytes!("fixtures/schema-v6.db");

    /// Every row of `sql`, each column as text (blobs in hex), in order.
    fn rows(conn: &Connection, sql: &str) -> Vec<Vec<String>> {
        let mut statement = conn.prepare(sql).unwrap();
        let columns = statement.column_count();
        statement
            .query_map([], |row| {
                (0..columns)
                    .map(|n| {
                        Ok(match row.get_ref(n)? {
                            rusqlite::types::ValueRef::Null => "NULL".into(),
                            rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                            rusqlite::types::ValueRef::Real(r) => r.to_string(),
                            rusqlite::types::ValueRef::Text(t) => {
                                String::from_utf8_lossy(t).into_owned()
                            }
                            rusqlite::types::ValueRef::Blob(b) => {
                                b.iter().map(|byte| format!("{byte:02x}")).collect()
                            }
                        })
                    })
                    .collect()
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    const MEMORIES: &str = "SELECT * FROM memories ORDER BY seq";
    const REVISIONS: &str = "SELECT * FROM memory_revisions ORDER BY memory_seq, number";
    const SLOTS: &str = "SELECT * FROM slots ORDER BY project, label";

    #[test]
    fn a_store_of_the_previous_release_upgrades_in_place_and_keeps_everything() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.db");
        std::fs::write(&path, FIXTURE).unwrap();
        let (memories, revisions, slots, vectors, model) = {
            let old = Connection::open(&path).unwrap();
            let version: u32 = old
                .query_row("PRAGMA user_version", [], |row| row.get(0))
                .unwrap();
            assert_eq!(version, 6, "the fixture is a schema-6 store");
            (
                rows(&old, MEMORIES),
                rows(&old, REVISIONS),
                rows(&old, SLOTS),
                rows(
                    &old,
                    "SELECT m.id, v.vector, v.written FROM memory_vectors v \
                     JOIN memories m ON m.seq = v.memory_seq ORDER BY v.memory_seq",
                ),
                rows(
                    &old,
                    "SELECT name, dimensions, weights_sha256 FROM embedding_model",
                ),
            )
        };
        assert!(memories.len() >= 4 && !revisions.is_empty() && slots.len() >= 2);
        assert_eq!(
            vectors.len() + 1,
            memories.len(),
            "every memory but the forgotten one has a vector"
        );

        let store = SqliteStore::open(&path).expect("the old store opens and upgrades");
        store
            .check_integrity()
            .expect("the upgraded store is sound");
        let new = Connection::open(&path).unwrap();
        let version: u32 = new
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        // Migration 12 adds `image_text` after the old columns, empty (no image was read).
        let upgraded: Vec<Vec<String>> = rows(&new, MEMORIES)
            .into_iter()
            .map(|mut row| {
                assert_eq!(row.pop().as_deref(), Some(""), "a new image text is empty");
                row
            })
            .collect();
        assert_eq!(upgraded, memories);
        assert_eq!(rows(&new, REVISIONS), revisions);
        assert_eq!(rows(&new, SLOTS), slots);
        // Every vector is now the text space's, with its write number.
        assert_eq!(
            rows(
                &new,
                "SELECT m.id, v.vector, v.written FROM memory_vectors v \
                 JOIN memories m ON m.seq = v.memory_seq WHERE v.space = 'text' \
                 ORDER BY v.memory_seq",
            ),
            vectors
        );

        // And through the store's own API.
        let text = VectorSpace::Text;
        let recorded = store
            .embedding_model(text)
            .unwrap()
            .expect("the model is kept");
        assert_eq!(
            vec![
                recorded.name.clone(),
                recorded.dimensions.to_string(),
                recorded.weights_sha256.clone()
            ],
            model[0]
        );
        let counts = store.embedding_counts(text).unwrap();
        assert_eq!((counts.embedded, counts.pending), (vectors.len() as u64, 0));
        let everything = MemoryFilter {
            visibility: Visibility::ALL,
            ..MemoryFilter::default()
        };
        for row in &vectors {
            let id: MemoryId = row[0].parse().unwrap();
            let vector: Vec<f32> = (0..row[1].len() / 8)
                .map(|n| {
                    let byte =
                        |k: usize| u8::from_str_radix(&row[1][n * 8 + k * 2..][..2], 16).unwrap();
                    f32::from_le_bytes([byte(0), byte(1), byte(2), byte(3)])
                })
                .collect();
            let nearest = store
                .nearest(text, &vector, &everything, jiff::Timestamp::now(), 1)
                .unwrap();
            assert_eq!(nearest[0].id, id, "a memory is nearest its own vector");
            assert!(nearest[0].raw > 0.999, "{}", nearest[0].raw);
        }
        // The store as it was is kept beside it, and opening again copies nothing more.
        let upgrade = store.upgrade().expect("an upgrade was made").clone();
        assert_eq!((upgrade.from, upgrade.to), (6, SCHEMA_VERSION));
        assert_eq!(upgrade.backup, dir.path().join("cairn.db.v6.bak"));
        let kept_copy = Connection::open(&upgrade.backup).unwrap();
        let version: u32 = kept_copy
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, 6);
        assert_eq!(rows(&kept_copy, MEMORIES), memories);
        assert!(SqliteStore::open(&path).unwrap().upgrade().is_none());
        let acme = Scope::Project(ProjectName::new("acme").unwrap());
        let kept = store.slots(&[acme, Scope::Global]).unwrap();
        assert_eq!(kept.len(), slots.len());
        assert!(
            kept.iter()
                .any(|slot| slot.label.as_str() == "pending_items"
                    && slot.content.contains("ship the release notes")),
            "{kept:?}"
        );
    }
}

/// What a file must be before it is opened, and what a store does when it cannot write.
mod files_that_are_not_stores {
    use cairn_core::{Api, ApiParts, NewMemory, Scope, Source, config::Config};
    use cairn_store_sqlite::{SqliteStore, migrations};

    fn refusal(path: &std::path::Path) -> String {
        match SqliteStore::open(path) {
            Ok(_) => panic!("{} was opened", path.display()),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn an_empty_file_a_stranger_or_a_directory_is_refused_naming_it_and_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("cairn.db");
        std::fs::write(&empty, b"").unwrap();
        let message = refusal(&empty);
        assert!(
            message.contains(&empty.display().to_string()) && message.contains("empty"),
            "{message}"
        );
        assert_eq!(
            std::fs::metadata(&empty).unwrap().len(),
            0,
            "not made a store"
        );

        let stranger = dir.path().join("notes.db");
        std::fs::write(
            &stranger,
            b"my shopping list, not a database
",
        )
        .unwrap();
        let message = refusal(&stranger);
        assert!(
            message.contains("does not start like a SQLite database"),
            "{message}"
        );
        assert_eq!(
            std::fs::read(&stranger).unwrap(),
            b"my shopping list, not a database
"
        );
        let message = refusal(dir.path());
        assert!(message.contains("directory"), "{message}");
    }

    #[test]
    fn a_new_store_is_never_an_empty_file_and_many_openers_share_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.db");
        std::thread::scope(|scope| {
            for _ in 0..6 {
                scope.spawn(|| SqliteStore::open(&path).expect("open or create"));
            }
        });
        assert!(std::fs::metadata(&path).unwrap().len() > 0);
        let leftovers: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".new-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    /// Makes `dir` read-only for this process: a read-only mount when running as root (which
    /// permission bits do not stop), else the directory's and file's permission bits. Returns
    /// what undoes it.
    fn make_read_only(dir: &std::path::Path, file: &std::path::Path) -> Box<dyn FnOnce()> {
        use std::os::unix::fs::PermissionsExt;
        if unsafe { libc::geteuid() } == 0 {
            let remount = |mode: &str| {
                let status = std::process::Command::new("mount")
                    .args(["-o", &format!("remount,{mode}")])
                    .arg(dir)
                    .status()
                    .expect("mount runs");
                assert!(status.success(), "mount -o remount,{mode}");
            };
            remount("ro");
            let dir = dir.to_path_buf();
            return Box::new(move || {
                let status = std::process::Command::new("mount")
                    .args(["-o", "remount,rw"])
                    .arg(&dir)
                    .status()
                    .unwrap();
                assert!(status.success());
            });
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o444)).unwrap();
        let dir = dir.to_path_buf();
        Box::new(move || {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        })
    }

    /// A directory of its own file system when running as root (a small tmpfs, unmounted on
    /// drop), else a temporary directory.
    struct Scratch {
        dir: tempfile::TempDir,
        mounted: bool,
    }

    impl Scratch {
        fn new(size: &str) -> Scratch {
            let dir = tempfile::tempdir().unwrap();
            let mounted = unsafe { libc::geteuid() } == 0
                && std::process::Command::new("mount")
                    .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
                    .arg(dir.path())
                    .status()
                    .is_ok_and(|s| s.success());
            Scratch { dir, mounted }
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            if self.mounted {
                let _ = std::process::Command::new("umount")
                    .arg(self.dir.path())
                    .status();
            }
        }
    }

    #[test]
    fn a_read_only_directory_allows_reads_and_names_why_writes_fail() {
        let scratch = Scratch::new("4m");
        let path = scratch.dir.path().join("cairn.db");
        {
            let api = Api::open(
                ApiParts::new(Box::new(SqliteStore::open(&path).unwrap())),
                &Config::default(),
            );
            api.write(
                &cairn_core::testing::local(),
                NewMemory::new("Kept while read-only", Scope::Global, Source::Cli),
                None,
            )
            .unwrap();
        }
        let undo = make_read_only(scratch.dir.path(), &path);
        let opened = SqliteStore::open(&path);
        let outcome = opened.map(|store| {
            assert!(store.read_only().is_some());
            let api = Api::open(ApiParts::new(Box::new(store)), &Config::default());
            let count = api.stats(&cairn_core::testing::local()).map(|s| s.memories);
            let refused = api
                .write(
                    &cairn_core::testing::local(),
                    NewMemory::new("not written", Scope::Global, Source::Cli),
                    None,
                )
                .unwrap_err();
            (count, refused)
        });
        undo();
        let (count, refused) = outcome.expect("a read-only store opens for reading");
        assert_eq!(count.expect("reads work"), 1);
        assert!(
            matches!(refused, cairn_core::Error::ReadOnly { .. }),
            "{refused}"
        );
        assert!(refused.to_string().contains("read-only"), "{refused}");
    }

    #[test]
    #[ignore = "needs root, to mount a small tmpfs (a full disk)"]
    fn a_full_disk_is_named_and_loses_nothing() {
        let scratch = Scratch::new("1m");
        if !scratch.mounted {
            // Only a file system of its own can fill up without filling the machine's.
            cairn_core::testing::missing(
                "a small tmpfs of its own (a full disk)",
                "run it as root, which may mount one",
            );
        }
        let path = scratch.dir.path().join("cairn.db");
        let api = Api::open(
            ApiParts::new(Box::new(SqliteStore::open(&path).unwrap())),
            &Config::default(),
        );
        let mut stored = Vec::new();
        let mut full = None;
        for n in 0..10_000 {
            let text = format!("memory {n}: {}", "words that take room ".repeat(40));
            match api.write(
                &cairn_core::testing::local(),
                NewMemory::new(text, Scope::Global, Source::Cli),
                None,
            ) {
                Ok(outcome) => stored.push(outcome.memory.id),
                Err(error) => {
                    full = Some(error);
                    break;
                }
            }
        }
        let error = full.expect("a 1 MiB disk fills up");
        assert!(
            matches!(error, cairn_core::Error::DiskFull { .. }),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("disk full") && message.contains(&path.display().to_string()),
            "{message}"
        );
        // Everything acknowledged is there, read back by another handle.
        drop(api);
        let reader = Api::open(
            ApiParts::new(Box::new(SqliteStore::open(&path).unwrap())),
            &Config::default(),
        );
        assert_eq!(
            reader
                .stats(&cairn_core::testing::local())
                .unwrap()
                .memories,
            stored.len() as u64
        );
    }

    #[test]
    fn only_the_two_newest_upgrade_copies_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.db");
        SqliteStore::open(&path).unwrap();
        for version in [3, 4, 5] {
            std::fs::write(migrations::backup_name(&path, version), b"old copy").unwrap();
        }
        // An older schema forces an upgrade (and a copy of it).
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", migrations::SCHEMA_VERSION - 1)
            .unwrap();
        drop(conn);
        let _ = SqliteStore::open(&path);
        let mut kept: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".bak"))
            .collect();
        kept.sort();
        let mut expected = vec![
            "cairn.db.v5.bak".to_string(),
            format!("cairn.db.v{}.bak", migrations::SCHEMA_VERSION - 1),
        ];
        expected.sort();
        assert_eq!(kept, expected);
    }

    #[test]
    fn a_failed_upgrade_names_its_step_and_the_copy_not_its_sql() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairn.db");
        SqliteStore::open(&path).unwrap();
        // The last migration's work is already there, so applying it again fails.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", migrations::SCHEMA_VERSION - 1)
            .unwrap();
        drop(conn);
        let message = refusal(&path);
        let step = migrations::SCHEMA_VERSION;
        assert!(message.contains(&format!("step {step}")), "{message}");
        assert!(
            message.contains(&format!(".v{}.bak", step - 1)),
            "{message}"
        );
        assert!(!message.contains("ALTER TABLE"), "no SQL: {message}");
    }
}

/// Damage to the database file: seen by the doctor's checks, and recovered into a new file.
mod damage {
    use cairn_core::health::{HealthStore, Repair, Severity};
    use cairn_core::{Api, ApiParts, NewMemory, Scope, Source, config::Config};
    use cairn_store_sqlite::SqliteStore;

    const PAGE: u64 = 4096;

    /// A store of `n` memories (long enough to span many pages), closed.
    fn store_of(dir: &std::path::Path, n: usize) -> (std::path::PathBuf, Vec<String>) {
        let path = dir.join("cairn.db");
        let api = Api::open(
            ApiParts::new(Box::new(SqliteStore::open(&path).unwrap())),
            &Config::default(),
        );
        let contents: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "memory {i}: {}",
                    "the release train leaves on time ".repeat(8)
                )
            })
            .collect();
        for content in &contents {
            api.write(
                &cairn_core::testing::local(),
                NewMemory::new(content.clone(), Scope::Global, Source::Cli),
                None,
            )
            .unwrap();
        }
        drop(api);
        (path, contents)
    }

    fn zero_page(path: &std::path::Path, page: u64) {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.seek(SeekFrom::Start(page * PAGE)).unwrap();
        file.write_all(&[0; PAGE as usize]).unwrap();
    }

    /// The page (from 0) of the file at `path` that holds `text`.
    fn page_holding(path: &std::path::Path, text: &str) -> u64 {
        let bytes = std::fs::read(path).unwrap();
        let at = bytes
            .windows(text.len())
            .position(|window| window == text.as_bytes())
            .expect("the text is in the file");
        at as u64 / PAGE
    }

    /// Damages page `page` of a 400-memory store, sees it, recovers into a new file (never in
    /// place); the recovered store, checked healthy, and the memories it kept.
    fn recovered_after_zeroing(
        dir: &std::path::Path,
        path: &std::path::Path,
        page: u64,
        contents: &[String],
    ) -> (Api, usize) {
        zero_page(path, page);
        let damaged_bytes = std::fs::read(path).unwrap();
        let store = SqliteStore::open(path).unwrap();
        let findings = store.check_health(false).unwrap();
        let database = findings
            .iter()
            .find(|f| f.check == "database")
            .unwrap_or_else(|| panic!("the damage is seen: {findings:?}"));
        assert_eq!(database.severity, Severity::Problem);
        assert_eq!(database.repair, Some(Repair::RecoverDatabase));

        let done = store.repair(Repair::RecoverDatabase).unwrap();
        assert!(done.contains("recovered"), "{done}");
        assert!(done.contains("1 unreadable stretches"), "{done}");
        assert_eq!(
            std::fs::read(path).unwrap(),
            damaged_bytes,
            "never in place"
        );
        let recovered_path = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains(".recovered-"))
            .expect("a recovered file beside the database");
        let recovered = SqliteStore::open(&recovered_path).unwrap();
        let after = recovered.check_health(false).unwrap();
        assert!(after.is_empty(), "{after:?}");
        let api = Api::open(ApiParts::new(Box::new(recovered)), &Config::default());
        let listed = cairn_core::testing::export_all(&api);
        let kept = contents
            .iter()
            .filter(|c| listed.contains(&format!("\"{}\"", c.trim_end())))
            .count();
        (api, kept)
    }

    /// A zeroed leaf of the memories table — the first one (every read from the lowest rowid
    /// meets it: recovery once halved the rowid range forever there), or one in the middle —
    /// loses the memories it held, and every other comes across whole.
    #[test]
    fn a_zeroed_page_is_seen_and_everything_else_is_recovered_into_a_new_file() {
        for first in [0, 200] {
            let dir = tempfile::tempdir().unwrap();
            let (path, contents) = store_of(dir.path(), 400);
            let healthy = SqliteStore::open(&path)
                .unwrap()
                .check_health(false)
                .unwrap();
            assert!(healthy.is_empty(), "{healthy:?}");
            let page = page_holding(&path, contents[first].trim_end());
            let (api, kept) = recovered_after_zeroing(dir.path(), &path, page, &contents);
            // One 4 KiB page holds at most 13 of these memories (about 300 bytes each): the
            // rest all come across, whole.
            assert!(
                (contents.len() - 13..contents.len()).contains(&kept),
                "{kept} of {} recovered, zeroing the page of memory {first}",
                contents.len()
            );
            let hits = api
                .search_request(
                    &cairn_core::testing::local(),
                    &cairn_core::search::SearchRequest::new(
                        "release train",
                        cairn_core::memory::MemoryFilter::default(),
                        5,
                    ),
                )
                .unwrap()
                .hits;
            assert_eq!(hits.len(), 5, "the full-text index was rebuilt");
        }
    }

    /// A zeroed root page of the memories table leaves none of them readable: the recovery
    /// still ends (it gave up on the table after its bounded search) and keeps the rest.
    #[test]
    fn a_zeroed_root_page_loses_its_table_and_the_recovery_still_ends() {
        let dir = tempfile::tempdir().unwrap();
        let (path, contents) = store_of(dir.path(), 400);
        let conn = rusqlite::Connection::open(&path).unwrap();
        let root: u32 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'memories'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let logged: i64 = conn
            .query_row("SELECT count(*) FROM audit_log", [], |row| row.get(0))
            .unwrap();
        drop(conn);
        assert_eq!(logged, 400, "each store is in the audit log");
        // SQLite counts pages from 1.
        let (api, kept) =
            recovered_after_zeroing(dir.path(), &path, u64::from(root) - 1, &contents);
        assert_eq!(kept, 0);
        let input = serde_json::from_value(serde_json::json!({"limit": 100})).unwrap();
        let entries = api.audit(&cairn_core::testing::local(), input).unwrap();
        assert_eq!(entries.len(), 100, "the audit log came across");
        assert_eq!(entries[99].seq, 301, "whole, in order");
    }

    #[test]
    fn a_damaged_full_text_index_is_seen_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = store_of(dir.path(), 50);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute("DELETE FROM memories_fts_data WHERE id > 10", [])
            .unwrap();
        drop(conn);
        let store = SqliteStore::open(&path).unwrap();
        let findings = store.check_health(false).unwrap();
        assert!(
            findings
                .iter()
                .any(|f| f.check == "full_text" && f.repair == Some(Repair::RebuildFullText)),
            "{findings:?}"
        );
        store.repair(Repair::RebuildFullText).unwrap();
        assert!(store.check_health(false).unwrap().is_empty());
    }
}

mod backup {
    use cairn_core::testing::export_all as export;
    use cairn_core::{Api, ApiParts, NewMemory, Scope, Source, config::Config};
    use cairn_store_sqlite::SqliteStore;

    fn api(path: &std::path::Path) -> Api {
        Api::open(
            ApiParts::new(Box::new(SqliteStore::open(path).unwrap())),
            &Config::default(),
        )
    }

    fn store(api: &Api, text: &str) {
        api.write(
            &cairn_core::testing::local(),
            NewMemory::new(text, Scope::Global, Source::Cli),
            None,
        )
        .unwrap();
    }

    #[test]
    fn a_restore_brings_back_exactly_what_the_backup_held() {
        let dir = tempfile::tempdir().unwrap();
        let live = api(&dir.path().join("cairn.db"));
        store(&live, "kept in the backup");
        let copy = dir.path().join("copy.db");
        live.backup(&copy).unwrap();
        let at_backup = export(&live);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".partial"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");

        let again = live.backup(&copy).unwrap_err();
        assert_eq!(again.field(), Some("file"), "{again}");

        store(&live, "written after the backup");
        assert_ne!(export(&live), at_backup);
        live.restore(&copy).unwrap();
        assert_eq!(export(&live), at_backup);
        // The restored store takes new writes, and a fresh process sees the same state.
        store(&live, "written after the restore");
        let reopened = api(&dir.path().join("cairn.db"));
        assert_eq!(export(&reopened), export(&live));
        assert_eq!(
            reopened
                .search_request(&cairn_core::testing::local(), &search("restore"))
                .unwrap()
                .hits
                .len(),
            1,
            "the restored store's index works"
        );
    }

    fn search(text: &str) -> cairn_core::search::SearchRequest {
        cairn_core::search::SearchRequest::new(text, Default::default(), 10)
    }

    #[test]
    fn a_restore_refuses_what_is_not_a_cairn_backup_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let live = api(&dir.path().join("cairn.db"));
        store(&live, "must survive a failed restore");
        let before = export(&live);
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "not a database at all, just some text").unwrap();
        let other_sqlite = dir.path().join("other.db");
        rusqlite::Connection::open(&other_sqlite)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        for (file, says) in [
            (dir.path().join("missing.db"), "no such file"),
            (text, "not a SQLite database"),
            (other_sqlite, "not a cairn store"),
        ] {
            let error = live.restore(&file).unwrap_err();
            assert_eq!(error.field(), Some("file"), "{error}");
            assert!(error.to_string().contains(says), "{error}");
            assert!(
                error.to_string().contains("nothing was restored"),
                "{error}"
            );
        }
        assert_eq!(export(&live), before);
    }
}
