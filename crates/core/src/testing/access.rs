//! The suite's access behaviours: tokens issued, listed, authenticated and revoked in the
//! store; and what a token's caller may read and write through [`Api`], on each backend's own
//! filters.

use jiff::Span;
use serde_json::{Value, json};

use super::{Harness, StoreFactory, local};
use crate::Error;
use crate::access::{Access, NewToken, Right};
use crate::api::{Api, Caller, Found};
use crate::exchange::ExportOptions;
use crate::memory::Source;
use crate::scope::{ProjectName, Scope};

fn project(name: &str) -> ProjectName {
    ProjectName::new(name).expect("valid project")
}

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid input")
}

fn operator() -> Caller {
    Caller {
        access: Access::Full,
        default_project: None,
        source: Source::Http,
        agent: None,
    }
}

fn forbidden<T: std::fmt::Debug>(result: crate::Result<T>) -> String {
    match result {
        Err(error @ Error::Forbidden { .. }) => error.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

pub fn tokens_are_issued_listed_authenticated_and_revoked(factory: StoreFactory) {
    let h = Harness::new(factory);
    let api = &h.api;
    assert!(!api.tokens_required().unwrap());
    let reader = api
        .issue_token(
            &local(),
            NewToken {
                project: project("acme"),
                right: Right::Read,
                name: Some("  ci bot ".into()),
            },
        )
        .unwrap();
    h.clock.advance(Span::new().seconds(1));
    let writer = api
        .issue_token(
            &local(),
            NewToken {
                project: project("beta"),
                right: Right::Write,
                name: None,
            },
        )
        .unwrap();
    assert_ne!(reader.token, writer.token);
    assert!(api.tokens_required().unwrap());

    let listed = api.tokens(&local()).unwrap();
    assert_eq!(listed, vec![reader.record.clone(), writer.record.clone()]);
    assert_eq!(listed[0].name.as_deref(), Some("ci bot"));
    assert_eq!(listed[1].right, Right::Write);

    let grant = api.authenticate(&reader.token).unwrap().unwrap();
    assert_eq!(
        (grant.token, grant.project, grant.right),
        (reader.record.id.clone(), project("acme"), Right::Read)
    );
    // Surrounding spaces are forgiven; any other change is another (unknown) token.
    assert!(
        api.authenticate(&format!(" {} ", writer.token))
            .unwrap()
            .is_some()
    );
    let mut altered = writer.token.clone();
    altered.pop();
    altered.push('x');
    assert_eq!(api.authenticate(&altered).unwrap(), None);
    assert_eq!(api.authenticate("").unwrap(), None);

    // A bad name is refused by name and nothing is written.
    let error = api
        .issue_token(
            &local(),
            NewToken {
                project: project("acme"),
                right: Right::Read,
                name: Some("x".repeat(201)),
            },
        )
        .unwrap_err();
    assert_eq!(error.field(), Some("name"));
    assert_eq!(api.tokens(&local()).unwrap().len(), 2);

    h.clock.advance(Span::new().seconds(5));
    let revoked = api
        .revoke_token(&local(), reader.record.id.as_str())
        .unwrap();
    let when = revoked.revoked_at.expect("revoked");
    assert_eq!(api.authenticate(&reader.token).unwrap(), None);
    h.clock.advance(Span::new().seconds(5));
    let again = api
        .revoke_token(&local(), reader.record.id.as_str())
        .unwrap();
    assert_eq!(
        again.revoked_at,
        Some(when),
        "revoking again changes nothing"
    );
    assert!(api.tokens_required().unwrap(), "the writer is still live");
    api.revoke_token(&local(), writer.record.id.as_str())
        .unwrap();
    assert!(!api.tokens_required().unwrap());
    assert_eq!(
        api.tokens(&local()).unwrap().len(),
        2,
        "revoked tokens stay listed"
    );

    let error = api.revoke_token(&local(), "0123456789ab").unwrap_err();
    assert!(
        matches!(&error, Error::Missing { field, .. } if field == "id"),
        "{error}"
    );
    assert_eq!(
        api.revoke_token(&local(), "nope").unwrap_err().field(),
        Some("id")
    );
}

/// A store with memories in projects acme and beta and in the global scope, and the callers of
/// an acme read token and an acme write token.
struct Team {
    api: Api,
    reader: Caller,
    writer: Caller,
    acme: String,
    beta: String,
    global: String,
}

impl Team {
    fn new(factory: StoreFactory) -> Team {
        let h = Harness::new(factory);
        let api = h.api;
        let store = |content: &str, scope: Value| -> String {
            let mut fields = json!({"content": content, "tags": ["deploy"]});
            match scope {
                Value::Null => fields["global"] = json!(true),
                project => fields["project"] = project,
            }
            api.store(&operator(), input(fields))
                .unwrap()
                .memory
                .id
                .to_string()
        };
        let acme = store(
            "acme deploys the gateway with blue green rollout",
            json!("acme"),
        );
        let beta = store("beta deploys the gateway by hand on fridays", json!("beta"));
        let global = store("every team deploys the gateway behind a flag", Value::Null);
        let caller = |right| {
            let issued = api
                .issue_token(
                    &operator(),
                    NewToken {
                        project: project("acme"),
                        right,
                        name: None,
                    },
                )
                .unwrap();
            let grant = api.authenticate(&issued.token).unwrap().unwrap();
            operator().granted(Access::Token(grant))
        };
        let (reader, writer) = (caller(Right::Read), caller(Right::Write));
        Team {
            api,
            reader,
            writer,
            acme,
            beta,
            global,
        }
    }

    fn found(&self, caller: &Caller, query: Value) -> Vec<String> {
        match self.api.search(caller, input(query)).unwrap() {
            Found::Memories(results) => results
                .hits
                .iter()
                .map(|hit| hit.memory.id.to_string())
                .collect(),
            Found::Observations(_) => panic!("asked for memories"),
        }
    }
}

pub fn a_token_reads_only_its_project_and_the_global_scope(factory: StoreFactory) {
    let team = Team::new(factory);
    let api = &team.api;
    let reader = &team.reader;

    // Reads that name no project, or ask for every project, see acme's and global memories.
    let mut seen = team.found(reader, json!({"query": "gateway"}));
    seen.sort();
    let mut expected = vec![team.acme.clone(), team.global.clone()];
    expected.sort();
    assert_eq!(seen, expected);
    let mut everywhere = team.found(reader, json!({"query": "gateway", "all_projects": true}));
    everywhere.sort();
    assert_eq!(everywhere, expected);
    let listed = api
        .list(reader, input(json!({"all_projects": true})))
        .unwrap();
    assert_eq!(listed.total, 2);
    let tags = api
        .tags(reader, input(json!({"all_projects": true})))
        .unwrap();
    assert_eq!(tags[0].count, 2, "{tags:?}");
    // The operator sees all three.
    assert_eq!(
        team.found(&operator(), json!({"query": "gateway"})).len(),
        3
    );

    // Naming another project, or one of its memories, is refused.
    let message = forbidden(api.search(
        reader,
        input(json!({"query": "gateway", "project": "beta"})),
    ));
    assert!(message.contains("project 'beta'"), "{message}");
    forbidden(api.list(reader, input(json!({"project": "beta"}))));
    forbidden(api.get(reader, &input(json!({"ids": [team.beta]}))));
    forbidden(api.get(reader, &input(json!({"ids": [team.acme, team.beta]}))));
    let target = crate::IdRef::parse(&team.beta).unwrap();
    forbidden(api.resolve(reader, &target, false));
    forbidden(api.history(reader, &target));
    forbidden(api.context(reader, input(json!({"project": "beta"}))));
    forbidden(api.sessions(reader, input(json!({"project": "beta"}))));
    forbidden(api.slots(reader, &input(json!({"project": "beta"}))));
    assert_eq!(
        api.get(reader, &input(json!({"ids": [team.acme, team.global]})))
            .unwrap()
            .len(),
        2
    );

    // Whole-store operations and every write are the operator's or a writer's.
    forbidden(api.stats(reader));
    forbidden(api.export(reader, ExportOptions::default(), &mut |_| Ok(())));
    forbidden(api.tokens(reader));
    forbidden(api.store(reader, input(json!({"content": "a reader writes"}))));
    forbidden(api.update(reader, &team.acme, input(json!({"content": "changed"}))));
    forbidden(api.forget(reader, &team.acme, false));
    let pending = input(json!({"content": "- a reader's note"}));
    forbidden(api.append_slot(reader, "pending_items", &pending));
}

pub fn a_write_token_writes_only_its_own_project(factory: StoreFactory) {
    let team = Team::new(factory);
    let api = &team.api;
    let writer = &team.writer;

    // A write that names no project lands in the token's.
    let stored = api
        .store(
            writer,
            input(json!({"content": "acme rotates its keys monthly"})),
        )
        .unwrap();
    assert_eq!(stored.memory.scope, Scope::Project(project("acme")));
    api.update(writer, &team.acme, input(json!({"title": "acme deploys"})))
        .unwrap();

    // Global memories and other projects are not the token's to write.
    let message =
        forbidden(api.store(writer, input(json!({"content": "for all", "global": true}))));
    assert!(message.contains("the global scope"), "{message}");
    forbidden(api.store(
        writer,
        input(json!({"content": "beta too", "project": "beta"})),
    ));
    forbidden(api.update(writer, &team.beta, input(json!({"content": "taken over"}))));
    forbidden(api.update(
        writer,
        &team.global,
        input(json!({"content": "taken over"})),
    ));
    forbidden(api.forget(writer, &team.beta, true));
    forbidden(api.import(writer, &mut std::io::Cursor::new(b"".to_vec()), &mut |_| {}));
    let target = crate::IdRef::parse(&team.beta).unwrap();
    let beta = api.resolve(&operator(), &target, false).unwrap();
    assert_eq!(beta.content, "beta deploys the gateway by hand on fridays");

    // Slot edits go to the project's slot, never the global one of that label.
    let note = input(json!({"content": "- acme: renew the certificate"}));
    let slot = api.append_slot(writer, "pending_items", &note).unwrap();
    assert_eq!(slot.scope, Scope::Project(project("acme")));
    forbidden(api.append_slot(
        writer,
        "persona",
        &input(json!({"content": "x", "scope": "global"})),
    ));
    forbidden(api.append_slot(
        writer,
        "pending_items",
        &input(json!({"content": "x", "project": "beta"})),
    ));
    // `persona` is a global default: without a scope an operator's append would reach the
    // global slot; a token's is pinned to its project's, which does not exist.
    let before = api
        .slot(&operator(), "persona", &input(json!({"scope": "global"})))
        .unwrap();
    let error = api
        .append_slot(writer, "persona", &input(json!({"content": "- terse"})))
        .unwrap_err();
    assert!(
        matches!(&error, Error::Missing { field, .. } if field == "label"),
        "{error}"
    );
    let after = api
        .slot(&operator(), "persona", &input(json!({"scope": "global"})))
        .unwrap();
    assert_eq!(before.content, after.content);
    forbidden(api.create_slot(
        writer,
        input(json!({"label": "team_notes", "scope": "global"})),
    ));
}
