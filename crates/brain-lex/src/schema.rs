//! The tantivy schema of the lexical index — the contract between `lexindex` (writer) and `rank`
//! (reader).
//!
//! **One tantivy document per passage.** A markdown file is cut into passages at headings, and long
//! sections further at paragraph (then line) boundaries to at most [`crate::passage::MAX_PASSAGE_BYTES`];
//! a short file is one passage. Every passage repeats its document's fields (id, collection, title, date,
//! …) so filters and boosts work on passages directly; group by [`ID`] to get one hit per document or
//! `--per-doc N`.
//!
//! | field | type | analysis | stored | use |
//! |---|---|---|---|---|
//! | [`ID`] `id` | string | raw | yes | document id `<collection>/<path>`; delete-by-term on re-index |
//! | [`COLLECTION`] `collection` | string | raw | yes | filter `-c` / `collection:` |
//! | [`PATH`] `path` | string | raw | yes | path inside the collection |
//! | [`PATH_TEXT`] `path_text` | text | `brain_text` | no | the path's words (`kb/rust-tips.md` → `kb rust tip md`) |
//! | [`FILE`] `file` | stored only | — | yes | absolute path of the markdown file |
//! | [`TITLE`] `title` | text + positions | `brain_text` | yes | document title, in every passage (boost it) |
//! | [`HEADINGS`] `headings` | text + positions | `brain_text` | yes | the heading path of the passage, `A › B` (boost it) |
//! | [`BODY`] `body` | text + positions | `brain_text` | yes | the passage text verbatim — also the snippet source |
//! | [`IDENT`] `ident` | text, freqs only | `brain_ident` | no | whole identifiers/paths/flags of title+headings+body |
//! | [`KIND`] `kind` | string | raw | yes | source type: `session`, `browser`, `note`, `distilled`, `inbox`, `eval` |
//! | [`AGENT`] `agent` | string | raw, lower-case | yes | `claude`, `codex`, `gemini`, `chrome`, … (filter `agent:`) |
//! | [`PROJECT`] `project` | string | raw | yes | `meta.project` (filter `project:`) |
//! | [`TAGS`] `tags` | string, multi | raw, lower-case | yes | `meta.tags` |
//! | [`DATE`] `date` | date, fast + indexed | — | yes | document date (UTC, seconds): a session's start; `--until` range |
//! | [`ENDED`] `ended` | date, fast + indexed | — | yes | a session's last message, else the date; `--since` range (a session overlapping the window matches) |
//! | [`SESSION`] `session` | string | raw | yes | the agent's session id (`brain get <session id>`) |
//! | [`TIE`] `tie` | u64, fast | — | no | [`brain_doc::tie_key`] of the id: equal scores are ordered by it |
//! | [`LINE`] `line` | u64 | — | yes | 1-based line in the markdown file where the passage starts (frontmatter counted) |
//! | [`PASSAGE`] `passage` | u64, indexed | — | yes | 0-based passage ordinal inside the document |
//! | [`SHA256`] `sha256` | string | raw | yes | sha256 of the whole markdown file |
//! | [`TYPE`] `type` | string | raw, lower-case | yes | memory `type` (filter `type:`) |
//! | [`IMPORTANCE`] `importance` | u64, fast | — | yes | 1–5 (3 when not given) |
//! | [`CONFIDENCE`] `confidence` | f64, fast | — | yes | 0–1 (1 when not given) |
//! | [`PINNED`] `pinned` | u64, fast | — | yes | 1 when pinned |
//! | [`OCCURRED`] `occurred` | date, fast + indexed | — | yes | `occurred_at`, else the date: when it became true (`--as-of`) |
//! | [`EXPIRES`] `expires` | date, fast + indexed | — | yes | `expires_at`/`ttl`, else [`FOREVER`]: hidden from then on |
//! | [`STATUS`] `status` | string | raw | yes | `active`, `superseded`, `archived` as written (archived: hidden) |
//! | [`KEY`] `key` | string | raw, lower-case | yes | the subject; a later active record of the same key supersedes |
//! | [`SUPERSEDES`] `supersedes` | string, multi | raw | yes | ids this record replaces |
//! | [`LINKED`] `linked` | u64, indexed | — | no | 1 when the record takes part in supersession (key, supersedes, status) |
//! | [`SUPERSEDED`] `superseded` | date, fast + indexed | — | yes | derived by the index: when a successor took over, else [`FOREVER`] |
//! | [`SUPERSEDED_BY`] `superseded_by` | string | raw | yes | derived: the successor's id |
//! | [`REFS_RAW`] `refs_raw` | string, multi, first passage only | — | yes (not indexed) | `meta.refs` as typed refs (`file:src/auth.rs`, `url:…`) |
//! | [`REFS`] `refs` | string, multi, first passage only | raw | no | every term a `ref:` filter matches ([`crate::document::ref_terms`]) |
//!
//! Analyzers (registered by [`crate::LexIndex::open`]): [`crate::tokenize::TEXT_TOKENIZER`] and
//! [`crate::tokenize::IDENT_TOKENIZER`]; the query side runs the same analyzers
//! ([`crate::tokenize::text_analyzer`], [`crate::tokenize::ident_analyzer`], [`crate::tokenize::tokens`])
//! to build term queries. Snippet: take [`BODY`] of the hit passage; the snippet line is [`LINE`] plus
//! the number of newlines before the best match inside it.
//!
//! Changing anything here bumps [`SCHEMA_VERSION`]; an index of another version is reported as needing a
//! rebuild.

