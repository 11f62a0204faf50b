//! The suite's files behaviours: memories written into a workspace's files, exactly the changed
//! unit rewritten, hand edits, deletions and new units read back, a teammate's units imported,
//! malformed files never losing a memory.

use std::path::PathBuf;
use std::time::Duration;

use jiff::Span;

use super::{Harness, StoreFactory, by_ref, local, project};
use crate::files::{SyncReport, WRITE_SETTLE, Workspace};
use crate::memory::{Memory, MemoryFilter, MemoryPatch, NewMemory, Source};
use crate::scope::{ProjectName, Scope};
use crate::session::SUMMARY_TAG;

/// The error an update of `memory`'s text gets: it must be refused.
fn refused_update(h: &Harness, memory: &Memory) -> crate::Error {
    h.api
        .patch(
            &local(),
            &by_ref(memory),
            MemoryPatch {
                content: Some("changed".into()),
                ..MemoryPatch::default()
            },
        )
        .expect_err("a read-only memory refuses updates")
}

/// A harness whose project `acme` keeps its memories in a temporary directory.
struct Files {
    h: Harness,
    root: tempfile::TempDir,
    workspace: Workspace,
}

impl Files {
    fn new(factory: StoreFactory) -> Self {
        Self::with_config(factory, &crate::config::Config::default())
    }

    fn with_config(factory: StoreFactory, config: &crate::config::Config) -> Self {
        let h = Harness::with_config(factory, config);
        let root = tempfile::tempdir().expect("temp dir");
        let report = h
            .domains()
            .files()
            .init(acme(), root.path(), ".cairn/memory")
            .expect("init");
        assert_eq!(report.written, 0);
        let workspace = h
            .domains()
            .files()
            .workspace(&acme())
            .expect("read")
            .expect("a workspace");
        Files { h, root, workspace }
    }

    fn store(&self, content: &str) -> Memory {
        self.h
            .api
            .write(
                &local(),
                NewMemory::new(content, project("acme"), Source::Cli),
                None,
            )
            .expect("store")
            .memory
    }

    /// The one day file (the clock never leaves the test's day unless a test moves it).
    fn day_file(&self) -> PathBuf {
        self.dir().join("2026-03-11.md")
    }

    fn dir(&self) -> PathBuf {
        self.root.path().join(".cairn/memory")
    }

    fn text(&self) -> String {
        std::fs::read_to_string(self.day_file()).unwrap_or_default()
    }

    fn edit(&self, change: impl FnOnce(String) -> String) {
        std::fs::write(self.day_file(), change(self.text())).expect("write");
    }

    fn sync(&self) -> SyncReport {
        self.sync_with(false)
    }

    fn sync_with(&self, dry_run: bool) -> SyncReport {
        let workspace = self
            .h
            .domains()
            .files()
            .workspace(&acme())
            .expect("read")
            .expect("a workspace");
        self.h
            .domains()
            .files()
            .sync(&workspace, dry_run)
            .expect("sync")
    }

    fn visible(&self) -> Vec<String> {
        let mut contents: Vec<String> = self
            .h
            .list(crate::memory::MemoryFilter::default())
            .into_iter()
            .map(|m| m.content)
            .collect();
        contents.sort();
        contents
    }
}

fn acme() -> ProjectName {
    ProjectName::new("acme").expect("valid")
}

pub fn writes_land_in_the_day_file_and_a_change_rewrites_only_its_unit(factory: StoreFactory) {
    let f = Files::new(factory);
    let first = f.store("The event store runs on PostgreSQL");
    let second = f.store("Deploys go out on Fridays");
    f.h.api
        .write(
            &local(),
            NewMemory::new("A global note", Scope::Global, Source::Cli),
            None,
        )
        .expect("store");
    f.h.api
        .write(
            &local(),
            NewMemory {
                tags: vec![SUMMARY_TAG.into()],
                ..NewMemory::new("Session summary text", project("acme"), Source::Cli)
            },
            None,
        )
        .expect("store");
    let before = f.text();
    assert!(before.contains("The event store runs on PostgreSQL\n<!-- cairn:end -->"));
    assert!(before.contains(&second.id.to_string()));
    assert!(!before.contains("A global note") && !before.contains("Session summary"));

    f.h.clock.advance(Span::new().minutes(5));
    f.h.api
        .patch(
            &local(),
            &by_ref(&first),
            MemoryPatch {
                content: Some("The event store moved to MySQL".into()),
                ..MemoryPatch::default()
            },
        )
        .expect("update");
    let after = f.text();
    let unit_of = |text: &str| {
        let start = text.find("<!-- cairn:unit").expect("a unit");
        let end = text.find("<!-- cairn:end -->\n").expect("its end") + 19;
        (start, end)
    };
    let (start, old_end) = unit_of(&before);
    let (_, new_end) = unit_of(&after);
    assert_eq!(after[..start], before[..start]);
    assert_eq!(
        after[new_end..],
        before[old_end..],
        "the rest is byte-identical"
    );
    assert!(after[start..new_end].contains("The event store moved to MySQL\n"));

    f.h.api
        .forget(&local(), &second.id.to_string(), false)
        .expect("forget");
    assert!(!f.text().contains(&second.id.to_string()));
    assert!(f.text().contains("moved to MySQL"));
}

