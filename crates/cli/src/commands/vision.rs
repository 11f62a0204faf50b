//! `cairn vision search`: images by the words they show and by how they look; `cairn vision
//! embed`: one stored image looked at now.
//!
//! The query picture may be any file the user can read, or a stored image's id; the search
//! itself is the one MCP and HTTP clients get (`Api::vision_search`), as is the look at one
//! image (`Api::embed_image`).

use std::path::Path;

use anyhow::{Result, bail};
use cairn_core::api::{VisionEmbedInput, VisionSearchInput};
use cairn_core::image::ImageId;
use cairn_core::search::SearchMode;

use crate::app::App;
use crate::args::{VisionCommand, VisionEmbedArgs, VisionSearchArgs};
use crate::outcome::Outcome;
use crate::output::{ImageView, View};

pub fn run(app: &App, command: &VisionCommand) -> Result<Outcome> {
    match command {
        VisionCommand::Search(args) => search(app, args),
        VisionCommand::Embed(args) => embed(app, args),
    }
}

fn embed(app: &App, args: &VisionEmbedArgs) -> Result<Outcome> {
    let caller = app.caller(&args.project, false)?;
    let input = VisionEmbedInput {
        image_ref: args.image.clone(),
        ..VisionEmbedInput::default()
    };
    let looked = app.api.embed_image(&caller, input)?;
    app.out
        .print(&View::Image(ImageView::ImageLooked(&looked)))?;
    Ok(Outcome::Done)
}

fn search(app: &App, args: &VisionSearchArgs) -> Result<Outcome> {
    let mut filter = app.filter_input(&args.filter)?;
    filter.session = args.session.clone();
    let mut input = VisionSearchInput {
        query_text: Some(args.text.join(" ")).filter(|t| !t.trim().is_empty()),
        top_k: args.top_k.map(serde_json::Value::from),
        mode: args.mode.map(SearchMode::from),
        filter,
        ..VisionSearchInput::default()
    };
    let caller = app.caller(&args.filter.project, args.filter.all_projects)?;
    let found = match args.image.as_deref() {
        Some(image) if Path::new(image).exists() => {
            app.api
                .vision_search_with_file(&caller, input, Path::new(image))?
        }
        Some(image) if ImageId::parse(image).is_ok() => {
            input.image_ref = Some(image.to_string());
            app.api.vision_search(&caller, input)?
        }
        Some(image) => bail!("--image: '{image}' is neither a file nor a stored image's id"),
        None => app.api.vision_search(&caller, input)?,
    };
    for notice in &found.notices {
        app.out.notice(notice);
    }
    app.out.print(&View::Image(ImageView::Vision(&found)))?;
    Ok(if found.hits.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}