use tantivy::schema::{
    DateOptions, DateTimePrecision, FAST, Field, INDEXED, IndexRecordOption, STORED, STRING,
    Schema, TextFieldIndexing, TextOptions,
};

use crate::tokenize::{IDENT_TOKENIZER, TEXT_TOKENIZER};

/// Version of this schema, written beside the index (`index/lex/SCHEMA_VERSION`). 7: the fields
/// are those of 6, but a rebuild is needed — `brain_text` indexes the pairs of adjacent CJK
/// characters and, for a text in another language, its words' stems in it (issue 56). 6: daily notes are cut block by block, and the registry's memory graph
/// (links, entities) is filled as each document is put.
pub const SCHEMA_VERSION: u32 = 7;

pub const ID: &str = "id";
pub const COLLECTION: &str = "collection";
pub const PATH: &str = "path";
pub const PATH_TEXT: &str = "path_text";
pub const FILE: &str = "file";
pub const TITLE: &str = "title";
pub const HEADINGS: &str = "headings";
pub const BODY: &str = "body";
pub const IDENT: &str = "ident";
pub const KIND: &str = "kind";
pub const AGENT: &str = "agent";
pub const PROJECT: &str = "project";
pub const TAGS: &str = "tags";
pub const DATE: &str = "date";
pub const ENDED: &str = "ended";
pub const SESSION: &str = "session";
pub const TIE: &str = "tie";
pub const LINE: &str = "line";
pub const PASSAGE: &str = "passage";
pub const SHA256: &str = "sha256";
pub const TYPE: &str = "type";
pub const IMPORTANCE: &str = "importance";
pub const CONFIDENCE: &str = "confidence";
pub const PINNED: &str = "pinned";
pub const OCCURRED: &str = "occurred";
pub const EXPIRES: &str = "expires";
pub const STATUS: &str = "status";
pub const KEY: &str = "key";
pub const SUPERSEDES: &str = "supersedes";
pub const LINKED: &str = "linked";
pub const SUPERSEDED: &str = "superseded";
pub const SUPERSEDED_BY: &str = "superseded_by";
pub const REFS_RAW: &str = "refs_raw";
pub const REFS: &str = "refs";

/// The instant that stands for "never" in [`EXPIRES`] and [`SUPERSEDED`] (a range query needs a
/// value in every document), and the latest instant the index holds: 2255-03-14T16:00:00Z. tantivy
/// keeps dates as i64 nanoseconds, which end in 2262; a later date (`9999-01-01` is a valid
/// frontmatter date) is held as this one.
pub const FOREVER: i64 = 9_000_000_000;

/// `secs` as an index date, clamped to ±[`FOREVER`] (never an overflow, whatever a file says).
pub fn instant(secs: i64) -> tantivy::DateTime {
    tantivy::DateTime::from_timestamp_secs(secs.clamp(-FOREVER, FOREVER))
}

/// Field handles of the schema, resolved once.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub id: Field,
    pub collection: Field,
    pub path: Field,
    pub path_text: Field,
    pub file: Field,
    pub title: Field,
    pub headings: Field,
    pub body: Field,
    pub ident: Field,
    pub kind: Field,
    pub agent: Field,
    pub project: Field,
    pub tags: Field,
    pub date: Field,
    pub ended: Field,
    pub session: Field,
    pub tie: Field,
    pub line: Field,
    pub passage: Field,
    pub sha256: Field,
    pub mtype: Field,
    pub importance: Field,
    pub confidence: Field,
    pub pinned: Field,
    pub occurred: Field,
    pub expires: Field,
    pub status: Field,
    pub key: Field,
    pub supersedes: Field,
    pub linked: Field,
    pub superseded: Field,
    pub superseded_by: Field,
    pub refs_raw: Field,
    pub refs: Field,
}

fn text(stored: bool, tokenizer: &str, record: IndexRecordOption) -> TextOptions {
    let opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer)
            .set_index_option(record),
    );
    if stored { opts.set_stored() } else { opts }
}

