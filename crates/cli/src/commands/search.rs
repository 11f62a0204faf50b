//! `cairn search`: the query language, fuzzy cascade and fused ranking, under filters.

use anyhow::Result;
use cairn_core::api::{Found, SearchInput};
use cairn_core::search::{FuzzyMode, SearchMode, SearchRequest};

use crate::app::App;
use crate::args::SearchArgs;
use crate::outcome::Outcome;
use crate::output::{SessionView, View};

pub fn run(app: &App, args: &SearchArgs) -> Result<Outcome> {
    if args.observations {
        return observations(app, args);
    }
    let request = SearchRequest {
        query: args.query.join(" "),
        filter: app.filter(&args.filter)?,
        limit: args.limit.unwrap_or(app.config.search.default_limit),
        offset: args.offset,
        strict: args.all,
        fuzzy: match (args.fuzzy, args.no_fuzzy) {
            (true, _) => FuzzyMode::Always,
            (_, true) => FuzzyMode::Never,
            _ => FuzzyMode::Auto,
        },
        threshold: args.threshold,
        mode: args.mode.map(SearchMode::from),
        // Searching every project from one still ranks that project's memories first.
        from_project: match args.filter.project.global {
            true => None,
            false => Some(app.project(&args.filter.project)?),
        },
    };
    let results = app.api.search_request(&app.operator(), &request)?;
    for notice in &results.notices {
        app.out.notice(notice);
    }
    if !app.api.has_model() && app.config.embedding.enabled {
        app.semantic_off_notice();
    }
    app.out.print(&View::Search {
        query: &request.query,
        results: &results,
        explain: args.explain,
        budget: args.budget,
    })?;
    Ok(if results.hits.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// `--observations`: what agents did, through the same conversion as MCP and HTTP (which
/// refuses memory-only filters by name), in this project unless told otherwise.
fn observations(app: &App, args: &SearchArgs) -> Result<Outcome> {
    let input = SearchInput {
        query: args.query.join(" "),
        mode: None,
        limit: args.limit,
        offset: args.offset,
        all_words: args.all,
        observations: true,
        filter: app.filter_input(&args.filter)?,
    };
    let caller = app.caller(&args.filter.project, args.filter.all_projects)?;
    let Found::Observations(hits) = app.api.search(&caller, input)? else {
        unreachable!("a search of observations finds observations")
    };
    app.out
        .print(&View::Session(SessionView::Observations(&hits)))?;
    Ok(if hits.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}