pub fn hand_edits_deletions_and_new_units_reach_the_store(factory: StoreFactory) {
    let f = Files::new(factory);
    let pnpm = f.store("Use pnpm, not npm, for installs");
    let fly = f.store("Staging runs on Fly.io");
    f.h.clock.advance(Span::new().minutes(1));

    f.edit(|text| {
        let text = text.replace("Use pnpm, not npm,", "Use pnpm (never npm)");
        format!("{text}\n<!-- cairn:unit {{\"category\":\"decision\"}} -->\nCI runs on GitHub Actions\n<!-- cairn:end -->\n")
    });
    let report = f.sync();
    assert_eq!(
        (report.updated, report.created, report.forgotten),
        (1, 1, 0)
    );
    assert_eq!(
        f.visible(),
        [
            "CI runs on GitHub Actions",
            "Staging runs on Fly.io",
            "Use pnpm (never npm) for installs"
        ]
    );
    let hits = f
        .h
        .api
        .search_request(
            &local(),
            &crate::search::SearchRequest::new("pnpm", crate::memory::MemoryFilter::default(), 10),
        )
        .expect("search")
        .hits;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].memory.content, "Use pnpm (never npm) for installs");
    assert!(
        hits[0].memory.title.is_none(),
        "a unit header is never the memory's text"
    );
    let history = f.h.api.history(&local(), &by_ref(&pnpm)).expect("history");
    assert_eq!(
        history.revisions.len(),
        1,
        "the hand edit kept the old text"
    );
    assert_eq!(
        history.revisions[0].content,
        "Use pnpm, not npm, for installs"
    );
    // The new unit got its id written back, and a second sync changes nothing.
    let created =
        f.h.list(crate::memory::MemoryFilter::default())
            .into_iter()
            .find(|m| m.content.starts_with("CI runs"))
            .expect("stored");
    assert_eq!(created.category, crate::memory::Category::Decision);
    assert!(f.text().contains(&created.id.to_string()));
    let settled = f.text();
    let again = f.sync();
    assert_eq!((again.updated, again.created, again.written), (0, 0, 0));
    assert_eq!(f.text(), settled);

    // An editor that writes a byte order mark first changes nothing.
    let settled = f.text();
    std::fs::write(f.day_file(), format!("\u{FEFF}{settled}")).expect("write");
    let marked = f.sync();
    assert_eq!(
        (
            marked.updated,
            marked.created,
            marked.forgotten,
            marked.raw_indexed
        ),
        (0, 0, 0, 0),
        "{marked:?}"
    );
    assert!(marked.warnings.is_empty(), "{:?}", marked.warnings);

    // A unit deleted by hand forgets its memory.
    f.edit(|text| {
        let id = fly.id.to_string();
        let start = text
            .find(&format!("<!-- cairn:unit {{\"id\":\"{id}"))
            .expect("unit");
        let end = start + text[start..].find("<!-- cairn:end -->\n").expect("end") + 19;
        format!("{}{}", &text[..start], &text[end..])
    });
    assert_eq!(f.sync().forgotten, 1);
    assert_eq!(
        f.visible(),
        [
            "CI runs on GitHub Actions",
            "Use pnpm (never npm) for installs"
        ]
    );
}

