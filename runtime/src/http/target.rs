//! Request targets as Node reads them. curl and scripts send some characters raw that
//! browsers percent-encode (`filters[title][$eq]="x"`, `<`, `>`, `` ` ``). Node (Strapi)
//! accepts them; the `http` crate refuses them in a query and hyper answers a bare 400
//! before any handler runs. [`EscapingListener`] wraps the TCP listener and
//! percent-encodes exactly those bytes inside a request line's target, so the request
//! reaches the router as a browser would have sent it, and gets Strapi's answer.
//!
//! **Invariant: the rewriter never decides where a body ends.** Framing is hyper's
//! business alone (a reviewer found request smuggling when both parsed it: a padded or
//! malformed `Content-Length` made them disagree). The rewriter reads a connection from
//! its start, request line by request line, and only while every request so far has, by
//! construction, no body: the moment a header line names `Content-Length`,
//! `Transfer-Encoding` or `Upgrade` (in any case), or anything is not plainly HTTP/1.0 or
//! 1.1 (an obsolete folded line, a bare CR, a line without a colon, another version, the
//! HTTP/2 preface), it stops and passes the rest of the connection through untouched.
//! Until then a request ends at its blank line for hyper too (a request without those
//! headers has no body), so both see the same request lines; the rewriter only ever
//! changes bytes inside those lines' targets.
//!
//! The difference this leaves, written down: on a keep-alive connection, a request that
//! follows one with a body (or any header above) is not rewritten, so a raw `"` there
//! gets hyper's bare 400, as every request does when the listener is not used. Browsers
//! encode these characters, and curl opens one connection per command line URL list
//! in practice.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Bytes Node takes raw in a request target and the `http` crate refuses.
fn needs_escape(b: u8) -> bool {
    matches!(b, b'"' | b'<' | b'>' | b'`')
}

/// Header names after which the rewriter stops: they may give the request a body, or
/// hand the connection to another protocol.
const STOP_HEADERS: [&[u8]; 3] = [b"content-length", b"transfer-encoding", b"upgrade"];

/// The longest header name compared with [`STOP_HEADERS`]; a longer one is none of them.
const LONGEST_STOP_HEADER: usize = 17;

/// Where the reader is in the HTTP/1 stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a request line (empty lines before one are allowed, as by httparse).
    Start,
    /// The method, some bytes of it read.
    Method,
    /// The request target.
    Target,
    /// The version, then the end of the request line.
    Version,
    /// At the start of a header line (`cr`: a CR was read there).
    LineStart { cr: bool },
    /// A header name.
    Name,
    /// A header value (`cr`: the last byte was a CR).
    Value { cr: bool },
    /// Everything from here on passes through untouched.
    Through,
}

/// The per-connection rewriter.
#[derive(Debug)]
struct Rewriter {
    state: State,
    /// The current version text, or header name (up to [`LONGEST_STOP_HEADER`] + 1).
    word: Vec<u8>,
}

impl Rewriter {
    fn new() -> Self {
        Rewriter {
            state: State::Start,
            word: Vec::new(),
        }
    }

