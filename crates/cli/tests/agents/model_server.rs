//! The scripted model endpoint: the one stand-in of the agent suite.
//!
//! A real model cannot run here, so the agents talk to this server on loopback instead. It speaks
//! the three wire protocols the agents use — Anthropic's Messages API (Claude Code), OpenAI's
//! Responses API (Codex) and OpenAI's Chat Completions (OpenCode) — streaming (server-sent events)
//! or not, as asked, and answers from a fixed [`Script`]:
//! - a request that offers tools is a turn of the conversation; the number of tool results it
//!   already carries says which step of the script comes next (a tool call or the final text);
//! - a request that offers no tools is one of the agent's own side requests (a title, a summary)
//!   and gets a short text.
//!
//! Every request is kept (path and JSON body) so a test can assert what the agent sent: the
//! context cairn injected, the tools the agent offered, the results of cairn's tools.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One step of a script.
#[derive(Clone, Debug)]
pub enum Step {
    /// Call a tool: its name as the agent offers it (`namespace` for Codex's MCP namespaces).
    Call {
        name: String,
        namespace: Option<String>,
        input: Value,
    },
    /// End the turn with this text.
    Say(String),
}

impl Step {
    pub fn call(name: &str, input: Value) -> Step {
        Step::Call {
            name: name.to_string(),
            namespace: None,
            input,
        }
    }

    pub fn call_in(namespace: &str, name: &str, input: Value) -> Step {
        Step::Call {
            name: name.to_string(),
            namespace: Some(namespace.to_string()),
            input,
        }
    }

    pub fn say(text: &str) -> Step {
        Step::Say(text.to_string())
    }
}

/// The steps of one conversation, in order; after the last one the last is repeated.
pub type Script = Vec<Step>;

/// A request the agent made.
#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    pub body: Value,
}

impl Request {
    /// Whether this is a turn of the conversation (it offers tools), not a side request.
    pub fn is_turn(&self) -> bool {
        self.body["tools"].as_array().is_some_and(|t| !t.is_empty())
    }

    /// The names of the tools offered (Codex's namespaced tools as `namespace/name`).
    pub fn tool_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for tool in self.body["tools"].as_array().into_iter().flatten() {
            if let Some(inner) = tool["tools"].as_array() {
                let namespace = tool["name"].as_str().unwrap_or_default();
                for t in inner {
                    names.push(format!(
                        "{namespace}/{}",
                        t["name"].as_str().unwrap_or_default()
                    ));
                }
            } else if let Some(name) = tool["name"].as_str().or(tool["function"]["name"].as_str()) {
                names.push(name.to_string());
            }
        }
        names
    }

    /// How many tool results the conversation carries: the step the script is at.
    pub fn tool_results(&self) -> usize {
        let body = &self.body;
        let anthropic = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .filter(|block| block["type"] == "tool_result")
            .count();
        let chat = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "tool")
            .count();
        let responses = body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["type"] == "function_call_output")
            .count();
        anthropic + chat + responses
    }

    /// What the agent sent back as the result of the tool call made at step `at`, as JSON text
    /// (each agent shapes it its own way).
    pub fn tool_result(&self, at: usize) -> Option<String> {
        let id = Value::String(call_id(at));
        let body = &self.body;
        let messages = body["messages"].as_array().into_iter().flatten();
        let anthropic = messages
            .clone()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)
            .map(|block| block["content"].to_string());
        let chat = messages
            .clone()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| m["content"].to_string());
        let responses = body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|item| item["type"] == "function_call_output" && item["call_id"] == id)
            .map(|item| item["output"].to_string());
        anthropic.or(chat).or(responses)
    }

    /// The whole request as text, for "does the agent send X" assertions.
    pub fn text(&self) -> String {
        self.body.to_string()
    }
}

/// The server; it stops when dropped (its thread ends with the test process).
pub struct ModelServer {
    pub base_url: String,
    script: Arc<Mutex<Script>>,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl ModelServer {
    pub fn start() -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the model server");
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(vec![Step::say(
            "Hello from the scripted model.",
        )]));
        let (shared_script, kept) = (script.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (script, kept) = (shared_script.clone(), kept.clone());
                std::thread::spawn(move || {
                    if let Err(e) = serve(stream, &script, &kept) {
                        eprintln!("model server: {e}");
                    }
                });
            }
        });
        ModelServer {
            base_url,
            script,
            requests,
        }
    }

    /// Answers the next conversations from `script`, and forgets the requests so far.
    pub fn play(&self, script: Script) {
        *self.script.lock().unwrap() = script;
        self.requests.lock().unwrap().clear();
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The conversation turns so far (requests that offered tools).
    pub fn turns(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(Request::is_turn)
            .collect()
    }
}