pub fn a_teammates_unit_is_imported_with_its_id_and_a_purged_memory_leaves_the_files(
    factory: StoreFactory,
) {
    let f = Files::new(factory);
    let mine = f.store("Feature flags live in LaunchDarkly");
    let theirs = crate::id::MemoryId::generate();
    f.edit(|text| {
        format!(
            "{text}\n<!-- cairn:unit {{\"id\":\"{theirs}\",\"category\":\"fact\",\"tags\":[\"infra\"],\
             \"created\":\"2026-03-10T09:00:00Z\",\"updated\":\"2026-03-10T09:30:00Z\"}} -->\n\
             The VPN endpoint is vpn.acme.dev\n<!-- cairn:end -->\n"
        )
    });
    let report = f.sync();
    assert_eq!(report.imported, 1);
    let stored =
        f.h.api
            .resolve(&local(), &crate::id::IdRef::Full(theirs), false)
            .expect("imported with its id");
    assert_eq!(stored.content, "The VPN endpoint is vpn.acme.dev");
    assert_eq!(stored.updated_at.to_string(), "2026-03-10T09:30:00Z");
    assert_eq!(stored.tags.len(), 1);

    f.h.api
        .forget(&local(), &mine.id.to_string(), true)
        .expect("purge");
    assert!(!f.text().contains(&mine.id.to_string()));
    assert!(f.text().contains(&theirs.to_string()));
}

/// The text of `text` without the unit of `id`.
fn without_unit(text: &str, id: &crate::id::MemoryId) -> String {
    let start = text
        .find(&format!("<!-- cairn:unit {{\"id\":\"{id}"))
        .expect("unit");
    let end = start + text[start..].find("<!-- cairn:end -->\n").expect("end") + 19;
    format!("{}{}", &text[..start], &text[end..])
}

pub fn a_cut_unit_forgets_its_memory_until_it_comes_back_and_a_dry_run_changes_nothing(
    factory: StoreFactory,
) {
    let f = Files::new(factory);
    f.store("Releases are tagged from main");
    let cut = f.store("The staging cluster is in eu-west-1");
    let whole = f.text();
    f.edit(|text| without_unit(&text, &cut.id));
    let edited = f.text();

    // A dry run names what a sync would forget, and changes nothing.
    let preview = f.sync_with(true);
    assert!(preview.dry_run);
    assert_eq!(preview.forgotten, 1);
    assert_eq!(preview.forgets[0].id, cut.id);
    assert_eq!(preview.forgets[0].cut_by, "edit");
    assert_eq!(
        preview.forgets[0].headline,
        "The staging cluster is in eu-west-1"
    );
    assert_eq!(f.visible().len(), 2, "nothing forgotten yet");
    assert_eq!(f.text(), edited);

    let report = f.sync();
    assert_eq!((report.forgotten, report.forgets.len()), (1, 1));
    assert_eq!(f.visible(), ["Releases are tagged from main"]);

    // The unit back (an undo in the editor, a checkout of the old file): the memory too, and
    // the file is left as it was put back.
    std::fs::write(f.day_file(), &whole).expect("write");
    let back = f.sync();
    assert_eq!((back.restored, back.forgotten), (1, 0));
    assert_eq!(
        f.visible(),
        [
            "Releases are tagged from main",
            "The staging cluster is in eu-west-1"
        ]
    );
    assert_eq!(f.text(), whole);
}

pub fn a_unit_of_a_memory_forgotten_in_cairn_is_left_where_git_put_it(factory: StoreFactory) {
    let f = Files::new(factory);
    let kept = f.store("Feature branches are rebased, never merged");
    let gone = f.store("The old CI ran on Jenkins");
    let with_both = f.text();
    f.h.api
        .forget(&local(), &gone.id.to_string(), false)
        .expect("forget");
    assert!(
        !f.text().contains(&gone.id.to_string()),
        "cairn's own forget removes the unit"
    );
    // Another version of the file comes back with the unit (another branch's): the memory
    // stays forgotten, and the file is not rewritten without it.
    std::fs::write(f.day_file(), &with_both).expect("write");
    let report = f.sync();
    assert_eq!(report.restored, 0);
    assert_eq!(
        f.text(),
        with_both,
        "a sync never drops a unit git put there"
    );
    assert_eq!(f.visible(), ["Feature branches are rebased, never merged"]);
    f.sync();
    assert_eq!(f.text(), with_both);

    // A purged memory's unit is left there too, and never stored again.
    f.h.api
        .forget(&local(), &gone.id.to_string(), true)
        .expect("purge");
    std::fs::write(f.day_file(), &with_both).expect("write");
    let report = f.sync();
    assert_eq!(report.imported, 0);
    assert_eq!(f.text(), with_both);
    assert_eq!(f.visible(), ["Feature branches are rebased, never merged"]);
    assert!(f.text().contains(&kept.id.to_string()));
}

