//! Images kept with memories, end to end: the CLI reads a file, MCP (the real Python SDK) and
//! HTTP (`cairn serve`) send the same picture inline, and all three land on one stored file,
//! which goes with the last memory that shows it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_core::testing::{files_under, test_png};
use serde_json::{Value, json};

use super::{Sandbox, Served, mcp_calls, python_with_mcp_sdk};

fn sha256_hex(bytes: &[u8]) -> String {
    cairn_core::image::ImageId::of(bytes).to_string()
}

/// A sandbox whose CLI stored one screenshot (`shot.png`) with a caption; the picture, and
/// what `cairn store` answered.
fn stored_by_the_cli() -> (Sandbox, Vec<u8>, Value) {
    let s = Sandbox::new();
    let png = test_png(120, 40, 11);
    std::fs::write(s.project.join("shot.png"), &png).unwrap();
    let by_cli = s.ok_json(&[
        "store",
        "--image",
        "shot.png",
        "psql: connection refused on port 5432",
    ]);
    (s, png, by_cli)
}

#[test]
fn an_image_stored_through_the_cli_and_http_is_one_file_until_its_last_memory_goes() {
    let (s, png, by_cli) = stored_by_the_cli();
    assert_eq!(by_cli["status"], "created");
    assert_eq!(by_cli["image"]["id"], sha256_hex(&png));
    assert_eq!(by_cli["image"]["width"], 120);
    let untitled = s.ok_json(&["store", "--image", "shot.png"]);
    assert_eq!(untitled["status"], "created");
    let caption = untitled["memory"]["content"].as_str().unwrap();
    assert!(
        caption.starts_with("Image shot.png (PNG, 120×40, "),
        "{caption}"
    );
    // A listing shows each memory's image, as `GET /v1/memories` does.
    let listed = s.ok_json(&["list"]);
    for listed in listed["memories"].as_array().unwrap() {
        assert_eq!(listed["images"][0]["id"], sha256_hex(&png), "{listed}");
    }
    let shown = s.ok_json(&["get", by_cli["memory"]["id"].as_str().unwrap()]);
    let file = shown[0]["images"][0]["file"].as_str().unwrap().to_string();
    assert_eq!(
        std::fs::read(&file).unwrap(),
        png,
        "the store's copy is the picture"
    );
    let found = s.ok_json(&["search", "connection refused"]);
    assert_eq!(
        found["results"][0]["images"][0]["id"],
        sha256_hex(&png),
        "{found}"
    );
    assert!(
        file.starts_with(s.home.to_str().unwrap()),
        "kept beside the database: {file}"
    );

    // A file that is not a picture: refused with the field named, nothing stored.
    std::fs::write(s.project.join("notes.txt"), "just text").unwrap();
    let refused = s.run(&["store", "--image", "notes.txt", "a note"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("image: is not a PNG, JPEG, GIF or WebP"),
        "{}",
        refused.stderr
    );
    assert_eq!(s.total(), 2);

    let inline = format!("data:image/png;base64,{}", STANDARD.encode(&png));
    let mut ids = vec![
        by_cli["memory"]["id"].clone(),
        untitled["memory"]["id"].clone(),
    ];
    let token = "images-test-token-0123456789";
    let served = Served::start(&s, &["--project", "acme"], token);
    let (status, stored) = served.post(
        "/v1/memories",
        token,
        &json!({"content": "the staging login shows it too", "image": inline}),
    );
    assert_eq!(status, 201, "{stored}");
    assert_eq!(stored["image"]["id"], sha256_hex(&png));
    ids.push(stored["memory"]["id"].clone());
    let (status, got) = served.get(
        &format!("/v1/memories/{}", stored["memory"]["id"].as_str().unwrap()),
        token,
    );
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["images"][0]["file"], file.as_str(), "{got}");
    drop(served);

    // One file for every memory; it goes with the last of them, not before.
    let image_files = |dir: &std::path::Path| {
        files_under(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "png"))
            .count()
    };
    let images_dir = s.home.join("cairn.db-images");
    assert_eq!(image_files(&images_dir), 1);
    let stats = s.ok_json(&["stats"]);
    // OCR and the look model are off in this sandbox: the image waits to be read and for its
    // look vector; its look was hashed by the CLI command that stored it.
    assert_eq!(
        stats["images"],
        json!({"images": 1, "bytes": png.len(), "unread": 1, "unhashed": 0, "without_vector": 1, "without_clip_vector": 1}),
        "{stats}"
    );
    // Exports do not carry images yet, and say so.
    let export = s.ok(&["export", "-"]);
    assert!(
        export
            .stderr
            .contains("leaves out the 1 image memories show"),
        "{}",
        export.stderr
    );
    let (last, others) = ids.split_last().unwrap();
    for id in others {
        s.ok(&["forget", "--purge", id.as_str().unwrap()]);
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        png,
        "still shown by one memory"
    );
    s.ok(&["forget", "--purge", last.as_str().unwrap()]);
    assert!(
        !std::path::Path::new(&file).exists(),
        "the last reference took the file"
    );
    assert_eq!(image_files(&images_dir), 0);
}

