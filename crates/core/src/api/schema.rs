//! Input schemas as clients see them.

use schemars::JsonSchema;

/// The JSON schema of an input type as clients see it: self-contained (no references),
/// optional fields simply optional rather than nullable, descriptions on one line each. MCP's
/// `tools/list` and the OpenAPI document both use it.
pub fn schema<T: JsonSchema>() -> serde_json::Map<String, serde_json::Value> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).expect("schemas serialise");
    tidy(&mut value);
    let serde_json::Value::Object(mut object) = value else {
        unreachable!("a root schema is an object")
    };
    // The type's own name and doc comment; the tool or route has its own.
    object.remove("title");
    object.remove("$schema");
    object.remove("description");
    object
}

fn tidy(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(object) => {
            if let Some(Value::String(text)) = object.get_mut("description") {
                *text = one_line(text);
            }
            // `Option<T>` fields: optional already (absent from `required`), so not nullable.
            if object.get("default") == Some(&Value::Null) {
                object.remove("default");
                if let Some(Value::Array(types)) = object.get_mut("type") {
                    types.retain(|t| t != "null");
                    if types.len() == 1 {
                        let only = types.remove(0);
                        object.insert("type".into(), only);
                    }
                }
                if let Some(Value::Array(choices)) = object.get_mut("enum") {
                    choices.retain(|c| !c.is_null());
                }
                if let Some(Value::Array(branches)) = object.remove("anyOf") {
                    let kept: Vec<Value> = branches
                        .into_iter()
                        .filter(|b| b.get("type") != Some(&Value::String("null".into())))
                        .collect();
                    match <[Value; 1]>::try_from(kept) {
                        Ok([Value::Object(inner)]) => {
                            for (key, inner_value) in inner {
                                object.entry(key).or_insert(inner_value);
                            }
                        }
                        Ok([other]) => {
                            object.insert("anyOf".into(), Value::Array(vec![other]));
                        }
                        Err(kept) => {
                            object.insert("anyOf".into(), Value::Array(kept));
                        }
                    }
                }
            }
            object.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Doc comments wrap at 100 columns; a schema description is one paragraph per line.
fn one_line(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_are_inline_and_optional_fields_are_not_nullable() {
        let store = serde_json::Value::Object(schema::<crate::api::StoreInput>());
        let text = store.to_string();
        assert!(!text.contains("$ref") && !text.contains("null"), "{text}");
        // Content may be left out when an image is sent; the service refuses a write with
        // neither.
        assert_eq!(store["required"], serde_json::Value::Null);
        assert_eq!(store["properties"]["image"]["type"], json!("string"));
        assert_eq!(store["additionalProperties"], json!(false));
        assert_eq!(
            store["properties"]["category"]["enum"]
                .as_array()
                .unwrap()
                .len(),
            9
        );
        assert_eq!(store["properties"]["importance"]["maximum"], json!(5));
        let search = serde_json::Value::Object(schema::<crate::api::SearchInput>());
        assert_eq!(
            search["properties"]["mode"]["oneOf"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
        assert!(
            search["properties"]["tags"].is_object(),
            "flattened filter fields are listed"
        );
    }
}
