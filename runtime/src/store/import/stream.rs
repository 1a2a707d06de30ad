//! Streaming over a dataset file: the top-level object is read key by key and the
//! `files`, `users` and `documents` arrays element by element, so memory holds a few
//! documents at a time whatever the file's size. The parsing runs on a thread of its own,
//! ahead of the caller ([`for_each_item`]).

use std::cell::Cell;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::mpsc::{self, SyncSender};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::ImportError;

/// The top-level sections whose elements are streamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// `files`.
    Files,
    /// `users`.
    Users,
    /// `documents`.
    Documents,
}

impl Section {
    /// The JSON key.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Section::Files => "files",
            Section::Users => "users",
            Section::Documents => "documents",
        }
    }
}

/// One piece of the dataset, in file order.
#[derive(Debug)]
pub(crate) enum Item {
    /// `format`.
    Format(Value),
    /// `locales` (small; read whole).
    Locales(Value),
    /// An element of a streamed section, with its index.
    Element(Section, usize, Value),
    /// A top-level key the format does not define.
    Unknown(String),
}

/// A reader that counts the bytes it hands out.
struct Counting<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// Items handed from the reading thread to the caller at a time: enough that the hand-off
/// (a channel operation, now and then a thread wake-up) costs little per item, few enough
/// that memory still holds a handful of documents.
const CHUNK: usize = 64;

/// Chunks the reading thread may parse ahead of the caller.
const AHEAD: usize = 8;

/// Items with the number of bytes read when each was parsed.
type Chunk = Vec<(Item, u64)>;

/// Reads `path` once, calling `f` for each item with the number of bytes read so far.
/// An error returned by `f` stops the reading and is returned as is.
///
/// The JSON is parsed on a thread of its own, a few chunks of items ahead of `f`, which
/// runs on the caller's thread: parsing is nearly all of an import's pass 1 and a tenth
/// of its pass 2, and it overlaps with the caller's work on a second core. Items reach `f` in file order; a JSON error is returned after `f` saw
/// every item before it, as a reading on the caller's thread would.
pub(crate) fn for_each_item(
    path: &Path,
    f: &mut dyn FnMut(Item, u64) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let file = File::open(path).map_err(|e| ImportError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let (tx, rx) = mpsc::sync_channel::<Chunk>(AHEAD);
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name("strata-import-read".into())
            .spawn_scoped(scope, move || read_items(file, path, &tx))
            .map_err(|e| ImportError::Io {
                path: path.to_path_buf(),
                source: e,
            })?;
        let mut failed = None;
        'items: for chunk in rx.iter() {
            for (item, read) in chunk {
                if let Err(e) = f(item, read) {
                    failed = Some(e);
                    break 'items;
                }
            }
        }
        // The reader's next hand-off fails, and it stops.
        drop(rx);
        let parsed = match reader.join() {
            Ok(parsed) => parsed,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match failed {
            Some(e) => Err(e),
            None => parsed,
        }
    })
}

/// The reading thread: parses `file` and hands its items to `tx` a chunk at a time. Stops
/// without an error of its own when the caller stopped taking them.
fn read_items(file: File, path: &Path, tx: &SyncSender<Chunk>) -> Result<(), ImportError> {
    let read = Rc::new(Cell::new(0u64));
    // The buffer outside the counter: serde_json reads a byte at a time, which a
    // `BufReader` serves from its buffer; the counter sees only the large reads.
    let reader = BufReader::with_capacity(
        1 << 20,
        Counting {
            inner: file,
            read: Rc::clone(&read),
        },
    );
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut sink = Sink {
        tx,
        chunk: Vec::with_capacity(CHUNK),
        read: &read,
        stopped: false,
    };
    let result = de::Deserializer::deserialize_map(&mut de, TopVisitor { sink: &mut sink })
        .and_then(|()| de.end());
    if sink.stopped {
        return Ok(());
    }
    // The items before an error are the caller's too.
    let _ = sink.send::<serde_json::Error>();
    result.map_err(|e| json_error(path, &e))
}

fn json_error(path: &Path, e: &serde_json::Error) -> ImportError {
    if e.is_io() {
        return ImportError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        };
    }
    ImportError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    }
}

struct Sink<'a> {
    tx: &'a SyncSender<Chunk>,
    chunk: Chunk,
    read: &'a Rc<Cell<u64>>,
    /// The caller stopped taking items.
    stopped: bool,
}

impl Sink<'_> {
    fn call<E: de::Error>(&mut self, item: Item) -> Result<(), E> {
        self.chunk.push((item, self.read.get()));
        if self.chunk.len() >= CHUNK {
            self.send()?;
        }
        Ok(())
    }

    /// Hands the items parsed so far to the caller.
    fn send<E: de::Error>(&mut self) -> Result<(), E> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK));
        if self.tx.send(chunk).is_err() {
            self.stopped = true;
            return Err(E::custom("import stopped"));
        }
        Ok(())
    }
}

struct TopVisitor<'s, 'a> {
    sink: &'s mut Sink<'a>,
}

impl<'de> Visitor<'de> for TopVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a strata dataset object ({\"format\": \"strata-dataset/1\", …})")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format" => {
                    let v: Value = map.next_value()?;
                    self.sink.call(Item::Format(v))?;
                }
                "locales" => {
                    let v: Value = map.next_value()?;
                    self.sink.call(Item::Locales(v))?;
                }
                "files" => map.next_value_seed(SeqSeed {
                    section: Section::Files,
                    sink: self.sink,
                })?,
                "users" => map.next_value_seed(SeqSeed {
                    section: Section::Users,
                    sink: self.sink,
                })?,
                "documents" => map.next_value_seed(SeqSeed {
                    section: Section::Documents,
                    sink: self.sink,
                })?,
                _ => {
                    let _: IgnoredAny = map.next_value()?;
                    self.sink.call(Item::Unknown(key))?;
                }
            }
        }
        Ok(())
    }
}

struct SeqSeed<'s, 'a> {
    section: Section,
    sink: &'s mut Sink<'a>,
}

impl<'de> DeserializeSeed<'de> for SeqSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SeqSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of {}", self.section.key())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while let Some(v) = seq.next_element::<Value>()? {
            self.sink.call(Item::Element(self.section, i, v))?;
            i += 1;
        }
        Ok(())
    }
}