pub fn forget_undo_brings_a_memory_and_its_unit_back(factory: StoreFactory) {
    let f = Files::new(factory);
    let memory = f.store("Migrations run before the deploy, never after");
    let before = f.text();
    f.h.api
        .forget(&local(), &memory.id.to_string(), false)
        .expect("forget");
    assert!(!f.text().contains(&memory.id.to_string()));

    let restored =
        f.h.api
            .restore_memory(&local(), &memory.id.to_string())
            .expect("undo");
    assert_eq!(restored.id, memory.id);
    assert!(restored.deleted_at.is_none());
    assert_eq!(
        f.visible(),
        ["Migrations run before the deploy, never after"]
    );
    assert_eq!(f.text().matches(&memory.id.to_string()).count(), 1);
    assert_eq!(f.text(), before, "the unit is written back as it was");

    // Undo of a memory that is not forgotten, or whose text a live memory now holds.
    let error =
        f.h.api
            .restore_memory(&local(), &memory.id.to_string())
            .unwrap_err();
    assert!(matches!(error, crate::Error::Invalid { .. }), "{error}");
    f.h.api
        .forget(&local(), &memory.id.to_string(), false)
        .expect("forget");
    let twin = f.store("Migrations run before the deploy, never after");
    assert_ne!(twin.id, memory.id);
    let error =
        f.h.api
            .restore_memory(&local(), &memory.id.to_string())
            .unwrap_err();
    assert!(matches!(error, crate::Error::Conflict { .. }), "{error}");
    assert!(error.to_string().contains(&twin.id.handle()), "{error}");
    assert_eq!(f.visible().len(), 1);
}

pub fn a_file_that_cannot_be_read_whole_never_forgets_a_memory(factory: StoreFactory) {
    let f = Files::new(factory);
    let kept = f.store("Backups run nightly at 02:00");
    // A broken header swallows the unit: it is reported, and the memory stays.
    f.edit(|text| text.replacen("<!-- cairn:unit {", "<!-- cairn:unit {oops", 1));
    let report = f.sync();
    assert_eq!(report.forgotten, 0);
    assert!(
        report.warnings.iter().any(|w| w.reason.contains("header")),
        "{:?}",
        report.warnings
    );
    // Two readable units with its id, and a stray closing line: reported, left as they are.
    let id = kept.id.to_string();
    f.edit(|text| {
        let copy = text.replace("{oops", "{");
        format!("{text}\n<!-- cairn:end -->\n\n{copy}\n{copy}")
    });
    let second = f.sync();
    assert_eq!(second.forgotten, 0);
    assert!(
        second
            .warnings
            .iter()
            .any(|w| w.reason.contains("stray marker")),
        "{second:?}"
    );
    assert!(
        second
            .warnings
            .iter()
            .any(|w| w.reason.contains("second unit")),
        "{second:?}"
    );
    assert_eq!(f.text().matches(&id).count(), 3, "every copy stays");
    // Its text (headers left out) is what the memory already holds: nothing more is indexed.
    assert_eq!(report.raw_indexed, 0);
    assert_eq!(f.visible(), [kept.content.as_str()]);
    assert!(
        f.text().contains("{oops"),
        "the broken text is left as it was"
    );
    // Junk that is not text, and a 50 MB file: reported, their beginning indexed as RAW text,
    // the files left byte for byte as they were, nothing else touched.
    let junk = [b"zanzibar notes \xff\xfe\x00 end".as_slice(), &[0x80; 64]].concat();
    std::fs::write(f.dir().join("junk.md"), &junk).expect("write");
    let line = "The quarterly archive holds every build log of the year.\n";
    let huge = format!(
        "Ledger of big files\n\n{}",
        line.repeat(50 * 1024 * 1024 / line.len())
    );
    std::fs::write(f.dir().join("huge.md"), &huge).expect("write");
    let report = f.sync();
    for file in ["junk.md", "huge.md"] {
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.file == file && w.reason.contains("RAW")),
            "{file}: {:?}",
            report.warnings
        );
    }
    assert!(report.raw_indexed >= 2, "{report:?}");
    assert_eq!(std::fs::read(f.dir().join("junk.md")).expect("read"), junk);
    assert_eq!(
        std::fs::read_to_string(f.dir().join("huge.md"))
            .expect("read")
            .len(),
        huge.len()
    );
    let found = |words: &str| f.h.search(words, MemoryFilter::default()).len();
    assert_eq!(found("zanzibar"), 1);
    assert!(found("ledger") >= 1);
    assert!(f.visible().contains(&kept.content));
    // An unchanged second sync indexes nothing new.
    assert_eq!(f.sync().raw_indexed, 0);
}

