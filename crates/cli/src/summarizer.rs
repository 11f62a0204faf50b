//! The optional session summariser: any OpenAI-compatible chat-completions endpoint (a local
//! llama.cpp or Ollama server, or a hosted API) turns cairn's own session digest into a short
//! prose summary. It is configured in `[summarizer]` and off unless `endpoint` is set; when it
//! fails, the service keeps cairn's own summary. Nothing is sent anywhere unless configured.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use cairn_core::config::SummarizerConfig;
use cairn_core::session::Summarizer;
use serde_json::{Value, json};

const INSTRUCTIONS: &str = "You summarise a coding agent's session for its future self. From the \
    digest, write at most 8 short lines: the goal, what was found out, what was done, what failed \
    and is still open, and the files that matter. Plain text, no preamble.";

pub struct ChatSummarizer {
    url: String,
    model: String,
    api_key: Option<String>,
    agent: ureq::Agent,
}

/// The summariser the config asks for, as a service part. A summariser that cannot be set up
/// (a missing API key, a bad URL) is reported and left out: summaries fall back to cairn's own,
/// and no command, hook least of all, fails over it.
pub fn summarizer_part(config: &SummarizerConfig) -> Option<Arc<dyn Summarizer>> {
    match configured_summarizer(config) {
        Ok(Some(summarizer)) => Some(Arc::new(summarizer)),
        Ok(None) => None,
        Err(error) => {
            tracing::warn!("the summariser is off: {error:#}");
            None
        }
    }
}

/// The summariser the config asks for, if any.
fn configured_summarizer(config: &SummarizerConfig) -> Result<Option<ChatSummarizer>> {
    let Some(endpoint) = config.endpoint.as_deref().filter(|e| !e.trim().is_empty()) else {
        return Ok(None);
    };
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        bail!("summarizer.endpoint: '{endpoint}' is not an http:// or https:// URL");
    }
    let api_key = match &config.api_key_env {
        Some(name) => Some(std::env::var(name).with_context(|| {
            format!("summarizer.api_key_env: the environment variable {name} is not set")
        })?),
        None => None,
    };
    let timeout = Duration::from_secs(config.timeout_seconds.max(1));
    Ok(Some(ChatSummarizer {
        url: format!("{}/chat/completions", endpoint.trim_end_matches('/')),
        model: config.model.clone(),
        api_key,
        agent: ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .build()
            .new_agent(),
    }))
}

impl ChatSummarizer {
    fn ask(&self, digest: &str) -> Result<String> {
        let body = json!({
            "model": self.model,
            "temperature": 0.2,
            "messages": [
                { "role": "system", "content": INSTRUCTIONS },
                { "role": "user", "content": digest },
            ],
        });
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let mut response = request
            .send(body.to_string())
            .with_context(|| format!("POST {}", self.url))?;
        let answer: Value = serde_json::from_str(&response.body_mut().read_to_string()?)
            .context("the summariser's answer is not JSON")?;
        answer["choices"][0]["message"]["content"]
            .as_str()
            .map(|text| text.trim().to_string())
            .context("the summariser's answer has no choices[0].message.content")
    }
}

impl Summarizer for ChatSummarizer {
    fn summarize(&self, digest: &str) -> cairn_core::Result<String> {
        self.ask(digest)
            .map_err(|error| cairn_core::Error::Unavailable {
                what: "the session summariser".into(),
                hint: format!("{error:#}"),
            })
    }
}