    /// Rewrites `input` into `out`.
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for (i, &b) in input.iter().enumerate() {
            if self.state == State::Through {
                out.extend_from_slice(&input[i..]);
                return;
            }
            if self.state == State::Target && needs_escape(b) {
                out.extend_from_slice(format!("%{b:02X}").as_bytes());
            } else {
                out.push(b);
            }
            self.state = self.next(b);
        }
    }

    /// The state after byte `b`.
    fn next(&mut self, b: u8) -> State {
        match self.state {
            State::Through => State::Through,
            State::Start => match b {
                b'\r' | b'\n' => State::Start,
                b if is_token(b) => State::Method,
                _ => State::Through,
            },
            State::Method => match b {
                b' ' => State::Target,
                b if is_token(b) => State::Method,
                _ => State::Through,
            },
            State::Target => match b {
                b' ' => {
                    self.word.clear();
                    State::Version
                }
                // Controls (a line end before the version included) and bytes past
                // ASCII: hyper refuses the request; nothing more to rewrite.
                b if b <= b' ' || b >= 0x7f => State::Through,
                _ => State::Target,
            },
            State::Version => match b {
                b'\n' => {
                    let version = self.word.strip_suffix(b"\r").unwrap_or(&self.word);
                    if version == b"HTTP/1.1" || version == b"HTTP/1.0" {
                        State::LineStart { cr: false }
                    } else {
                        State::Through
                    }
                }
                _ if self.word.len() > 9 => State::Through,
                _ => {
                    self.word.push(b);
                    State::Version
                }
            },
            State::LineStart { cr: true } => match b {
                // The blank line: the request (which has no body) ends here.
                b'\n' => State::Start,
                _ => State::Through,
            },
            State::LineStart { cr: false } => match b {
                b'\n' => State::Start,
                b'\r' => State::LineStart { cr: true },
                b if is_token(b) => {
                    self.word.clear();
                    self.word.push(b.to_ascii_lowercase());
                    State::Name
                }
                // An obsolete folded line, or no header name at all.
                _ => State::Through,
            },
            State::Name => match b {
                b':' => {
                    if STOP_HEADERS.contains(&self.word.as_slice()) {
                        State::Through
                    } else {
                        State::Value { cr: false }
                    }
                }
                b if is_token(b) => {
                    if self.word.len() <= LONGEST_STOP_HEADER {
                        self.word.push(b.to_ascii_lowercase());
                    }
                    State::Name
                }
                // Whitespace before the colon, or a line without one.
                _ => State::Through,
            },
            State::Value { cr: true } => match b {
                b'\n' => State::LineStart { cr: false },
                _ => State::Through,
            },
            State::Value { cr: false } => match b {
                b'\n' => State::LineStart { cr: false },
                b'\r' => State::Value { cr: true },
                _ => State::Value { cr: false },
            },
        }
    }
}

/// A `tchar` of RFC 9110: the bytes of a method or a header name.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A connection whose request targets are escaped as they are read (see the module doc).
#[derive(Debug)]
pub struct EscapingStream<S> {
    inner: S,
    rewriter: Rewriter,
    pending: Vec<u8>,
    at: usize,
}