pub fn text_outside_units_is_indexed_read_only_and_follows_its_file(factory: StoreFactory) {
    let f = Files::new(factory);
    f.store("Deploys go out on Fridays");
    let notes = f.dir().join("MEMORY.md");
    std::fs::write(
        &notes,
        "# Team notes\n\nWe deploy the cluster with ArgoCD.\n",
    )
    .expect("write");
    f.edit(|text| format!("{text}\nLoose note: the VPN config lives in 1Password.\n"));
    let report = f.sync();
    assert_eq!((report.raw_indexed, report.forgotten), (2, 0), "{report:?}");
    let search = |words: &str| f.h.search(words, MemoryFilter::default());
    let raw = search("ArgoCD").pop().expect("RAW text is searchable");
    assert_eq!(
        raw.content,
        "# Team notes\n\nWe deploy the cluster with ArgoCD."
    );
    assert_eq!(raw.title.as_deref(), Some("MEMORY.md"));

    // Read-only, whatever the entry point.
    let refused = refused_update(&f.h, &raw);
    assert!(refused.to_string().contains("MEMORY.md"), "{refused}");
    assert!(
        matches!(refused, crate::Error::ReadOnly { .. }),
        "{refused:?}"
    );
    assert!(
        f.h.api
            .forget(&local(), &raw.id.to_string(), false)
            .is_err()
    );
    assert!(f.h.api.forget(&local(), &raw.id.to_string(), true).is_err());
    // It takes part in duplicate detection.
    let again =
        f.h.api
            .write(
                &local(),
                NewMemory::new(
                    "# Team notes\n\nWe deploy the cluster with ArgoCD.",
                    project("acme"),
                    Source::Cli,
                ),
                None,
            )
            .expect("store");
    assert_eq!(again.status, crate::memory::WriteStatus::Duplicate);
    assert_eq!(again.memory.id, raw.id);

    // The file changes: the old text's memory goes, the new text's comes.
    std::fs::write(&notes, "# Team notes\n\nWe deploy the cluster with Flux.\n").expect("write");
    let report = f.sync();
    assert_eq!(
        (report.raw_indexed, report.raw_dropped),
        (1, 1),
        "{report:?}"
    );
    assert!(search("ArgoCD").is_empty());
    assert_eq!(search("Flux").len(), 1);
    // An unchanged sync keeps every RAW memory as it is.
    let report = f.sync();
    assert_eq!((report.raw_indexed, report.raw_dropped), (0, 0));
    std::fs::remove_file(&notes).expect("remove");
    assert_eq!(f.sync().raw_dropped, 1);
    assert!(search("Flux").is_empty());
    assert_eq!(search("1Password").len(), 1);

    // A unit that is never closed is indexed as RAW text, and reported.
    f.edit(|text| format!("{text}\n<!-- cairn:unit -->\nHalf-written: rotate the TLS certs\n"));
    let report = f.sync();
    assert_eq!(report.raw_indexed, 1);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.reason.contains("closing line"))
    );
    assert_eq!(search("TLS certs").len(), 1);
}

