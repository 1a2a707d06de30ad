//! Request targets as Node reads them. curl and scripts send some characters raw that
//! browsers percent-encode (`filters[title][$eq]="x"`, `<`, `>`, `` ` ``). Node (Strapi)
//! accepts them; the `http` crate refuses them in a query and hyper answers a bare 400
//! before any handler runs. [`EscapingListener`] wraps the TCP listener and
//! percent-encodes exactly those bytes inside each request line's target, so the request
//! reaches the router as a browser would have sent it, and gets Strapi's answer.
//!
//! Only request lines are touched: headers and bodies pass through byte for byte (a body's
//! end is found from `Content-Length`; after a chunked body the rest of the connection
//! passes through untouched, as the content API reads no bodies).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Bytes Node takes raw in a request target and the `http` crate refuses.
fn needs_escape(b: u8) -> bool {
    matches!(b, b'"' | b'<' | b'>' | b'`')
}

/// Where the reader is in the HTTP/1 stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The method (and any blank lines before it).
    Method,
    /// The request target.
    Target,
    /// The rest of the request line.
    Version,
    /// Header lines; what they said of the body so far.
    Headers {
        length: u64,
        chunked: bool,
        line_start: bool,
    },
    /// `n` bytes of body left.
    Body(u64),
    /// Everything from here on passes through.
    Through,
}

/// The longest header line inspected for `Content-Length`/`Transfer-Encoding`.
const MAX_INSPECTED_LINE: usize = 256;

/// The per-connection rewriter.
#[derive(Debug)]
struct Rewriter {
    state: State,
    line: Vec<u8>,
}

impl Rewriter {
    fn new() -> Self {
        Rewriter {
            state: State::Method,
            line: Vec::new(),
        }
    }

    fn header_line_done(&mut self, length: &mut u64, chunked: &mut bool) {
        let line = std::mem::take(&mut self.line);
        let text = String::from_utf8_lossy(&line);
        if let Some((name, value)) = text.split_once(':') {
            let value = value.trim();
            if name.trim().eq_ignore_ascii_case("content-length") {
                *length = value.parse().unwrap_or(0);
            } else if name.trim().eq_ignore_ascii_case("transfer-encoding")
                && value.to_ascii_lowercase().contains("chunked")
            {
                *chunked = true;
            }
        }
    }

    /// Rewrites `input` into `out`.
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &b in input {
            match self.state {
                State::Through => out.push(b),
                State::Body(n) => {
                    out.push(b);
                    self.state = if n <= 1 {
                        State::Method
                    } else {
                        State::Body(n - 1)
                    };
                }
                State::Method => {
                    out.push(b);
                    if b == b' ' {
                        self.state = State::Target;
                    }
                }
                State::Target => {
                    if needs_escape(b) {
                        out.extend_from_slice(format!("%{b:02X}").as_bytes());
                    } else {
                        out.push(b);
                    }
                    match b {
                        b' ' => self.state = State::Version,
                        b'\n' => {
                            self.state = State::Headers {
                                length: 0,
                                chunked: false,
                                line_start: true,
                            }
                        }
                        _ => {}
                    }
                }
                State::Version => {
                    out.push(b);
                    if b == b'\n' {
                        self.state = State::Headers {
                            length: 0,
                            chunked: false,
                            line_start: true,
                        };
                    }
                }
                State::Headers {
                    mut length,
                    mut chunked,
                    line_start,
                } => {
                    out.push(b);
                    if b == b'\n' {
                        let blank = line_start || self.line.iter().all(|c| *c == b'\r');
                        if blank {
                            self.line.clear();
                            self.state = match (chunked, length) {
                                (true, _) => State::Through,
                                (false, 0) => State::Method,
                                (false, n) => State::Body(n),
                            };
                            continue;
                        }
                        self.header_line_done(&mut length, &mut chunked);
                        self.state = State::Headers {
                            length,
                            chunked,
                            line_start: true,
                        };
                    } else {
                        if self.line.len() < MAX_INSPECTED_LINE {
                            self.line.push(b);
                        }
                        self.state = State::Headers {
                            length,
                            chunked,
                            line_start: line_start && b == b'\r',
                        };
                    }
                }
            }
        }
    }
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
    fn follows_keep_alive_bodies_and_split_reads() {
        let two = b"POST /a?q=\"1\" HTTP/1.1\r\nContent-Length: 5\r\n\r\n\"<>\"xGET /b?q=\"2\" HTTP/1.1\r\n\r\n";
        let whole = rewrite(&[two]);
        let split: Vec<&[u8]> = two.chunks(3).collect();
        assert_eq!(rewrite(&split), whole);
        assert_eq!(
            whole,
            b"POST /a?q=%221%22 HTTP/1.1\r\nContent-Length: 5\r\n\r\n\"<>\"xGET /b?q=%222%22 HTTP/1.1\r\n\r\n"
                .to_vec()
        );
    }

    #[test]
    fn chunked_bodies_end_the_rewriting() {
        let req =
            b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n\"\r\n0\r\n\r\nGET /b?\"";
        let out = rewrite(&[req]);
        assert!(out.ends_with(b"GET /b?\""));
    }
}
