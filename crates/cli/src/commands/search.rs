//! `cairn search`: ranked keyword search under filters.

use anyhow::Result;
use cairn_core::search::SearchRequest;

use super::Outcome;
use crate::app::App;
use crate::args::SearchArgs;
use crate::output::View;

pub fn run(app: &App, args: &SearchArgs) -> Result<Outcome> {
    let request = SearchRequest {
        query: args.query.join(" "),
        filter: app.filter(&args.filter)?,
        limit: args.limit.unwrap_or(app.config.search.default_limit),
        offset: args.offset,
        strict: args.all,
    };
    let hits = app.service.search(&request)?;
    app.out.print(&View::Search {
        query: &request.query,
        hits: &hits,
    })?;
    Ok(if hits.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}
