//! `doc2md`: documents beyond markdown (PDF, HTML, DOCX, plain text) → markdown documents.

use std::path::PathBuf;
use std::process::ExitCode;

use brain_cli::{Exit, Failure, Stdout, Warnings};
use brain_convert::{Limits, Options, Sink};
use brain_store::Home;
use clap::Parser;

/// Turn documents into markdown documents: PDF (text page by page), HTML (a saved page's readable
/// text, its title, address and date), DOCX (paragraphs, headings, lists, tables) and plain text.
///
/// Each document becomes one doc record (`source.type: document`) whose body has a section per
/// PDF page (`## Page 3`) or per heading of the document, so a citation points into it
/// (`report.pdf#page-3`). Output is doc NDJSON on stdout, in path order (pipe it into
/// `partition | lexindex`), or `<id>.md` files with --out-dir. Folders are walked for the files
/// doc2md reads by name (.pdf .html .htm .xhtml .docx .txt); hidden names and linked folders are
/// skipped. Secrets are redacted by default; a document containing `brain:do-not-index` is left
/// out.
///
/// With --collections, the documents that brain.yaml's collections hold in place (a collection
/// whose glob takes them, e.g. `**/*.{md,pdf,html,docx,txt}`) are converted into
/// $BRAIN_HOME/cache/doc2md/, where `lexindex --all` indexes them under their own paths; only
/// files changed since their last conversion are read again (`lexindex --all`, the nightly run
/// and `brain watch` run this step themselves).
///
/// Every document is bounded: files over --max-bytes are refused unread, a DOCX unpacks to at most
/// that much, an HTML page is read in one streaming pass whatever its nesting, and each PDF is
/// parsed in a child process limited to --max-memory and killed after --timeout seconds. A
/// damaged, encrypted or oversized document is named with the reason and the rest are converted.
///
/// Exit status: 0 when every document was converted (or left out on request), 64 when one could
/// not be read (damaged, encrypted, too large, not a document), 66 when a PDF ran out of time,
/// 99 when the output could not be written.
///
/// Examples:
///   doc2md ~/papers | partition | lexindex
///   doc2md --out-dir /tmp/docs report.pdf saved-page.html notes.docx
///   doc2md --collections
#[derive(Parser, Debug)]
#[command(version, verbatim_doc_comment)]
struct Args {
    /// Documents, or folders to walk for them.
    #[arg(required_unless_present_any = ["collections", "pdf_worker"])]
    paths: Vec<PathBuf>,

    /// Write one `<id>.md` file per document into this folder instead of NDJSON on stdout.
    #[arg(long, value_name = "DIR", conflicts_with = "collections")]
    out_dir: Option<PathBuf>,

    /// Convert the documents brain.yaml's collections hold into $BRAIN_HOME/cache/doc2md/ (what
    /// lexindex indexes), only those changed since; kept markdown of removed files is removed.
    #[arg(long, conflicts_with = "paths")]
    collections: bool,

    /// Keep secrets as they are (redaction is on by default).
    #[arg(long)]
    no_redact: bool,

    /// Refuse documents larger than this many bytes (and DOCX parts unpacking to more).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_file_bytes)]
    max_bytes: u64,

    /// Stop a PDF's parse after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().pdf_seconds,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,

    /// The memory a PDF's parse may map, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().pdf_memory_bytes)]
    max_memory: u64,

    /// No warnings or summary on stderr (failures are still counted in the exit status).
    #[arg(short, long)]
    quiet: bool,

    /// Internal: parse this one PDF and print it as JSON (the child of an isolated parse).
    #[arg(long, value_name = "FILE", hide = true)]
    pdf_worker: Option<PathBuf>,
}

fn main() -> ExitCode {
    brain_cli::main("doc2md", run)
}

fn run(args: Args) -> anyhow::Result<Exit> {
    let limits = Limits {
        max_file_bytes: args.max_bytes,
        max_unpacked_bytes: args.max_bytes,
        pdf_seconds: args.timeout,
        pdf_memory_bytes: args.max_memory,
        ..Limits::default()
    };
    if let Some(file) = &args.pdf_worker {
        let mut out = std::io::stdout().lock();
        brain_convert::pdf::work(file, &limits, &mut out).map_err(Failure::from)?;
        return Ok(Exit::Success);
    }
    let opts = Options {
        limits,
        redact: !args.no_redact,
        worker: std::env::current_exe().ok(),
    };
    let warnings = Warnings::new("doc2md", args.quiet);
    let warn = |m: String| warnings.warn(m);
    let summary = if args.collections {
        let home = Home::from_env();
        let config = brain_store::Config::load(&home).map_err(Failure::from)?;
        brain_convert::collections(&home, &config, &opts, &warn).map_err(Failure::from)?
    } else {
        let mut stdout = Stdout::new();
        let mut sink = match &args.out_dir {
            Some(dir) => Sink::Dir(dir),
            None => Sink::Ndjson(&mut stdout),
        };
        brain_convert::run(&args.paths, &opts, &mut sink, &warn).map_err(Failure::from)?
    };
    if !args.quiet {
        eprintln!("doc2md: {}", summary.line());
    }
    Ok(summary.worst.map_or(Exit::Success, Exit::Code))
}