pub fn memory_add_answers_as_the_openclaw_contract_states(factory: StoreFactory) {
    use crate::api::{AddInput, AddOutcome, Caller};
    let f = Files::new(factory);
    let caller = Caller {
        default_project: Some(acme()),
        ..Caller::local(Source::Mcp)
    };
    let add = |text: &str, category: Option<&str>| {
        let outcome =
            f.h.api
                .add(
                    &caller,
                    AddInput {
                        text: text.into(),
                        category: category.map(String::from),
                    },
                )
                .expect("an answer");
        serde_json::to_value(outcome).expect("json")
    };
    // A unit: `UNIT:<id>`, and the category the wording names when none is given.
    let created = add("I prefer tabs over spaces", None);
    assert_eq!(created["action"], "created", "{created}");
    assert_eq!(created["kind"], "UNIT");
    assert_eq!(created["category"], "preference");
    let id = created["memoryId"].as_str().expect("an id");
    assert!(id.starts_with("UNIT:"), "{id}");
    // That id works wherever an id goes.
    let target = crate::id::IdRef::parse(id).expect("an id as memory_add names it");
    let got = f.h.api.memories(&local(), &[target]).expect("read");
    assert_eq!(got[0].content, "I prefer tabs over spaces");
    assert_eq!(
        add("Deploys need two approvals", Some("fact"))["category"],
        "fact"
    );
    assert_eq!(add("The meeting is on Tuesdays", None)["category"], "other");

    // RAW text of the files: a duplicate of it says so.
    std::fs::write(
        f.dir().join("MEMORY.md"),
        "We deploy the cluster with ArgoCD.\n",
    )
    .expect("write");
    f.sync();
    let duplicate = add("We deploy the cluster with ArgoCD.", None);
    assert_eq!(duplicate["action"], "duplicate", "{duplicate}");
    assert_eq!(duplicate["existing"]["kind"], "RAW");
    assert!(
        duplicate["existing"]["memoryId"]
            .as_str()
            .is_some_and(|id| id.starts_with("RAW:")),
        "{duplicate}"
    );

    // A blank text: `"error": "text_required"`, a string, and nothing written.
    let before = f.h.count_all();
    for blank in ["", "   \n"] {
        let failed = add(blank, None);
        assert_eq!(failed["action"], "failed");
        assert_eq!(failed["error"], "text_required", "{failed}");
        assert_eq!(failed["field"], "text");
    }
    let unknown = add("x", Some("nope"));
    assert_eq!(
        (&unknown["error"], &unknown["field"]),
        (
            &serde_json::json!("invalid"),
            &serde_json::json!("category")
        )
    );
    assert!(matches!(
        f.h.api.add(&caller, AddInput::default()),
        Ok(AddOutcome::Failed { .. })
    ));
    assert_eq!(f.h.count_all(), before);
}

pub fn the_index_rebuilds_from_the_files_alone(factory: StoreFactory) {
    let f = Files::new(factory);
    let kept = f.store("Feature flags live in LaunchDarkly");
    f.store("Deploys go out on Fridays");
    let private =
        f.h.api
            .write(
                &local(),
                NewMemory {
                    tags: vec!["private".into()],
                    ..NewMemory::new(
                        "Alice's number is in the vault",
                        project("acme"),
                        Source::Cli,
                    )
                },
                None,
            )
            .expect("store")
            .memory;
    std::fs::write(f.dir().join("MEMORY.md"), "Loose: staging runs on Fly.io\n").expect("write");
    f.sync();
    // A unit edited by hand while nothing syncs: the rebuild reads the file's text.
    f.edit(|text| text.replace("on Fridays", "on Thursdays"));
    let before: Vec<String> = f.visible();
    let report =
        f.h.domains()
            .files()
            .rebuild(&f.workspace)
            .expect("rebuild");
    assert_eq!((report.imported, report.raw_indexed), (2, 1), "{report:?}");
    let after = f.visible();
    assert_ne!(before, after);
    assert_eq!(
        after,
        [
            "Alice's number is in the vault",
            "Deploys go out on Thursdays",
            "Feature flags live in LaunchDarkly",
            "Loose: staging runs on Fly.io"
        ]
    );
    let read_back =
        f.h.api
            .resolve(&local(), &by_ref(&kept), false)
            .expect("same id");
    assert_eq!(read_back.content, kept.content);
    assert!(
        f.h.api.resolve(&local(), &by_ref(&private), false).is_ok(),
        "left alone"
    );
}

/// An editor that truncates a file and then writes it must not have a watcher read the empty
/// file in between: every memory of it would be forgotten, and the finished edit then erased
/// from the file as the unit of a forgotten memory (what `cairn serve` did under load).
pub fn a_watcher_leaves_a_file_being_written_until_it_settles(factory: StoreFactory) {
    let f = Files::new(factory);
    f.store("Nightly backups go to the eu-west bucket");
    let edited = f.text().replace("eu-west", "us-east");
    std::fs::write(f.day_file(), "").expect("truncate");
    assert!(
        f.h.domains().refresh_files(&acme(), WRITE_SETTLE).is_none(),
        "a file modified just now is left until it settles"
    );
    assert_eq!(
        f.visible(),
        ["Nightly backups go to the eu-west bucket"],
        "nothing forgotten"
    );
    // The finished save also adds a unit of its own, whose id the sync writes back.
    std::fs::write(
        f.day_file(),
        format!("{edited}\n<!-- cairn:unit -->\nRestores are tested monthly\n<!-- cairn:end -->\n"),
    )
    .expect("write");
    assert!(f.h.domains().refresh_files(&acme(), WRITE_SETTLE).is_none());
    // Settled: as if the write had ended a moment longer ago than the settle time.
    let file = std::fs::File::options()
        .write(true)
        .open(f.day_file())
        .expect("open");
    file.set_modified(std::time::SystemTime::now() - WRITE_SETTLE * 2)
        .expect("set the modification time");
    let report =
        f.h.domains()
            .refresh_files(&acme(), WRITE_SETTLE)
            .expect("a settled edit is read");
    assert_eq!(
        (report.updated, report.created, report.forgotten),
        (1, 1, 0)
    );
    assert_eq!(
        f.visible(),
        [
            "Nightly backups go to the us-east bucket",
            "Restores are tested monthly"
        ]
    );
    assert!(f.text().contains("us-east"), "the edit stays in the file");
    assert!(
        f.h.domains()
            .refresh_files(&acme(), Duration::ZERO)
            .is_none(),
        "the stamp a sync records covers its own writes (the id written back)"
    );
}

