//! Readings of JSON input that other systems' clients send in their own spelling: a boolean
//! as `"true"`/`"false"` (agentmemory's slot clients do), read the same as `true`/`false`.
//! The schemas still say `boolean`: this is tolerance, not a second shape.

use serde::{Deserialize, Deserializer};

/// A boolean, or the string `"true"` or `"false"` (any case, spaces around ignored).
pub fn bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Bool(bool),
        Text(String),
    }
    match Given::deserialize(deserializer)? {
        Given::Bool(value) => Ok(value),
        Given::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(serde::de::Error::custom(format!(
                "'{text}' is not a boolean: give true or false"
            ))),
        },
    }
}

/// [`bool`] for an optional field: absent or `null` is `None`.
pub fn option_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    #[derive(Deserialize)]
    struct Wrapped(#[serde(deserialize_with = "bool")] bool);
    Ok(Option::<Wrapped>::deserialize(deserializer)?.map(|Wrapped(value)| value))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Input {
        #[serde(default, deserialize_with = "super::bool")]
        pinned: bool,
        #[serde(default, deserialize_with = "super::option_bool")]
        read_only: Option<bool>,
    }

    fn read(value: serde_json::Value) -> Result<(bool, Option<bool>), String> {
        serde_json::from_value::<Input>(value)
            .map(|i| (i.pinned, i.read_only))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn booleans_come_as_json_or_as_the_strings_true_and_false() {
        assert_eq!(read(json!({})), Ok((false, None)));
        assert_eq!(
            read(json!({"pinned": true, "read_only": false})),
            Ok((true, Some(false)))
        );
        assert_eq!(
            read(json!({"pinned": "true", "read_only": " FALSE "})),
            Ok((true, Some(false)))
        );
        assert_eq!(read(json!({"read_only": null})), Ok((false, None)));
        let refused = read(json!({"pinned": "yes please"})).unwrap_err();
        assert!(
            refused.contains("'yes please' is not a boolean"),
            "{refused}"
        );
        assert!(read(json!({"pinned": 1})).is_err());
    }
}