/// Build the schema and its field handles.
pub fn build() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let positions = IndexRecordOption::WithFreqsAndPositions;
    let fields = Fields {
        id: b.add_text_field(ID, STRING | STORED),
        collection: b.add_text_field(COLLECTION, STRING | STORED),
        path: b.add_text_field(PATH, STRING | STORED),
        path_text: b.add_text_field(
            PATH_TEXT,
            text(false, TEXT_TOKENIZER, IndexRecordOption::WithFreqs),
        ),
        file: b.add_text_field(FILE, STORED),
        title: b.add_text_field(TITLE, text(true, TEXT_TOKENIZER, positions)),
        headings: b.add_text_field(HEADINGS, text(true, TEXT_TOKENIZER, positions)),
        body: b.add_text_field(BODY, text(true, TEXT_TOKENIZER, positions)),
        ident: b.add_text_field(
            IDENT,
            text(false, IDENT_TOKENIZER, IndexRecordOption::WithFreqs),
        ),
        kind: b.add_text_field(KIND, STRING | STORED),
        agent: b.add_text_field(AGENT, STRING | STORED),
        project: b.add_text_field(PROJECT, STRING | STORED),
        tags: b.add_text_field(TAGS, STRING | STORED),
        date: b.add_date_field(
            DATE,
            DateOptions::default()
                .set_fast()
                .set_indexed()
                .set_stored()
                .set_precision(DateTimePrecision::Seconds),
        ),
        ended: b.add_date_field(
            ENDED,
            DateOptions::default()
                .set_fast()
                .set_indexed()
                .set_stored()
                .set_precision(DateTimePrecision::Seconds),
        ),
        session: b.add_text_field(SESSION, STRING | STORED),
        tie: b.add_u64_field(TIE, FAST),
        line: b.add_u64_field(LINE, STORED),
        passage: b.add_u64_field(PASSAGE, STORED | INDEXED),
        sha256: b.add_text_field(SHA256, STRING | STORED),
        mtype: b.add_text_field(TYPE, STRING | STORED),
        importance: b.add_u64_field(IMPORTANCE, FAST | STORED),
        confidence: b.add_f64_field(CONFIDENCE, FAST | STORED),
        pinned: b.add_u64_field(PINNED, FAST | STORED),
        occurred: b.add_date_field(OCCURRED, date_options()),
        expires: b.add_date_field(EXPIRES, date_options()),
        status: b.add_text_field(STATUS, STRING | STORED),
        key: b.add_text_field(KEY, STRING | STORED),
        supersedes: b.add_text_field(SUPERSEDES, STRING | STORED),
        linked: b.add_u64_field(LINKED, INDEXED),
        superseded: b.add_date_field(SUPERSEDED, date_options()),
        superseded_by: b.add_text_field(SUPERSEDED_BY, STRING | STORED),
        refs_raw: b.add_text_field(REFS_RAW, STORED),
        refs: b.add_text_field(REFS, STRING),
    };
    (b.build(), fields)
}

/// A date field to filter and score by: fast, indexed, stored, to the second.
fn date_options() -> DateOptions {
    DateOptions::default()
        .set_fast()
        .set_indexed()
        .set_stored()
        .set_precision(DateTimePrecision::Seconds)
}

/// Resolve the field handles of an existing index's schema; `None` if a field is missing.
pub fn fields_of(schema: &Schema) -> Option<Fields> {
    let f = |name| schema.get_field(name).ok();
    Some(Fields {
        id: f(ID)?,
        collection: f(COLLECTION)?,
        path: f(PATH)?,
        path_text: f(PATH_TEXT)?,
        file: f(FILE)?,
        title: f(TITLE)?,
        headings: f(HEADINGS)?,
        body: f(BODY)?,
        ident: f(IDENT)?,
        kind: f(KIND)?,
        agent: f(AGENT)?,
        project: f(PROJECT)?,
        tags: f(TAGS)?,
        date: f(DATE)?,
        ended: f(ENDED)?,
        session: f(SESSION)?,
        tie: f(TIE)?,
        line: f(LINE)?,
        passage: f(PASSAGE)?,
        sha256: f(SHA256)?,
        mtype: f(TYPE)?,
        importance: f(IMPORTANCE)?,
        confidence: f(CONFIDENCE)?,
        pinned: f(PINNED)?,
        occurred: f(OCCURRED)?,
        expires: f(EXPIRES)?,
        status: f(STATUS)?,
        key: f(KEY)?,
        supersedes: f(SUPERSEDES)?,
        linked: f(LINKED)?,
        superseded: f(SUPERSEDED)?,
        superseded_by: f(SUPERSEDED_BY)?,
        refs_raw: f(REFS_RAW)?,
        refs: f(REFS)?,
    })
}