pub fn a_refresh_reads_the_files_only_when_someone_else_changed_them(factory: StoreFactory) {
    let f = Files::new(factory);
    f.store("The build cache lives in S3");
    f.store("Preview apps expire after 3 days");
    assert!(
        f.h.domains()
            .refresh_files(&acme(), Duration::ZERO)
            .is_none(),
        "cairn's own writes leave the files synced"
    );
    f.edit(|text| text.replace("in S3", "in the R2 bucket"));
    let report =
        f.h.domains()
            .refresh_files(&acme(), Duration::ZERO)
            .expect("a hand edit is seen");
    assert_eq!(report.updated, 1);
    assert!(
        f.h.domains()
            .refresh_files(&acme(), Duration::ZERO)
            .is_none()
    );

    // A new session's context sees a hand edit made since.
    f.edit(|text| text.replace("after 3 days", "after 7 days"));
    let context =
        f.h.api
            .context_request(
                &local(),
                &crate::context::ContextRequest {
                    project: Some(acme()),
                    query: Some("preview apps expire".into()),
                    budget: 2_000,
                    ..Default::default()
                },
            )
            .expect("context");
    assert!(context.text.contains("after 7 days"), "{}", context.text);
    assert!(
        !context.text.contains("cairn:"),
        "no unit header in context"
    );
    assert!(!context.text.contains("after 3 days"));
}

pub fn a_write_whose_file_fails_still_stores_and_export_writes_it_later(factory: StoreFactory) {
    let f = Files::new(factory);
    // A directory where the day's file should be: the file cannot be written.
    std::fs::create_dir_all(f.day_file()).expect("mkdir");
    let stored = f.store("Written while its file could not be");
    f.h.api
        .write(
            &local(),
            NewMemory {
                tags: vec!["private".into()],
                ..NewMemory::new("Kept out of the files", project("acme"), Source::Cli)
            },
            None,
        )
        .expect("store");
    assert_eq!(f.visible().len(), 2, "the writes did not fail");
    std::fs::remove_dir(f.day_file()).expect("rmdir");

    let plan =
        f.h.domains()
            .files()
            .export(&f.workspace, true)
            .expect("dry run");
    let listed: Vec<_> = plan.units.iter().map(|u| u.id).collect();
    assert_eq!(listed, [stored.id]);
    assert_eq!(plan.units[0].file, "2026-03-11.md");
    assert!(!f.day_file().exists(), "a dry run writes nothing");

    let done =
        f.h.domains()
            .files()
            .export(&f.workspace, false)
            .expect("export");
    assert_eq!(done.units.len(), 1);
    assert!(f.text().contains("Written while its file could not be"));
    assert!(!f.text().contains("Kept out"));
    let again =
        f.h.domains()
            .files()
            .export(&f.workspace, false)
            .expect("export");
    assert!(again.units.is_empty());
}

pub fn session_summaries_reach_the_files_only_when_configured(factory: StoreFactory) {
    let summary = |f: &Files| {
        f.h.api
            .write(
                &local(),
                NewMemory {
                    tags: vec![SUMMARY_TAG.into()],
                    ..NewMemory::new(
                        "Session: fixed the login flake",
                        project("acme"),
                        Source::Cli,
                    )
                },
                None,
            )
            .expect("store");
        f.text()
    };
    assert!(!summary(&Files::new(factory)).contains("login flake"));
    let mut config = crate::config::Config::default();
    config.files.include_summaries = true;
    assert!(summary(&Files::with_config(factory, &config)).contains("login flake"));
}

