//! Vision search end to end, without models: screenshots stored by the CLI get their looks
//! hashed before it exits; `cairn vision search` finds them by a picture (a file or a stored
//! image's id) and by words, folding copies of one screen into one hit; `cairn serve` answers
//! `POST /v1/vision/search` and refuses any image reference outside its image store; the MCP
//! tool (the real Python SDK) gives the same answer.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_core::testing::screen_png;
use serde_json::{Value, json};

use super::{Sandbox, Served, mcp_calls, python_with_mcp_sdk};

fn image_id(bytes: &[u8]) -> String {
    cairn_core::image::ImageId::of(bytes).to_string()
}

/// The ids of a hit and its copies, sorted.
fn screen_of(hit: &Value) -> Vec<String> {
    let mut ids = vec![hit["image"]["id"].as_str().unwrap().to_string()];
    for copy in hit["copies"].as_array().unwrap() {
        ids.push(copy.as_str().unwrap().to_string());
    }
    ids.sort();
    ids
}

/// Three screenshots stored through the CLI (a terminal, a smaller recoloured copy of it, a
/// dialog) and a probe that looks like the terminal, written in the project.
struct Screens {
    terminal: Vec<u8>,
    copy: Vec<u8>,
    dialog: Vec<u8>,
    probe: Vec<u8>,
    /// The ids of the terminal and its copy, sorted: one screen.
    both: Vec<String>,
}

fn stored_screens(s: &Sandbox) -> Screens {
    let (ink, paper) = ([225, 225, 215], [28, 28, 34]);
    let terminal = screen_png(640, 360, false, ink, paper, 1);
    let copy = screen_png(320, 180, false, [240, 200, 120], [40, 30, 20], 1);
    let dialog = screen_png(640, 360, true, ink, paper, 2);
    let probe = screen_png(800, 450, false, [200, 255, 200], [0, 20, 0], 1);
    for (name, bytes) in [
        ("terminal.png", &terminal),
        ("copy.png", &copy),
        ("dialog.png", &dialog),
        ("probe.png", &probe),
    ] {
        std::fs::write(s.project.join(name), bytes).unwrap();
    }
    s.ok_json(&[
        "store",
        "--image",
        "terminal.png",
        "deploy dashboard after the outage",
    ]);
    s.ok_json(&["store", "--image", "copy.png", "deploy dashboard, smaller"]);
    s.ok_json(&["store", "--image", "dialog.png", "a settings dialog"]);
    let mut both = vec![image_id(&terminal), image_id(&copy)];
    both.sort();
    Screens {
        terminal,
        copy,
        dialog,
        probe,
        both,
    }
}

