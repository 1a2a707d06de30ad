//! A recorded request sent as the recorder sent it (Python's `http.client`: the target
//! percent-encoded outside `!`..`~`, the recorded headers, `Content-Length` only when there
//! is a body), and its answer in the recording's shape.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// A request ready to send: the body is `None` when the recorder sent none.
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// An answer as the recording keeps it: `body` is the parsed JSON, `null` when empty, or
/// `{"_raw": text}` when it is not JSON.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Value,
}

/// The body of a recorded request (`request.body`, `body_hex` or `body_gen`); a generated
/// body is checked against the recorded size and SHA-256.
pub fn recorded_body(request: &Value) -> Result<Option<Vec<u8>>, String> {
    if let Some(spec) = request["body_gen"].as_str() {
        let body = generate_body(spec)?;
        let digest = hex(&Sha256::digest(&body));
        if Some(body.len() as u64) != request["body_bytes"].as_u64()
            || Some(digest.as_str()) != request["body_sha256"].as_str()
        {
            return Err(format!("body-gen {spec}: not the recorded bytes"));
        }
        return Ok(Some(body));
    }
    if let Some(text) = request["body_hex"].as_str() {
        return unhex(text).map(Some);
    }
    Ok(request["body"].as_str().map(|s| s.as_bytes().to_vec()))
}

/// The recorder's `generate_body` (tools/record_writes.py), byte for byte.
fn generate_body(spec: &str) -> Result<Vec<u8>, String> {
    let (kind, n) = spec.split_once(' ').unwrap_or((spec, "0"));
    let n: usize = n.trim().parse().map_err(|_| format!("body-gen {spec}"))?;
    let nested = |title: &str, key: &str, open: &str, close: &str| {
        format!(
            "{{\"data\":{{\"title\":\"{title}\",\"{key}\":{}1{}}}}}",
            open.repeat(n),
            close.repeat(n)
        )
    };
    let text = match kind {
        "large" => {
            let (head, tail) = ("{\"data\":{\"title\":\"large\"}", "}");
            format!(
                "{head}{}{tail}",
                " ".repeat(n.saturating_sub(head.len() + tail.len()))
            )
        }
        "deep-json" => nested("deep json", "metadata", "[", "]"),
        "deep-object" => nested("deep object", "metadata", "{\"a\":", "}"),
        "deep-unknown" => nested("deep unknown", "zzz", "{\"a\":", "}"),
        "wide-tags" => {
            json!({"data": {"title": "wide", "tags": vec!["tag000000000000000000001"; n]}})
                .to_string()
        }
        "many-keys" => {
            let keys: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{i}")).collect();
            format!("{{\"data\":{{{}}}}}", keys.join(","))
        }
        _ => return Err(format!("unknown body-gen {spec}")),
    };
    Ok(text.into_bytes())
}

/// Sends `request` to `addr` over a fresh connection and reads the whole answer. The body is
/// written from another thread, so an answer given before the body is read (a 413) is seen.
pub fn send(addr: SocketAddr, request: &Request) -> Result<Answer, String> {
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n",
        request.method,
        super::common::encode(&request.path)
    );
    for (name, value) in &request.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = &request.body {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(request.body.as_deref().unwrap_or_default());

    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let sender = std::thread::spawn(move || writer.write_all(&bytes));
    let mut raw = Vec::new();
    let read = stream.read_to_end(&mut raw);
    let _ = sender.join();
    if let Err(e) = read
        && raw.is_empty()
    {
        return Err(format!("no answer: {e}"));
    }
    parse(&raw)
}

/// An HTTP/1.1 answer (the whole connection's bytes) as an [`Answer`].
fn parse(raw: &[u8]) -> Result<Answer, String> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("an answer without the end of its header")?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("an answer without a status line")?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let header = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let mut body = raw[split + 4..].to_vec();
    if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        body = dechunk(&body);
    }
    let body = match body.is_empty() {
        true => Value::Null,
        false => serde_json::from_slice(&body)
            .unwrap_or_else(|_| json!({"_raw": String::from_utf8_lossy(&body)})),
    };
    Ok(Answer {
        status,
        content_type: header("content-type").cloned(),
        body,
    })
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(nl) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..nl]).trim(), 16).unwrap_or(0);
        let start = nl + 2;
        if size == 0 || data.len() < start + size {
            break;
        }
        out.extend_from_slice(&data[start..start + size]);
        data = data.get(start + size + 2..).unwrap_or_default();
    }
    out
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("bad hex at {i}"))
        })
        .collect()
}
