//! `brain eval --engine`: the set sent to a team engine through the `teamindex` sink, and every
//! query answered through it (docs/team.md).

use std::time::Instant;

use brain_rank::Engine;
use brain_vec::EmbedderSpec;

use crate::beir;
use crate::bench::{Bench, COLLECTION, CORPUS_SHA, EvalError, to_doc};

impl Bench {
    /// Send the corpus to the team engine at `url` (into an index named after the corpus, with
    /// vectors of `spec`'s model) through the `teamindex` sink, and answer every query from it.
    pub fn through_engine(
        mut self,
        url: &str,
        corpus: &[beir::CorpusDoc],
        spec: &EmbedderSpec,
        progress: &dyn Fn(usize, usize),
    ) -> Result<Bench, EvalError> {
        // One index per corpus and model: another model's vectors never meet these.
        let embedder = brain_vec::backend::open(spec)?;
        let mapping = brain_team::mapping::Mapping::new(&embedder.model_id(), embedder.dims());
        let sha = std::fs::read_to_string(self.engine.home().root().join(CORPUS_SHA))?;
        let index = format!(
            "eval-{}-{}",
            sha.trim().get(..12).unwrap_or("corpus"),
            &brain_doc::sha256_hex(mapping.name().as_bytes())[..6]
        );
        let timeout = brain_team::client::DEFAULT_TIMEOUT;
        let client = brain_team::home::connect(None, Some(url), Some(&index), timeout)?;
        let inputs: Vec<brain_team::sink::Input> = corpus
            .iter()
            .map(|d| {
                let i = brain_vec::index::Input::from_doc(to_doc(d));
                brain_team::sink::Input {
                    doc: i.doc,
                    body_line: i.body_line,
                }
            })
            .collect();
        let total = inputs.len();
        let t = Instant::now();
        let home = self.engine.home().clone();
        let summary = brain_team::sink::push(
            &home.team_state(&brain_team::sink::state_key(&client)),
            &client,
            &brain_team::home::Local {
                embedder: embedder.as_ref(),
                cutting: brain_team::home::Cutting::default(),
            },
            inputs,
            &[COLLECTION.to_string()],
            &brain_team::record::Who::from_env(None),
            &brain_team::sink::Options {
                prune: true,
                ..Default::default()
            },
            &|_| {},
            &|done| progress(done, total),
        )?;
        if let Some(why) = summary.offline {
            return Err(brain_team::TeamError::Unreachable {
                url: url.to_string(),
                reason: why,
            }
            .into());
        }
        self.embedded = summary.sent;
        self.embed_ms = t.elapsed().as_millis() as u64;
        self.remote = Some(format!("{} (index {index})", client.url()));
        let remote = brain_rank::engine::Remote::new(
            brain_team::home::connect(None, Some(url), Some(&index), timeout)?,
            Vec::new(),
        );
        let strategy = self.engine.strategy().clone();
        let mut engine = Engine::open_with(&home, spec.clone())?.with_remote(remote);
        engine.set_strategy(strategy);
        self.engine = engine;
        Ok(self)
    }
}
