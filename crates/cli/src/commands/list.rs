//! `cairn list` and `cairn tags`: browsing without a query.

use anyhow::Result;
use cairn_core::memory::{ListQuery, SortKey, SortOrder};

use crate::app::App;
use crate::args::{ListArgs, OrderArg, SortArg, TagsArgs};
use crate::outcome::Outcome;
use crate::output::View;

pub fn list(app: &App, args: &ListArgs) -> Result<Outcome> {
    let filter = app.filter(&args.filter)?;
    let query = ListQuery {
        filter,
        sort: match args.sort {
            SortArg::Created => SortKey::Created,
            SortArg::Updated => SortKey::Updated,
            SortArg::Expires => SortKey::Expires,
            SortArg::Content => SortKey::Content,
        },
        order: match args.order {
            OrderArg::Asc => SortOrder::Asc,
            OrderArg::Desc => SortOrder::Desc,
        },
        limit: args.limit,
        offset: args.offset,
    };
    let listing = app.api.listing(&app.operator(), &query)?;
    let images = app.api.images_of(&app.operator(), &listing.memories)?;
    app.out.print(&View::Listing {
        memories: &listing.memories,
        total: listing.total,
        images: &images,
    })?;
    Ok(Outcome::Done)
}

pub fn tags(app: &App, args: &TagsArgs) -> Result<Outcome> {
    let tags = app
        .api
        .tag_counts(&app.operator(), &app.filter(&args.filter)?)?;
    app.out.print(&View::Tags(&tags))?;
    Ok(Outcome::Done)
}