#[test]
fn vision_embed_looks_at_one_stored_image_by_its_id_and_refuses_an_unknown_one() {
    let (s, png, _) = stored_by_the_cli();
    let id = sha256_hex(&png);
    let looked = s.ok_json(&["vision", "embed", &id]);
    assert_eq!(looked["image"]["id"], json!(id));
    assert_eq!(looked["image"]["width"], 120);
    assert_eq!(looked["report"]["hashed"], 1, "{looked}");
    assert_eq!(looked["report"]["look_vectors"], 0, "no look model here");
    let text = s.ok(&["vision", "embed", &id]).stdout;
    assert!(text.starts_with(&format!("image {id} (")), "{text}");
    assert!(text.contains("its text is not read yet"), "{text}");
    let unknown = sha256_hex(b"never stored");
    let run = s.run(&["vision", "embed", &unknown]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("image_ref") && run.stderr.contains(&unknown),
        "{}",
        run.stderr
    );
}

#[test]
fn a_backup_keeps_its_images_and_a_restore_brings_them_back() {
    let s = Sandbox::new();
    let png = test_png(64, 48, 21);
    std::fs::write(s.project.join("dialog.png"), &png).unwrap();
    let stored = s.ok_json(&["store", "--image", "dialog.png", "the quota dialog"]);
    let id = stored["memory"]["id"].as_str().unwrap().to_string();
    let backup = s.home.with_file_name("copy.db");
    s.ok(&["backup", backup.to_str().unwrap()]);
    // The memory and its image go for good after the backup …
    s.ok(&["forget", "--purge", &id]);
    let file = s.home.join("cairn.db-images").join(&sha256_hex(&png)[..2]);
    let file = file.join(format!("{}.png", sha256_hex(&png)));
    assert!(!file.exists());
    // … and the restore brings both back: the record names a file that exists.
    s.ok(&["restore", "--force", backup.to_str().unwrap()]);
    let shown = s.ok_json(&["get", &id]);
    assert_eq!(shown[0]["images"][0]["file"], file.to_str().unwrap());
    assert_eq!(std::fs::read(&file).unwrap(), png);
}

/// The same picture sent inline through MCP (the real Python SDK) lands on the file the CLI
/// stored; a picture that is not base64 is refused naming the field; `memory_get` and
/// `memory_search` show the image.
#[test]
#[ignore = "needs the MCP Python SDK (CAIRN_PYTHON)"]
fn an_image_sent_through_mcp_is_the_file_the_cli_stored() {
    let python = python_with_mcp_sdk();
    let (s, png, by_cli) = stored_by_the_cli();
    let inline = format!("data:image/png;base64,{}", STANDARD.encode(&png));
    let calls = json!([
        {"tool": "memory_store", "arguments": {"content": "the dashboard shows the same refusal", "image": inline}},
        {"tool": "memory_store", "arguments": {"content": "broken", "image": "data:image/png;base64,%%%"}},
        {"tool": "memory_get", "arguments": {"ids": [by_cli["memory"]["id"]]}},
        {"tool": "memory_search", "arguments": {"query": "dashboard refusal"}},
    ]);
    let answers = mcp_calls(&s, &python, &calls);
    let stored: Value = serde_json::from_str(answers[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(stored["status"], "created", "{stored}");
    assert_eq!(stored["image"]["id"], sha256_hex(&png));
    assert_ne!(stored["memory"]["id"], by_cli["memory"]["id"]);
    assert_eq!(answers[1]["is_error"], true);
    assert!(
        answers[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("image: is not valid base64")
    );
    let got: Value = serde_json::from_str(answers[2]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        got["memories"][0]["images"][0]["id"],
        sha256_hex(&png),
        "{got}"
    );
    let found: Value = serde_json::from_str(answers[3]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        found["results"][0]["images"][0]["id"],
        sha256_hex(&png),
        "{found}"
    );
    let pngs = files_under(&s.home.join("cairn.db-images"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .count();
    assert_eq!(pngs, 1, "one file for both memories");
}