impl<S> EscapingStream<S> {
    /// Wraps a connection.
    pub fn new(inner: S) -> Self {
        EscapingStream {
            inner,
            rewriter: Rewriter::new(),
            pending: Vec::new(),
            at: 0,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for EscapingStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.at < this.pending.len() {
                let n = (this.pending.len() - this.at).min(buf.remaining());
                buf.put_slice(&this.pending[this.at..this.at + n]);
                this.at += n;
                if this.at == this.pending.len() {
                    this.pending.clear();
                    this.at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut raw = [0u8; 4096];
            let mut raw_buf = ReadBuf::new(&mut raw);
            match Pin::new(&mut this.inner).poll_read(cx, &mut raw_buf) {
                Poll::Ready(Ok(())) => {
                    let filled = raw_buf.filled();
                    if filled.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                    this.rewriter.feed(filled, &mut this.pending);
                }
                other => return other,
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for EscapingStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A TCP listener whose connections escape request targets: serve with
/// `axum::serve(EscapingListener(listener), app)`.
#[derive(Debug)]
pub struct EscapingListener(pub TcpListener);

impl axum::serve::Listener for EscapingListener {
    type Io = EscapingStream<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (io, addr) = axum::serve::Listener::accept(&mut self.0).await;
        // One small request-response at a time: no Nagle delay, as axum's own listener.
        let _ = io.set_nodelay(true);
        (EscapingStream::new(io), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(chunks: &[&[u8]]) -> Vec<u8> {
        let mut r = Rewriter::new();
        let mut out = Vec::new();
        for c in chunks {
            r.feed(c, &mut out);
        }
        out
    }

    #[test]
    fn escapes_only_the_target() {
        let req = b"GET /api/a?f=\"x\"&g=<y>&h=`z` HTTP/1.1\r\nX-Q: \"kept\"\r\n\r\n";
        assert_eq!(
            rewrite(&[req]),
            b"GET /api/a?f=%22x%22&g=%3Cy%3E&h=%60z%60 HTTP/1.1\r\nX-Q: \"kept\"\r\n\r\n".to_vec()
        );
    }

    #[test]
    fn follows_keep_alive_requests_without_bodies_and_split_reads() {
        let two = b"GET /a?q=\"1\" HTTP/1.1\r\nHost: x\r\n\r\n\r\nGET /b?q=\"2\" HTTP/1.0\n\n";
        let whole = rewrite(&[two]);
        for size in 1..8 {
            let split: Vec<&[u8]> = two.chunks(size).collect();
            assert_eq!(rewrite(&split), whole);
        }
        assert_eq!(
            whole,
            b"GET /a?q=%221%22 HTTP/1.1\r\nHost: x\r\n\r\n\r\nGET /b?q=%222%22 HTTP/1.0\n\n"
                .to_vec()
        );
    }

    /// After any header that can give a request a body, nothing is rewritten, however the
    /// length is written: hyper alone finds where the body ends.
    #[test]
    fn a_request_that_may_have_a_body_ends_the_rewriting() {
        for header in [
            "Content-Length: 5",
            "content-length:5",
            "CONTENT-LENGTH:      +5",
            "Content-Length: 5, 5",
            "Content-Length: 00000000000000000000000000000000000005",
            "Transfer-Encoding: chunked",
            "transfer-encoding: gzip, chunked",
            "Upgrade: h2c",
        ] {
            let req = format!(
                "POST /a?q=\"1\" HTTP/1.1\r\n{header}\r\n\r\n\"<>\"xGET /b?q=\"2\" HTTP/1.1\r\n\r\n"
            );
            let out = rewrite(&[req.as_bytes()]);
            let expected = req.replacen("/a?q=\"1\"", "/a?q=%221%22", 1);
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{header}");
        }
    }

    /// Framings hyper refuses or could read otherwise: the rewriter stops at the first
    /// doubt and never touches a byte after it.
    #[test]
    fn ambiguous_framing_ends_the_rewriting() {
        for head in [
            // Whitespace between a header name and its colon.
            "Content-Length : 5",
            "Transfer-Encoding\t: chunked",
            // An obsolete folded line.
            "X-A: 1\r\n Content-Length: 5",
            "X-A: 1\r\n\tTransfer-Encoding: chunked",
            // A bare CR inside a line, and a CR not followed by LF at a line start.
            "X-A: 1\rContent-Length: 5",
            "\rX-A: 1",
            // A line without a colon.
            "Content-Length 5",
            // A header name with a byte that is not a token.
            "Cont\u{1}ent-Length: 5",
        ] {
            let req =
                format!("GET /a?q=\"1\" HTTP/1.1\r\n{head}\r\n\r\nGET /b?q=\"2\" HTTP/1.1\r\n\r\n");
            let out = String::from_utf8(rewrite(&[req.as_bytes()])).unwrap();
            assert!(
                out.ends_with("GET /b?q=\"2\" HTTP/1.1\r\n\r\n"),
                "{head:?}: {out:?}"
            );
        }
    }

    /// Other versions and protocols: whatever follows the first line passes untouched
    /// (the first line's target may be escaped before its version is read: hyper refuses
    /// that line either way).
    #[test]
    fn other_protocols_pass_through() {
        for req in [
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\"<>",
            "GET /a?\"x\" HTTP/1.2\r\n\r\nGET /b?\"y\" HTTP/1.1\r\n\r\n",
            "GET /a?\"x\"\r\n\r\nGET /b?\"y\" HTTP/1.1\r\n\r\n",
            "\u{16}\u{3}\u{1}GET /b?\"y\" HTTP/1.1\r\n\r\n",
        ] {
            let out = String::from_utf8(rewrite(&[req.as_bytes()])).unwrap();
            let rest = |s: &str| s.split_once('\n').map(|(_, r)| r.to_string());
            assert_eq!(rest(&out), rest(req), "{req:?}: {out:?}");
        }
    }

    /// What hyper's parser (httparse) makes of `input`, request after request, while the
    /// requests have no body: the byte ranges of their targets (which the rewriter must
    /// escape, and only those), and where that reading stopped.
    fn reference(input: &[u8]) -> (Vec<std::ops::Range<usize>>, usize) {
        let mut targets = Vec::new();
        let mut pos = 0;
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut req = httparse::Request::new(&mut headers);
            let Ok(httparse::Status::Complete(n)) = req.parse(&input[pos..]) else {
                return (targets, pos);
            };
            let Some(path) = req.path else {
                return (targets, pos);
            };
            let start = path.as_ptr() as usize - input.as_ptr() as usize;
            targets.push(start..start + path.len());
            let stops = req
                .headers
                .iter()
                .any(|h| STOP_HEADERS.contains(&h.name.to_ascii_lowercase().as_bytes()));
            if stops {
                // What follows is the body's, then hyper's: never rewritten.
                return (targets, input.len());
            }
            pos += n;
        }
    }

    /// The positions of `input` that `out` escaped; `None` when `out` is not `input`
    /// with some of its escapable bytes escaped.
    fn escaped_positions(input: &[u8], out: &[u8]) -> Option<Vec<usize>> {
        let (mut i, mut j, mut at) = (0, 0, Vec::new());
        while i < input.len() {
            if out.get(j) == Some(&input[i]) {
                (i, j) = (i + 1, j + 1);
            } else if needs_escape(input[i])
                && out.get(j..j + 3) == Some(format!("%{:02X}", input[i]).as_bytes())
            {
                at.push(i);
                (i, j) = (i + 1, j + 3);
            } else {
                return None;
            }
        }
        (j == out.len()).then_some(at)
    }

    fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let target = "[a-z/?=&\\[\\]\"<>`%$]{0,12}";
        let line_end = prop_oneof![Just("\r\n"), Just("\n")];
        prop_oneof![
            4 => (
                prop_oneof![Just("GET"), Just("POST"), Just("PRI"), Just("G T")],
                target,
                prop_oneof![
                    8 => Just(" HTTP/1.1"),
                    1 => Just(" HTTP/1.0"),
                    1 => Just(" HTTP/2.0"),
                    1 => Just(""),
                    1 => Just(" HTTP/1.1 x"),
                ],
                line_end.clone(),
            )
                .prop_map(|(m, t, v, e)| format!("{m} /{t}{v}{e}")),
            6 => (
                prop_oneof![
                    Just("Host: x"),
                    Just("X-Q: \"a\" <b>"),
                    Just("Content-Length: 3"),
                    Just("content-length:2"),
                    Just("Content-Length : 3"),
                    Just("Transfer-Encoding: chunked"),
                    Just("Upgrade: h2c"),
                    Just(" folded"),
                    Just("X-A: 1\rContent-Length: 3"),
                    Just("no colon"),
                ],
                line_end.clone(),
            )
                .prop_map(|(h, e)| format!("{h}{e}")),
            3 => line_end.prop_map(str::to_string),
            1 => "[ -~]{0,6}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Against hyper's own parser: every byte the rewriter escapes lies in the
        /// target of a request hyper reads before any request that may have a body (or
        /// of the line where hyper stops reading), every escapable byte of those targets
        /// is escaped, and how the input is split into reads changes nothing.
        #[test]
        fn escapes_exactly_the_targets_hyper_reads(
            parts in proptest::collection::vec(fragment(), 0..12),
            split in 1usize..9,
        ) {
            let input = parts.concat().into_bytes();
            let out = rewrite(&[&input]);
            let chunks: Vec<&[u8]> = input.chunks(split).collect();
            proptest::prop_assert_eq!(&rewrite(&chunks), &out);
            let escaped = escaped_positions(&input, &out);
            proptest::prop_assert!(escaped.is_some(), "not an escaping of the input");
            let escaped = escaped.unwrap_or_default();
            let (targets, stop) = reference(&input);
            // The request line where hyper stopped (refused, or waiting for more bytes)
            // may have had its target escaped before the rewriter saw what was wrong
            // with it; nothing after that line is touched.
            let stop = stop
                + input[stop..]
                    .iter()
                    .position(|b| !matches!(b, b'\r' | b'\n'))
                    .unwrap_or(input.len() - stop);
            let refused_line_end = input[stop..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(input.len(), |n| stop + n);
            for at in &escaped {
                let in_target = targets.iter().any(|t| t.contains(at));
                let in_refused_line = (stop..refused_line_end).contains(at);
                proptest::prop_assert!(in_target || in_refused_line, "escaped byte {} outside a target: {:?}", at, String::from_utf8_lossy(&input));
            }
            for t in &targets {
                for at in t.clone() {
                    if needs_escape(input[at]) {
                        proptest::prop_assert!(escaped.contains(&at), "target byte {} not escaped: {:?}", at, String::from_utf8_lossy(&input));
                    }
                }
            }
        }
    }
}
