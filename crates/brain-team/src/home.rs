//! This home's side of a team engine (docs/team.md): the engine brain.yaml's `team:` section
//! names, with its credentials; and this home's cutting and model as the records the
//! `teamindex` sink sends ([`crate::sink::Vectors`]), so the engine's lexical passages are the
//! very passages `lexindex` indexes and its chunks the very chunks `vecindex` embeds.

use std::time::Duration;

use crate::TeamError;
use crate::mapping::Mapping;
use crate::record::{self, Piece, Pieces};
use brain_doc::Classified;
use brain_store::Config;
use brain_vec::Embedder;
use brain_vec::chunk::{self, ChunkParams};

/// The engine `arg` names (a URL, or a name in `team.engines`; the only one when absent), its
/// index (`index`, else `team.index`), with the credentials of the environment or
/// `team.credentials`.
pub fn connect(
    config: Option<&Config>,
    arg: Option<&str>,
    index: Option<&str>,
    timeout: Duration,
) -> Result<crate::Engine, TeamError> {
    let team = config.and_then(|c| c.team.clone()).unwrap_or_default();
    let url = team.engine(arg).map_err(TeamError::Config)?;
    let credentials_file = team
        .credentials
        .as_deref()
        .and_then(|p| config.map(|c| c.resolve(p)));
    let creds = crate::client::credentials(credentials_file.as_deref())?;
    let ca = team
        .ca
        .as_deref()
        .and_then(|p| config.map(|c| c.resolve(p)));
    let tls = crate::client::Tls::from_env(ca.as_deref())?;
    crate::Engine::connect_tls(&url, index.unwrap_or(&team.index), creds, &tls, timeout)
}

/// How this home cuts a body: into the lexical index's passages (a daily note's block by
/// block) and into vecindex's chunks.
#[derive(Debug, Clone, Default)]
pub struct Cutting {
    pub chunking: ChunkParams,
    /// The collections of daily notes ([`Config::is_daily`]).
    pub daily: Vec<String>,
}

impl Cutting {
    /// The cutting of the home `config` describes, with vecindex's chunk size.
    pub fn of(config: &Config) -> Cutting {
        Cutting {
            chunking: ChunkParams::default(),
            daily: config
                .collections
                .iter()
                .filter(|c| config.is_daily(&c.name))
                .map(|c| c.name.clone())
                .collect(),
        }
    }

    /// The body of a document of `collection`, cut both ways.
    pub fn pieces(&self, collection: &str, body: &str) -> Pieces {
        Pieces {
            lexical: record::lexical(body, self.daily.iter().any(|d| d == collection)),
            chunks: chunks(body, self.chunking),
        }
    }
}

/// This home's cutting and embedder, as the sink asks for them.
pub struct Local<'a> {
    pub embedder: &'a dyn Embedder,
    pub cutting: Cutting,
}

impl crate::sink::Vectors for Local<'_> {
    fn mapping(&self) -> Mapping {
        Mapping::new(&self.embedder.model_id(), self.embedder.dims())
    }

    fn pieces(&self, collection: &str, body: &str) -> Pieces {
        self.cutting.pieces(collection, body)
    }

    fn embed(&self, title: &str, pieces: &[Piece]) -> Result<Vec<Vec<f32>>, TeamError> {
        let texts: Vec<String> = pieces
            .iter()
            .map(|p| chunk::embed_text(title, &p.text))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        self.embedder.embed(&refs).map_err(|e| TeamError::Embed {
            code: e.code(),
            message: e.to_string(),
            fix: e.fix(),
        })
    }
}

/// The chunks of a body, as vecindex cuts it.
fn chunks(body: &str, chunking: ChunkParams) -> Vec<Piece> {
    chunk::chunk(body, chunking)
        .into_iter()
        .map(|c| Piece {
            seq: c.seq,
            line: c.line,
            text: c.text,
        })
        .collect()
}

/// Documents as vecindex reads them, as the sink takes them.
pub fn inputs(inputs: Vec<brain_vec::index::Input>) -> Vec<crate::sink::Input> {
    inputs
        .into_iter()
        .map(|i| crate::sink::Input {
            doc: i.doc,
            body_line: i.body_line,
        })
        .collect()
}