#[test]
fn screenshots_are_found_by_their_look_and_their_words_through_the_cli_and_http() {
    let s = Sandbox::new();
    let Screens {
        terminal,
        copy,
        dialog,
        probe,
        both,
    } = stored_screens(&s);

    // By a picture the user names: the terminal, its copy folded in, nothing else alike.
    let found = s.ok_json(&["vision", "search", "--image", "probe.png"]);
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{found}");
    assert_eq!(screen_of(&hits[0]), both, "{found}");
    assert_eq!(hits[0]["memories"].as_array().unwrap().len(), 2, "{found}");
    assert_eq!(hits[0]["signals"][0]["signal"], "look");
    let thumbnail = hits[0]["thumbnail"].as_str().unwrap();
    assert!(std::path::Path::new(thumbnail).is_file(), "{found}");

    // By a stored image's id: itself first, its copy folded under it.
    let alike = s.ok_json(&["vision", "search", "--image", &image_id(&terminal)]);
    assert_eq!(
        alike["hits"][0]["image"]["id"],
        image_id(&terminal),
        "{alike}"
    );
    assert_eq!(alike["hits"][0]["copies"][0], image_id(&copy), "{alike}");

    // By words, for people: one screen, its copy named.
    let text = s.ok(&["vision", "search", "deploy", "dashboard"]).stdout;
    assert!(text.contains("same screen as"), "{text}");
    assert!(text.contains("text #1"), "{text}");

    // Nothing to look for, or a picture that is neither a file nor an id: refused.
    let nothing = s.run(&["vision", "search"]);
    assert_eq!(nothing.code, 2, "{}", nothing.stderr);
    assert!(nothing.stderr.contains("query_text"), "{}", nothing.stderr);
    let missing = s.run(&["vision", "search", "--image", "nowhere.png"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(missing.stderr.contains("nowhere.png"), "{}", missing.stderr);
    let none = s.run(&["vision", "search", "kubernetes"]);
    assert_eq!(none.code, 1, "nothing found: {}", none.stdout);

    // Over HTTP: inline pictures and stored ids; never a path outside the store.
    let token = "vision-test-token-0123456789";
    let served = Served::start(&s, &["--project", "acme"], token);
    let inline = format!("data:image/png;base64,{}", STANDARD.encode(&probe));
    let (status, answer) = served.post(
        "/v1/vision/search",
        token,
        &json!({"image_base64": inline, "all_projects": true, "top_k": 500}),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(screen_of(&answer["hits"][0]), both, "{answer}");
    let (status, answer) = served.post(
        "/v1/vision/search",
        token,
        &json!({"query_text": "settings dialog", "all_projects": true, "top_k": "many"}),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["hits"][0]["image"]["id"],
        image_id(&dialog),
        "{answer}"
    );
    let stored_file = found["hits"][0]["file"].as_str().unwrap();
    let (status, answer) = served.post(
        "/v1/vision/search",
        token,
        &json!({"image_ref": stored_file, "all_projects": true}),
    );
    assert_eq!(
        status, 200,
        "a path inside the store names its image: {answer}"
    );
    let images_dir = std::path::Path::new(stored_file)
        .parent()
        .unwrap()
        .parent()
        .unwrap();
    let outside = s.project.join("terminal.png");
    let link = images_dir.join("link.png");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    for reference in [
        "../../etc/passwd".to_string(),
        outside.display().to_string(),
        link.display().to_string(),
    ] {
        let (status, answer) =
            served.post("/v1/vision/search", token, &json!({"image_ref": reference}));
        assert_eq!(status, 400, "{reference}: {answer}");
        assert!(answer.to_string().contains("image_ref"), "{answer}");
    }
}

#[test]
#[ignore = "needs the MCP Python SDK (CAIRN_PYTHON)"]
fn screenshots_are_found_by_their_look_through_mcp() {
    let python = python_with_mcp_sdk();
    let s = Sandbox::new();
    let screens = stored_screens(&s);
    let calls = json!([
        {"tool": "memory_vision_search", "arguments": {"image_base64": STANDARD.encode(&screens.probe), "all_projects": true}},
        {"tool": "memory_vision_search", "arguments": {"image_ref": "/etc/hostname"}},
    ]);
    let answers = mcp_calls(&s, &python, &calls);
    let found: Value = serde_json::from_str(answers[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(screen_of(&found["hits"][0]), screens.both, "{found}");
    assert_eq!(answers[1]["is_error"], true, "{answers:?}");
    assert!(
        answers[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("image_ref:"),
        "{answers:?}"
    );
}

/// The cosine of two vectors of equal length.
fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum()
}

/// Each image's `clip` score in a vision search's answer (none when the signal did not list it).
fn clip_scores(found: &Value) -> Vec<(String, f64)> {
    let mut scores = Vec::new();
    for hit in found["hits"].as_array().unwrap() {
        for signal in hit["signals"].as_array().unwrap() {
            if signal["signal"] == "clip" {
                let id = hit["image"]["id"].as_str().unwrap().to_string();
                scores.push((id, signal["score"].as_f64().unwrap()));
            }
        }
    }
    scores
}

#[test]
fn with_a_clip_model_words_find_the_images_they_describe_through_cli_and_http() {
    // The tiny seeded CLIP model (cairn-embed's, checked there against an independent
    // implementation), as a user's CLIP directory.
    let clip = tempfile::tempdir().unwrap();
    let dir = clip.path().join("tiny-clip");
    std::fs::create_dir_all(&dir).unwrap();
    cairn_embed::clip::tiny::write_tiny_clip(&dir).unwrap();
    words_find_the_images_they_describe(&dir, "clip/tiny-clip", "clip");
}

#[test]
fn with_a_siglip_model_words_find_the_images_they_describe_on_its_own_scale() {
    // The tiny seeded SigLIP model, named as the CLIP directory: its images are listed from its
    // own calibration's floor, not CLIP's.
    let clip = tempfile::tempdir().unwrap();
    let dir = clip.path().join("tiny-siglip");
    std::fs::create_dir_all(&dir).unwrap();
    cairn_embed::siglip::tiny::write_tiny_siglip(&dir).unwrap();
    let scale = cairn_embed::clip::open_clip_model(&dir, "clip/tiny-siglip").match_scale();
    assert!(
        (scale.floor - cairn_core::image::CLIP_FLOOR).abs() > 0.05,
        "{scale:?}"
    );
    words_find_the_images_they_describe(&dir, "clip/tiny-siglip", "siglip");
}

#[test]
fn with_a_mobileclip_model_words_find_the_images_they_describe() {
    // The tiny seeded MobileCLIP (OpenCLIP's layout: timm's FastViT and OpenCLIP's text tower),
    // named as the CLIP directory.
    let clip = tempfile::tempdir().unwrap();
    let dir = clip.path().join("tiny-mobileclip");
    std::fs::create_dir_all(&dir).unwrap();
    cairn_embed::mobileclip::tiny::write_tiny_mobileclip(&dir).unwrap();
    words_find_the_images_they_describe(&dir, "clip/tiny-mobileclip", "mobileclip");
}

/// With the model in `dir` as the user's CLIP directory (recorded as `name`, of `kind`), five stored
/// screenshots get their vectors from the command that stored them, and for words their
/// captions do not hold, the CLI and `POST /v1/vision/search` list exactly the images whose
/// cosine with the words (computed here, by the library) passes the model's floor.
fn words_find_the_images_they_describe(dir: &std::path::Path, name: &str, kind: &str) {
    let model = cairn_embed::clip::open_clip_model(dir, name);
    let floor = model.match_scale().floor;
    let s = Sandbox::with_clip(dir);
    let colours = [
        ([250, 40, 30], [30, 10, 10]),
        ([40, 60, 250], [240, 240, 250]),
        ([30, 200, 60], [10, 30, 10]),
        ([230, 230, 230], [20, 20, 20]),
        ([250, 200, 40], [60, 20, 90]),
    ];
    let mut pictures = Vec::new();
    for (i, (ink, paper)) in colours.into_iter().enumerate() {
        let png = screen_png(320, 200, i % 2 == 1, ink, paper, i as u32);
        let file = format!("shot{i}.png");
        std::fs::write(s.project.join(&file), &png).unwrap();
        s.ok_json(&["store", "--image", &file, &format!("screenshot number {i}")]);
        let decoded = image::load_from_memory(&png).unwrap().to_rgb8();
        pictures.push((image_id(&png), model.image_vector(&decoded).unwrap()));
    }

    // The command that stored each image made its CLIP vector before it exited.
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["ocr"]["capabilities"]["clip"], true, "{status}");
    assert_eq!(status["clip"]["model"], name, "{status}");
    assert_eq!(status["clip"]["kind"], kind, "{status}");
    let text = s.ok(&["--format", "text", "model", "status"]).stdout;
    assert!(text.contains(&format!("{name} ({kind}) in")), "{text}");
    assert_eq!(status["clip"]["error"], Value::Null, "{status}");
    assert_eq!(status["ocr"]["store"]["without_clip_vector"], 0, "{status}");

    // Words the captions do not hold: the images listed by `clip` are exactly those whose
    // cosine with the words passes the floor, with that cosine (stored 8 bits a number: within
    // 0.02). Pairs within 0.02 of the floor are not judged.
    let token = "clip-test-token-0123456789";
    let served = Served::start(&s, &["--project", "acme"], token);
    let (mut listed, mut left_out) = (0, 0);
    for words in [
        "a cat",
        "red error",
        "a dog",
        "error",
        "cat dog",
        "a red cat",
    ] {
        let text = model.text_vector(words).unwrap();
        let by_cli = s.run(&["vision", "search", words, "--format", "json"]);
        let by_cli: Value = serde_json::from_str(&by_cli.stdout).unwrap();
        let (status, by_http) =
            served.post("/v1/vision/search", token, &json!({"query_text": words}));
        assert_eq!(status, 200, "{by_http}");
        let reported = clip_scores(&by_cli);
        assert_eq!(
            reported,
            clip_scores(&by_http),
            "{words}: CLI and HTTP agree"
        );
        for (id, vector) in &pictures {
            let expected = dot(&text, vector);
            let found = reported.iter().find(|(hit, _)| hit == id).map(|(_, s)| *s);
            if expected >= floor + 0.02 {
                let found =
                    found.unwrap_or_else(|| panic!("{words}: {id} at {expected}: {by_cli}"));
                assert!(
                    (found - expected).abs() < 0.02,
                    "{words}: {found} vs {expected}"
                );
                listed += 1;
            } else if expected < floor - 0.02 {
                assert_eq!(found, None, "{words}: {id} at {expected}: {by_cli}");
                left_out += 1;
            }
        }
    }
    assert!(
        listed > 0 && left_out > 0,
        "{listed} listed, {left_out} left out"
    );
}

#[test]
fn a_broken_clip_model_costs_only_its_own_work() {
    use cairn_embed::clip::tiny::write_tiny_clip;

    // A CLIP directory whose weights lack a tensor (as a truncated download would).
    let clip = tempfile::tempdir().unwrap();
    write_tiny_clip(clip.path()).unwrap();
    let file = clip.path().join("model.safetensors");
    let mut tensors = candle_core::safetensors::load(&file, &candle_core::Device::Cpu).unwrap();
    tensors.remove("vision_model.embeddings.class_embedding");
    candle_core::safetensors::save(&tensors, &file).unwrap();
    let s = Sandbox::with_clip(clip.path());
    let png = screen_png(320, 200, false, [250, 40, 30], [30, 10, 10], 1);
    std::fs::write(s.project.join("shot.png"), &png).unwrap();

    // The memory and its image are stored and the look hashed; the command says which model
    // failed and why, and succeeds.
    let stored = s.run(&["store", "--image", "shot.png", "the deploy screenshot"]);
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    assert!(
        stored
            .stderr
            .contains("vision_model.embeddings.class_embedding is missing"),
        "{}",
        stored.stderr
    );
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["ocr"]["store"]["unhashed"], 0, "{status}");
    assert_eq!(status["ocr"]["store"]["without_clip_vector"], 1, "{status}");
    // `model status` tells: the model is there, but off, and why.
    assert_eq!(status["ocr"]["capabilities"]["clip"], false, "{status}");
    let error = status["clip"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("class_embedding is missing"), "{status}");
    let text = s.ok(&["--format", "text", "model", "status"]).stdout;
    assert!(
        text.contains("meaning     no: it cannot be loaded"),
        "{text}"
    );

    // A search by words still finds it by its words, and says meaning was not searched.
    let found = s.ok_json(&["vision", "search", "deploy"]);
    assert_eq!(found["hits"][0]["image"]["id"], image_id(&png), "{found}");
    let notices = found["notices"].to_string();
    assert!(notices.contains("not searched by meaning"), "{found}");

    // A directory cairn cannot run at all (another kind of model) stops nothing else either.
    std::fs::write(
        clip.path().join("config.json"),
        r#"{"model_type": "siglip2"}"#,
    )
    .unwrap();
    s.ok(&["search", "deploy"]);
    let png = screen_png(320, 200, true, [40, 60, 250], [240, 240, 250], 2);
    std::fs::write(s.project.join("dialog.png"), &png).unwrap();
    let stored = s.run(&["store", "--image", "dialog.png", "the settings dialog"]);
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    assert!(
        stored.stderr.contains("model_type is \"siglip2\""),
        "{}",
        stored.stderr
    );
}

#[test]
fn siglip_installs_from_the_hub_and_clip_is_used_first_when_both_are_there() {
    use cairn_embed::clip::{CLIP_MODEL, SIGLIP_MODEL};

    // The tiny seeded models stand in for the hub's (no hub is reachable here).
    let models = tempfile::tempdir().unwrap();
    let (clip, siglip) = (models.path().join("clip"), models.path().join("siglip"));
    for dir in [&clip, &siglip] {
        std::fs::create_dir_all(dir).unwrap();
    }
    cairn_embed::clip::tiny::write_tiny_clip(&clip).unwrap();
    cairn_embed::siglip::tiny::write_tiny_siglip(&siglip).unwrap();
    let hub = cairn_embed::testing::serve_hub(vec![(CLIP_MODEL, clip), (SIGLIP_MODEL, siglip)]);
    let s = Sandbox::with_hub(&hub);

    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["clip"]["location"], Value::Null, "{status}");
    let installed = s.ok_json(&["model", "install", "siglip"]);
    assert_eq!(installed["clip"]["model"], SIGLIP_MODEL, "{installed}");
    assert_eq!(installed["clip"]["kind"], "siglip", "{installed}");
    assert_eq!(installed["clip"]["error"], Value::Null, "{installed}");
    let again = s.run(&["model", "install", "siglip"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("already installed"),
        "{}",
        again.stderr
    );

    // An image stored now gets its vector from SigLIP, under SigLIP's name.
    let png = screen_png(320, 200, false, [250, 40, 30], [30, 10, 10], 1);
    std::fs::write(s.project.join("shot.png"), &png).unwrap();
    s.ok(&["store", "--image", "shot.png", "the deploy screenshot"]);
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["ocr"]["store"]["without_clip_vector"], 0, "{status}");

    // With CLIP installed too, CLIP is the one used; installing SigLIP again says so.
    let installed = s.ok_json(&["model", "install", "clip"]);
    assert_eq!(installed["clip"]["model"], CLIP_MODEL, "{installed}");
    assert_eq!(installed["clip"]["kind"], "clip", "{installed}");
    // The image has SigLIP's vector, not CLIP's: it waits for CLIP's, which the next pass
    // makes.
    let status = s.ok_json(&["model", "status"]);
    assert_eq!(status["ocr"]["store"]["without_clip_vector"], 1, "{status}");
    let read = s.ok_json(&["reindex", "--images"]);
    assert_eq!(read["clip_model"], CLIP_MODEL, "{read}");
    assert_eq!(read["clip_vectors"], 1, "{read}");
    let forced = s.run(&["model", "install", "siglip", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(
        forced
            .stderr
            .contains(&format!("but images use {CLIP_MODEL}"))
            && forced.stderr.contains("images.clip_dir"),
        "{}",
        forced.stderr
    );
}
