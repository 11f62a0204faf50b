//! MCP over standard input and output, with every line checked before the protocol reads it.
//!
//! The protocol is one JSON-RPC message per line. rmcp drops a line it cannot use without a
//! word (a line over its 16 MiB limit, or one that is not JSON), so a client that sent one
//! waits forever. Here a reader in front of rmcp takes each line under [`MAX_LINE_BYTES`]:
//! - a longer line is skipped to its end, never held whole, and answered with JSON-RPC's
//!   `-32600` (Invalid Request);
//! - a line that is not JSON is answered with `-32700` (Parse error);
//! - anything else goes to rmcp, which answers it (or, for JSON that is no JSON-RPC message,
//!   answers `-32600` itself).
//!
//! Those answers carry `id: null`, as JSON-RPC prescribes when the request's id cannot be
//! read. rmcp's own output and these answers reach stdout through one writer, line by line,
//! so they never interleave inside a message.

use serde_json::json;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line read: rmcp's own limit, so every line that passes here is one it takes.
pub const MAX_LINE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// One line of input as the reader found it.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A JSON value, to hand to the protocol (with its newline).
    Json(Vec<u8>),
    /// An answer to send back instead.
    Refused(String),
    /// Nothing to do (a blank line).
    Blank,
}

/// Reads the next line of `input`, never holding more than `max` bytes of it; `None` at the
/// end of the input (a last line without a newline counts as a line).
pub async fn next_line(
    input: &mut (impl AsyncBufRead + Unpin),
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            if line.is_empty() && !oversized {
                return Ok(None);
            }
            break;
        }
        let (taken, ended) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if !oversized {
            if line.len() + taken > max + 1 {
                oversized = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(&available[..taken]);
            }
        }
        input.consume(taken);
        if ended {
            break;
        }
    }
    if oversized {
        return Ok(Some(Line::Refused(error_line(
            -32600,
            &format!(
                "Invalid Request: the line is over {max} bytes, the most one MCP message may \
                 hold; it was not read"
            ),
        ))));
    }
    let text = line.strip_suffix(b"\n").unwrap_or(&line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(Some(Line::Blank));
    }
    match serde_json::from_slice::<serde_json::Value>(text) {
        Ok(_) => {
            let mut message = text.to_vec();
            message.push(b'\n');
            Ok(Some(Line::Json(message)))
        }
        Err(error) => Ok(Some(Line::Refused(error_line(
            -32700,
            &format!("Parse error: the line is not JSON ({error})"),
        )))),
    }
}

fn error_line(code: i64, message: &str) -> String {
    let answer = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    format!("{answer}\n")
}

/// Runs `serve` (the protocol over a reader and a writer) between `input` and `output`, with
/// every input line checked first (see the module's documentation).
pub async fn framed<F, Fut>(
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
    serve: F,
) -> std::io::Result<Fut::Output>
where
    F: FnOnce(tokio::io::DuplexStream, tokio::io::DuplexStream) -> Fut,
    Fut: std::future::Future,
{
    let (mut to_protocol, protocol_input) = tokio::io::duplex(1 << 16);
    let (protocol_output, from_protocol) = tokio::io::duplex(1 << 16);
    let (answers, mut outgoing) = mpsc::channel::<Vec<u8>>(64);

    // Lines in: checked, then handed on or answered.
    let refusals = answers.clone();
    let reader = tokio::spawn(async move {
        let mut input = BufReader::new(input);
        while let Ok(Some(line)) = next_line(&mut input, MAX_LINE_BYTES).await {
            match line {
                Line::Json(message) => {
                    if to_protocol.write_all(&message).await.is_err() {
                        break;
                    }
                }
                Line::Refused(answer) => {
                    if refusals.send(answer.into_bytes()).await.is_err() {
                        break;
                    }
                }
                Line::Blank => {}
            }
        }
        // Closing the protocol's input ends the session, as the end of stdin does.
        let _ = to_protocol.shutdown().await;
    });
    // The protocol's messages out, a line at a time, through the one writer.
    let copier = tokio::spawn(async move {
        let mut lines = BufReader::new(from_protocol);
        let mut line = Vec::new();
        loop {
            line.clear();
            match lines.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if answers.send(line.clone()).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    let writer = tokio::spawn(async move {
        while let Some(line) = outgoing.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let outcome = serve(protocol_input, protocol_output).await;
    // The protocol ended (its input closed, or the client went away): its last messages are in
    // the pipe, and the copier ends at the pipe's end. A reader still waiting on input stops.
    reader.abort();
    let _ = reader.await;
    let _ = copier.await;
    let _ = writer.await;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut found = Vec::new();
        while let Some(line) = next_line(&mut reader, max).await.unwrap() {
            found.push(line);
        }
        found
    }

    fn refusal_code(line: &Line) -> i64 {
        match line {
            Line::Refused(text) => {
                serde_json::from_str::<serde_json::Value>(text).unwrap()["error"]["code"]
                    .as_i64()
                    .unwrap()
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    #[tokio::test]
    async fn lines_pass_when_json_and_are_answered_when_not() {
        let found = lines(b"{\"a\":1}\r\n\nnot json\n{\"b\":2}", 100).await;
        assert_eq!(found.len(), 4);
        assert_eq!(found[0], Line::Json(b"{\"a\":1}\n".to_vec()));
        assert_eq!(found[1], Line::Blank);
        assert_eq!(refusal_code(&found[2]), -32700);
        assert_eq!(found[3], Line::Json(b"{\"b\":2}\n".to_vec()));
    }

    #[tokio::test]
    async fn an_oversized_line_is_answered_and_the_next_one_still_read() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\n{\"ok\":true}\n");
        let found = lines(&input, 20).await;
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(refusal_code(&found[0]), -32600);
        assert_eq!(found[1], Line::Json(b"{\"ok\":true}\n".to_vec()));
        // Exactly the limit (its newline not counted) passes.
        let exact = format!("\"{}\"\n", "y".repeat(18));
        assert!(matches!(
            lines(exact.as_bytes(), 20).await[0],
            Line::Json(_)
        ));
    }

    #[tokio::test]
    async fn an_endless_line_is_never_held() {
        // Much more input than the limit, no newline: refused once at the end, read through.
        let input = vec![b'{'; 1 << 20];
        let found = lines(&input, 1024).await;
        assert_eq!(found.len(), 1);
        assert_eq!(refusal_code(&found[0]), -32600);
    }
}
