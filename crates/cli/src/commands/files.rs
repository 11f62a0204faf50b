//! `cairn files …`: a project's memories as markdown files — `init`, `sync`, `status` — and
//! `cairn add` (the `memory_add` contract), through [`Api`](cairn_core::api::Api), like every
//! other command.

use anyhow::Result;
use cairn_core::api::{AddInput, AddOutcome, Caller};

use crate::app::App;
use crate::args::{AddArgs, FilesCommand, ProjectArgs};
use crate::outcome::Outcome;
use crate::output::{FilesView, View};

pub fn run(app: &App, command: &FilesCommand) -> Result<Outcome> {
    let api = &app.api;
    match command {
        FilesCommand::Init(args) => {
            let caller = caller(app, args.project.as_deref())?;
            let root = match &args.root {
                Some(root) => std::path::absolute(root)?,
                None => app.project_root(),
            };
            let dir = args.dir.as_deref().unwrap_or(&app.config.files.dir);
            let report = api.init_files(&caller, &root, dir)?;
            app.out
                .print(&View::Files(FilesView::FilesSynced(std::slice::from_ref(
                    &report,
                ))))?;
        }
        FilesCommand::Sync(args) => {
            let caller = caller(app, args.project.as_deref())?;
            let reports = api.sync_files(&caller, args.all, args.dry_run)?;
            app.out
                .print(&View::Files(FilesView::FilesSynced(&reports)))?;
        }
        FilesCommand::Export(args) => {
            let caller = caller(app, args.project.as_deref())?;
            let export = api.export_files(&caller, args.dry_run)?;
            app.out
                .print(&View::Files(FilesView::FilesExported(&export)))?;
        }
        FilesCommand::Status => {
            let workspaces = api.workspaces()?;
            app.out
                .print(&View::Files(FilesView::Workspaces(&workspaces)))?;
        }
    }
    Ok(Outcome::Done)
}

/// `cairn add`: the memory_add answer, printed whatever it is; exit status 2 for `failed`.
pub fn add(app: &App, args: &AddArgs) -> Result<Outcome> {
    let caller = caller(app, args.project.as_deref())?;
    let input = AddInput {
        text: args.text.clone().unwrap_or_default(),
        category: args.category.clone(),
    };
    let outcome = app.api.add(&caller, input)?;
    app.out.print(&View::Files(FilesView::Added(&outcome)))?;
    Ok(match outcome {
        AddOutcome::Failed { .. } => Outcome::Refused,
        _ => Outcome::Done,
    })
}

/// The caller for a files command: the named project, else the detected one.
pub(super) fn caller(app: &App, project: Option<&str>) -> Result<Caller> {
    let args = ProjectArgs {
        project: project.map(str::to_string),
        global: false,
    };
    Ok(Caller {
        default_project: Some(app.project(&args)?),
        ..app.operator()
    })
}