fn serve(
    stream: TcpStream,
    script: &Mutex<Script>,
    kept: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let (mut length, mut chunked) = (0usize, false);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((&header, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    };
    let mut stream = stream;
    if method != "POST" {
        return respond(&mut stream, "404 Not Found", "application/json", b"{}");
    }
    let request = Request {
        path,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    kept.lock().unwrap().push(request.clone());
    let at = request.tool_results();
    let step = if request.is_turn() {
        let script = script.lock().unwrap();
        script[at.min(script.len() - 1)].clone()
    } else {
        Step::say("Scripted title")
    };
    let streaming = request.body["stream"].as_bool().unwrap_or(false);
    let (content_type, reply) = if request.path.contains("/messages") {
        anthropic(&request.body["model"], &step, at, streaming)
    } else if request.path.contains("/responses") {
        responses(&step, at)
    } else {
        chat(&step, at, streaming)
    };
    respond(&mut stream, "200 OK", content_type, reply.as_bytes())
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size =
            usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

fn events(events: &[Value], named: bool) -> String {
    let mut out = String::new();
    for event in events {
        if named {
            out.push_str(&format!(
                "event: {}\n",
                event["type"].as_str().unwrap_or("message")
            ));
        }
        out.push_str(&format!("data: {event}\n\n"));
    }
    out
}

const SSE: &str = "text/event-stream";
const JSON: &str = "application/json";

/// Anthropic Messages: a text block or one `tool_use` block.
fn anthropic(model: &Value, step: &Step, at: usize, streaming: bool) -> (&'static str, String) {
    let usage = json!({"input_tokens": 100, "output_tokens": 10});
    let (block, stop_reason) = match step {
        Step::Say(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Step::Call { name, input, .. } => (
            json!({"type": "tool_use", "id": call_id(at), "name": name, "input": input}),
            "tool_use",
        ),
    };
    if !streaming {
        let message = json!({
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop_reason, "stop_sequence": null, "usage": usage,
        });
        return (JSON, message.to_string());
    }
    let (start, delta) = match step {
        Step::Say(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
        Step::Call { input, .. } => (
            json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
        ),
    };
    let stream = [
        json!({"type": "message_start", "message": {
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 10}}),
        json!({"type": "message_stop"}),
    ];
    (SSE, events(&stream, true))
}

/// OpenAI Responses (always streamed): one output item, a message or a function call.
fn responses(step: &Step, at: usize) -> (&'static str, String) {
    let item = match step {
        Step::Say(text) => json!({
            "type": "message", "id": "msg_scripted", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
        Step::Call {
            name,
            namespace,
            input,
        } => {
            let mut call = json!({
                "type": "function_call", "id": format!("fc_{at}"), "call_id": call_id(at),
                "name": name, "arguments": input.to_string(),
            });
            if let Some(namespace) = namespace {
                call["namespace"] = json!(namespace);
            }
            call
        }
    };
    let stream = [
        json!({"type": "response.created", "response": {"id": "resp_scripted"}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": "resp_scripted", "usage": {
            "input_tokens": 100, "input_tokens_details": null, "output_tokens": 10,
            "output_tokens_details": null, "total_tokens": 110}}}),
    ];
    (SSE, events(&stream, true))
}

/// OpenAI Chat Completions: content or one tool call.
fn chat(step: &Step, at: usize, streaming: bool) -> (&'static str, String) {
    let (message, finish) = match step {
        Step::Say(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Step::Call { name, input, .. } => (
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": call_id(at),
                "type": "function", "function": {"name": name, "arguments": input.to_string()}}]}),
            "tool_calls",
        ),
    };
    let usage = json!({"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110});
    let base = json!({"id": "chatcmpl-scripted", "created": 0, "model": "scripted-model"});
    if !streaming {
        let mut reply = base;
        reply["object"] = json!("chat.completion");
        reply["choices"] = json!([{"index": 0, "message": message, "finish_reason": finish}]);
        reply["usage"] = usage;
        return (JSON, reply.to_string());
    }
    let chunk = |choice: Value, usage: Option<&Value>| {
        let mut chunk = base.clone();
        chunk["object"] = json!("chat.completion.chunk");
        chunk["choices"] = json!([choice]);
        if let Some(usage) = usage {
            chunk["usage"] = usage.clone();
        }
        chunk
    };
    let stream = [
        chunk(
            json!({"index": 0, "delta": message, "finish_reason": null}),
            None,
        ),
        chunk(
            json!({"index": 0, "delta": {}, "finish_reason": finish}),
            Some(&usage),
        ),
    ];
    (SSE, events(&stream, false) + "data: [DONE]\n\n")
}

/// The id of the tool call made at step `at`, unique within the conversation (the agents
/// match results to calls by it).
pub fn call_id(at: usize) -> String {
    format!("toolu_scripted_{at}")
}
