//! What the payload readers take from any JSON value: its text as a person reads it (a tool's
//! input, its output), and the pictures it holds (found, or replaced by `[image]`). A leaf:
//! every reader of the folder uses it, it uses none of them.

use serde_json::Value;

/// A text rendering of any JSON value: strings as they are, the rest as compact JSON; a tool
/// response's `stdout`/`stderr` joined.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Object(map) if map.contains_key("stdout") || map.contains_key("stderr") => {
            ["stdout", "stderr"]
                .iter()
                .filter_map(|key| map.get(*key).and_then(Value::as_str))
                .filter(|text| !text.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        }
        other => other.to_string(),
    }
}

/// The pictures a tool's response holds, as data URLs (or raw base64): MCP image content
/// (`{"type": "image", "data": …, "mimeType": …}`), image blocks (`{"type": "image", "source":
/// {"type": "base64", "media_type": …, "data": …}}`), an image file a tool read (`{"type":
/// "image", "file": {"base64": …}}`), and any string that is an image data URL. The store
/// checks each (size, format) when it keeps it.
pub fn images_in(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    visit_images(value, &mut |payload| found.push(payload.to_string()));
    found
}

/// `value` with every picture's payload replaced by `[image]`: the observation keeps the
/// words, not megabytes of base64.
pub fn without_images(value: &Value) -> Value {
    let mut value = value.clone();
    strip_images(&mut value);
    value
}

/// Where a picture's payload sits in an image object.
const IMAGE_PAYLOADS: [&[&str]; 3] = [&["data"], &["source", "data"], &["file", "base64"]];

fn payload_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(object, |value, key| value.get(key))
        .and_then(Value::as_str)
}

fn is_image_object(value: &Value) -> bool {
    value.get("type").and_then(Value::as_str) == Some("image")
}

fn visit_images(value: &Value, found: &mut dyn FnMut(&str)) {
    match value {
        Value::String(text) if text.starts_with("data:image/") => found(text),
        Value::Object(_) if is_image_object(value) => {
            if let Some(payload) = IMAGE_PAYLOADS
                .iter()
                .find_map(|path| payload_at(value, path))
            {
                found(payload);
            }
        }
        Value::Object(map) => map.values().for_each(|v| visit_images(v, found)),
        Value::Array(items) => items.iter().for_each(|v| visit_images(v, found)),
        _ => {}
    }
}

fn strip_images(value: &mut Value) {
    match value {
        Value::String(text) if text.starts_with("data:image/") => *text = "[image]".into(),
        Value::Object(_) if is_image_object(value) => *value = Value::String("[image]".into()),
        Value::Object(map) => map.values_mut().for_each(strip_images),
        Value::Array(items) => items.iter_mut().for_each(strip_images),
        _ => {}
    }
}

/// The tool input as a person reads it: the command of a shell tool, the patch of
/// `apply_patch`, else compact JSON.
pub fn tool_input_text(input: &Value) -> String {
    for key in ["command", "cmd", "patch", "input"] {
        if let Some(value) = input.get(key) {
            return text_of(value);
        }
    }
    text_of(input)
}
