//! `cairn conflicts …`: pending judgments, verdicts, comparisons and scans, through the same
//! input types and [`Api`](cairn_core::api::Api) calls as the MCP tools and REST routes, and the
//! deferred relations an import keeps (the operator's: they span every project). A
//! verdict from the command line is a person's: actor kind `user`, named `--actor` or `$USER`.

use anyhow::Result;
use cairn_core::api::{CompareInput, ConflictsInput, DeferredInput, ScanInput, VerdictInput};
use cairn_core::relation::{ActorKind, RelationKind, RelationStatus};

use crate::app::App;
use crate::args::{
    ConflictDeferredArgs, ConflictsCommand, ConflictsScopeArgs, ProjectArgs, VerdictArgs,
};
use crate::outcome::Outcome;
use crate::output::{DeferredView, RelationsView, View};

pub fn run(app: &App, command: &ConflictsCommand) -> Result<Outcome> {
    let api = &app.api;
    let caller = app.caller(&ProjectArgs::default(), false)?;
    match command {
        ConflictsCommand::List(args) => {
            let input = ConflictsInput {
                status: args
                    .status
                    .as_deref()
                    .map(str::parse::<RelationStatus>)
                    .transpose()?,
                since: args.since.clone(),
                limit: Some(args.limit),
                ..scope_input(&args.scope)
            };
            let relations = api.conflicts(&caller, input)?;
            app.out
                .print(&View::Relation(RelationsView::Relations(&relations)))?;
        }
        ConflictsCommand::Show(args) => {
            let relation = api.conflict(&app.operator(), &args.id)?;
            app.out.print(&View::Relation(RelationsView::Relation {
                status: None,
                relation: &relation,
            }))?;
        }
        ConflictsCommand::Stats(args) => {
            let stats = api.conflict_stats(&caller, &scope_input(args))?;
            app.out
                .print(&View::Relation(RelationsView::RelationStats(&stats)))?;
        }
        ConflictsCommand::Judge(args) => {
            let relation = api.judge_id(&caller, &args.id, verdict(&args.verdict)?)?;
            app.out.print(&View::Relation(RelationsView::Relation {
                status: Some("judged"),
                relation: &relation,
            }))?;
        }
        ConflictsCommand::Compare(args) => {
            let input = CompareInput {
                a: args.a.clone(),
                b: args.b.clone(),
                verdict: verdict(&args.verdict)?,
            };
            let compared = api.compare(&caller, input)?;
            app.out
                .print(&View::Relation(RelationsView::Compared(&compared)))?;
        }
        ConflictsCommand::Scan(args) => {
            let input = ScanInput {
                project: args.project.clone(),
                global: args.global,
                apply: args.apply,
                max_insert: Some(args.max_insert),
                semantic: args.semantic,
            };
            let bar = crate::output::progress::bar(&app.out);
            bar.set_message("scanning");
            let report = api.scan_conflicts(&caller, input, &mut |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            })?;
            bar.finish_and_clear();
            app.out
                .print(&View::Relation(RelationsView::Scan(&report)))?;
        }
        ConflictsCommand::Deferred(args) => return deferred(app, args),
    }
    Ok(Outcome::Done)
}

/// `cairn conflicts deferred`: the queue, one of it, a replay or a discard.
fn deferred(app: &App, args: &ConflictDeferredArgs) -> Result<Outcome> {
    let (api, operator) = (&app.api, app.operator());
    let view = if let Some(id) = &args.inspect {
        DeferredView::One {
            status: None,
            deferred: Box::new(api.deferred_relation(&operator, id)?),
        }
    } else if let Some(id) = &args.discard {
        DeferredView::One {
            status: Some("discarded"),
            deferred: Box::new(api.discard_deferred(&operator, id)?),
        }
    } else if args.replay {
        DeferredView::Replay(api.replay_deferred(&operator)?)
    } else {
        let input = DeferredInput {
            status: args.status.clone(),
            limit: Some(args.limit),
        };
        DeferredView::List(api.deferred_relations(&operator, &input)?)
    };
    app.out
        .print(&View::Relation(RelationsView::Deferred(&view)))?;
    Ok(Outcome::Done)
}

fn scope_input(args: &ConflictsScopeArgs) -> ConflictsInput {
    ConflictsInput {
        project: args.project.clone(),
        global: args.global,
        all_projects: args.all_projects,
        ..ConflictsInput::default()
    }
}

/// A person's verdict from the flags.
fn verdict(args: &VerdictArgs) -> Result<VerdictInput> {
    Ok(VerdictInput {
        relation: Some(args.relation.parse::<RelationKind>()?),
        reason: args.reason.clone(),
        evidence: args.evidence.clone(),
        confidence: args.confidence,
        actor_kind: Some(ActorKind::User),
        actor: args.actor.clone().or_else(|| std::env::var("USER").ok()),
        model: None,
        session_id: None,
    })
}
