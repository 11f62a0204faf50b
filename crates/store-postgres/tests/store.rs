//! The PostgreSQL backend against the shared behavioural suite, and what only it does (what a
//! bulk write settles after its commit, the two plans of a ranking window), each test in a
//! fresh schema of the server `CAIRN_TEST_POSTGRES` names (a URL; `.ci/run` starts a throwaway
//! server and sets it). Every test here is ignored unless asked for (`--include-ignored`), and
//! fails saying so when asked for without a server.

use cairn_core::config::Config;
use cairn_core::scope::Scope;
use cairn_core::store::Store;
use cairn_core::{Api, ApiParts};
use cairn_store_postgres::BULK_MIN_INSERTS;
use cairn_store_postgres::testing::{fresh_store, test_server};

/// A store in a schema of its own, new for every call.
fn fresh_schema() -> Box<dyn Store> {
    let server = test_server();
    let (store, _) = fresh_store(&server, "test").expect("a store in a fresh schema");
    Box::new(store)
}

cairn_core::store_behaviour_suite!(
    fresh_schema,
    ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"
);

/// An import of many memories samples the tables it grew and empties the pending lists of the
/// text and vocabulary indexes as it commits (so the searches that follow are planned from real
/// statistics and read the indexes alone, not a minute later by autovacuum); a smaller write
/// leaves both to autovacuum. `analyze_count` counts only explicit `ANALYZE`s. Each memory
/// brings a new word (its number spelled in letters), as an import of real text does.
#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_bulk_import_settles_the_tables_it_grew() {
    let server = test_server();
    let (store, url) = fresh_store(&server, "bulk").expect("a store in a fresh schema");
    let api = Api::open(ApiParts::new(Box::new(store)), &Config::default());
    let mut observer = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let sampled = |observer: &mut postgres::Client| -> (i64, f32) {
        let row = observer
            .query_one(
                "SELECT s.analyze_count, c.reltuples FROM pg_stat_user_tables s \
                 JOIN pg_class c ON c.oid = s.relid \
                 WHERE s.schemaname = current_schema() AND s.relname = 'memories'",
                &[],
            )
            .expect("the memories table's statistics");
        (row.get(0), row.get(1))
    };
    let mut next = 0;
    let mut import = |count: u64| {
        let spelled = |mut n: u64| {
            let mut word = String::from("word");
            loop {
                word.push(char::from(b'a' + (n % 26) as u8));
                n /= 26;
                if n == 0 {
                    return word;
                }
            }
        };
        let lines: String = (next..next + count)
            .map(|n| {
                let word = spelled(n);
                format!("{{\"content\": \"bulk memory {word} of the import\"}}\n")
            })
            .collect();
        next += count;
        let report = api
            .import(
                &cairn_core::testing::local(),
                &mut lines.as_bytes(),
                &mut |_| {},
            )
            .expect("import");
        assert_eq!(report.memories.created, count);
    };

    import(BULK_MIN_INSERTS - 1);
    assert_eq!(
        sampled(&mut observer).0,
        0,
        "an ordinary write sampled the tables"
    );

    import(BULK_MIN_INSERTS);
    let (count, rows) = sampled(&mut observer);
    assert_eq!(count, 1, "a bulk import did not sample the tables");
    assert_eq!(
        rows,
        (2 * BULK_MIN_INSERTS - 1) as f32,
        "the sample was not taken after the commit"
    );
    for index in ["memories_fts", "vocabulary_trigrams"] {
        let pending: i64 = observer
            .query_one(
                &format!("SELECT gin_clean_pending_list('{index}'::regclass)"),
                &[],
            )
            .expect("an index's pending list")
            .get(0);
        assert_eq!(pending, 0, "a bulk import left {index}'s pending list full");
    }
}

