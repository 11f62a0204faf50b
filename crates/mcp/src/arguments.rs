//! A tool call's arguments read as one of core's inputs, for cairn's tools and engram's alike.

use cairn_core::Error;
use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The arguments as `T`, or an error that says which argument is wrong.
pub(crate) fn arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, Error> {
    serde_json::from_value(Value::Object(arguments)).map_err(|error| {
        Error::invalid(
            "arguments",
            format!("{error}; the tool's input schema lists every field and its type"),
        )
    })
}