/// Files agents follow (`CLAUDE.md`, `AGENTS.md`) are read-only memories that follow their
/// files, beside a workspace that never touches them (nor they it).
pub fn followed_files_are_read_only_memories_in_line_with_their_files(factory: StoreFactory) {
    use crate::files::{FollowedFile, INSTRUCTIONS_TAG};
    let f = Files::new(factory);
    f.store("Deploys go out on Fridays");
    let claude = f.root.path().join("CLAUDE.md");
    let agents = f.root.path().join("AGENTS.md");
    std::fs::write(
        &claude,
        "# Build\n\nRun `make check` before every push.\n\n# Style\n\nNo unwrap in library code.\n",
    )
    .expect("write");
    std::fs::write(&agents, "Use pnpm, never npm.\n").expect("write");
    let followed = [
        FollowedFile {
            path: claude.clone(),
            title: "CLAUDE.md".into(),
        },
        FollowedFile {
            path: agents.clone(),
            title: "AGENTS.md".into(),
        },
    ];
    let follow = |dry_run: bool| {
        f.h.domains()
            .files()
            .follow(&acme(), &followed, dry_run)
            .expect("follow")
    };
    let dry = follow(true);
    assert_eq!(dry.indexed, 3, "{dry:?}");
    assert!(
        !f.h.api
            .follows_instructions(&local(), &acme())
            .expect("read")
    );
    let report = follow(false);
    assert_eq!((report.indexed, report.dropped), (3, 0), "{report:?}");
    assert!(
        f.h.api
            .follows_instructions(&local(), &acme())
            .expect("read")
    );
    let search = |words: &str| f.h.search(words, crate::memory::MemoryFilter::default());
    let rule = search("pnpm").pop().expect("a followed rule is found");
    assert_eq!(rule.title.as_deref(), Some("AGENTS.md"));
    assert!(rule.tags.iter().any(|t| t.as_str() == INSTRUCTIONS_TAG));
    let refused = refused_update(&f.h, &rule);
    assert!(
        matches!(refused, crate::Error::ReadOnly { .. })
            && refused.to_string().contains("AGENTS.md"),
        "{refused:?}"
    );
    assert_eq!(
        f.h.domains().files().unit_path(&rule).expect("path"),
        Some(agents.display().to_string())
    );
    // A session's context offers them when they bear on its work, never as merely recent
    // (the agent reads those files itself).
    let context = |query: Option<&str>| {
        let request = crate::context::ContextRequest {
            project: Some(acme()),
            query: query.map(String::from),
            budget: 2_000,
            ..Default::default()
        };
        f.h.api
            .context_request(&local(), &request)
            .expect("context")
            .text
    };
    let idle = context(None);
    assert!(
        idle.contains("Deploys go out on Fridays") && !idle.contains("pnpm"),
        "{idle}"
    );
    assert!(context(Some("which package manager, pnpm or npm")).contains("pnpm"));
    // Following again changes nothing; the workspace's sync leaves them alone (and writes
    // none of them into its files).
    let again = follow(false);
    assert_eq!((again.indexed, again.dropped, again.unchanged), (0, 0, 3));
    let synced = f.sync();
    assert_eq!((synced.raw_dropped, synced.forgotten), (0, 0), "{synced:?}");
    assert!(!f.text().contains("pnpm"), "{}", f.text());
    assert_eq!(search("pnpm").len(), 1);
    // An edited section is replaced; a deleted file's text goes.
    std::fs::write(
        &claude,
        "# Build\n\nRun `make check-all` before every push.\n\n# Style\n\nNo unwrap in library code.\n",
    )
    .expect("write");
    std::fs::remove_file(&agents).expect("remove");
    let changed = follow(false);
    assert_eq!(
        (changed.indexed, changed.dropped, changed.unchanged),
        (1, 2, 1),
        "{changed:?}"
    );
    assert!(search("pnpm").is_empty());
    assert_eq!(search("check-all").len(), 1);
    // A file that cannot be read as text keeps what was read of it before.
    std::fs::write(&claude, [0xff, 0xfe, 0x00, 0x41]).expect("write");
    let unreadable = follow(false);
    assert_eq!(unreadable.dropped, 0, "{unreadable:?}");
    assert_eq!(unreadable.warnings.len(), 1, "{unreadable:?}");
    assert_eq!(search("check-all").len(), 1);
}