/// A window of the newest matches comes out the same whichever way PostgreSQL is told to find
/// it (`text::newest_matches`): through the text index for a word in a few memories (fewer
/// holders than √(window × pages)), by walking the table newest first for a word in most.
#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn a_window_holds_the_newest_matches_by_either_plan() {
    use cairn_core::memory::{MemoryFilter, MemoryStore};
    use cairn_core::query::Match;
    use cairn_core::{Memory, Source};
    let server = test_server();
    let (store, _) = fresh_store(&server, "window").expect("a store in a fresh schema");
    let now = jiff::Timestamp::now();
    let memories: Vec<Memory> = (0..BULK_MIN_INSERTS as usize)
        .map(|i| {
            let word = match i {
                _ if i % 200 == 100 => "rare",
                _ if i % 5 < 3 => "common",
                _ => "other",
            };
            Memory::plain(
                format!("{word} memory number {i}, with some text to fill its page"),
                Scope::Global,
                Source::Cli,
                now,
            )
        })
        .collect();
    // One bulk write: the tables are analysed after it, so the store knows its pages.
    store
        .write(&mut |tx| memories.iter().try_for_each(|m| tx.insert(m)))
        .expect("write");
    let window = 3;
    for word in ["rare", "common"] {
        let mut newest: Vec<_> = memories
            .iter()
            .rev()
            .filter(|m| m.content.starts_with(word))
            .take(window)
            .map(|m| m.id)
            .collect();
        let mut found: Vec<_> = store
            .lexical(
                &Match::Term(word.into()),
                &MemoryFilter::default(),
                now,
                10,
                window,
            )
            .expect("lexical")
            .into_iter()
            .map(|hit| hit.id)
            .collect();
        newest.sort();
        found.sort();
        assert_eq!(
            found, newest,
            "the newest {window} memories holding '{word}'"
        );
    }
}

/// Every single-edit typo of a word of five letters or more — two neighbours swapped, a letter
/// dropped, added or changed, anywhere — is proposed as a near-spelling through the trigram
/// index (`text::SIMILARITY_SETTING`), even when the words that begin alike are too many for
/// the first-two-letters lookup to reach it: fifty words two letters longer share each
/// target's first two letters and sort before it.
#[test]
#[ignore = "needs a PostgreSQL server (CAIRN_TEST_POSTGRES)"]
fn near_spellings_reach_every_single_edit_of_a_word_of_five_letters_or_more() {
    use cairn_core::memory::MemoryStore;
    use cairn_core::{Memory, Source};
    let server = test_server();
    let (store, _) = fresh_store(&server, "typos").expect("a store in a fresh schema");
    let targets = ["zjmor", "zqmorl", "zxnoprt", "zvmsnotl", "zkpomurnt"];
    let crowd_letters: Vec<char> = "bcdefghij".chars().collect();
    let mut texts: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
    for target in targets {
        let crowd: Vec<String> = (0..50)
            .map(|i| {
                let tail: String = (0..target.len() - 1)
                    .map(|k| crowd_letters[(i * 7 + k * 3 + i / 9) % crowd_letters.len()])
                    .collect();
                format!("{}a{tail}", &target[..2])
            })
            .collect();
        texts.push(crowd.join(" "));
    }
    let now = jiff::Timestamp::now();
    store
        .write(&mut |tx| {
            texts.iter().try_for_each(|text| {
                tx.insert(&Memory::plain(text, Scope::Global, Source::Cli, now))
            })
        })
        .expect("write");
    for target in targets {
        let letters: Vec<char> = target.chars().collect();
        let mut typos: Vec<String> = Vec::new();
        for at in 0..letters.len() {
            let edit = |change: &dyn Fn(&mut Vec<char>)| {
                let mut typo = letters.clone();
                change(&mut typo);
                typo.into_iter().collect::<String>()
            };
            if at + 1 < letters.len() {
                typos.push(edit(&|t| t.swap(at, at + 1)));
            }
            typos.push(edit(&|t| {
                t.remove(at);
            }));
            typos.push(edit(&|t| t.insert(at, 'w')));
            typos.push(edit(&|t| t[at] = 'w'));
        }
        for typo in typos {
            let proposed = store.similar_words(&typo, 40).expect("similar words");
            assert!(
                proposed.iter().any(|word| word == target),
                "{typo} should propose {target}: {proposed:?}"
            );
        }
    }
}
