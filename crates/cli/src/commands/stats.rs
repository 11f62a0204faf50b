//! `cairn stats`: what is in the store.

use anyhow::Result;
use cairn_core::memory::MemoryFilter;

use crate::app::App;
use crate::args::StatsArgs;
use crate::outcome::Outcome;
use crate::output::View;

/// Tags shown by `stats --tags`.
const TOP_TAGS: usize = 20;

pub fn run(app: &App, args: &StatsArgs) -> Result<Outcome> {
    let stats = app.api.stats(&app.operator())?;
    let tags = if args.tags {
        let mut all = app
            .api
            .tag_counts(&app.operator(), &MemoryFilter::default())?;
        all.truncate(TOP_TAGS);
        Some(all)
    } else {
        None
    };
    let location = app.api.store_location();
    let (images, _) = app.api.image_totals()?;
    app.out.print(&View::Stats {
        stats: &stats,
        location: &location,
        tags: tags.as_deref(),
        agents: args.agents,
        images,
    })?;
    Ok(Outcome::Done)
}
