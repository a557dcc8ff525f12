//! Reranker parity: brain's cross-encoder against an independent float64 forward pass of the same
//! tiny random-weight BertForSequenceClassification (tests/rerank_reference.py wrote both).

use std::path::PathBuf;

use brain_doc::Classified;
use brain_vec::cross::CrossEncoder;
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

#[test]
fn tiny_cross_encoder_matches_the_float64_reference() {
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("rerank_reference.json")).expect("reference"),
    )
    .expect("json");
    let max_tokens = reference["max_tokens"].as_u64().expect("max_tokens") as usize;
    let model = CrossEncoder::load(&fixtures().join("rerank-tiny"), max_tokens).expect("load");
    let cases = reference["cases"].as_array().expect("cases");
    assert!(cases.len() >= 5);
    let ids = |v: &Value| -> Vec<u32> {
        v.as_array()
            .expect("ids")
            .iter()
            .map(|x| x.as_u64().expect("id") as u32)
            .collect()
    };
    for c in cases {
        let (q, p) = (
            c["query"].as_str().expect("q"),
            c["passage"].as_str().expect("p"),
        );
        let (got_ids, got_types) = model.encode(q, p).expect("encode");
        assert_eq!(got_ids, ids(&c["ids"]), "token ids of {q:?} / {p:?}");
        assert_eq!(got_types, ids(&c["types"]), "segment ids of {q:?}");
    }
    // All pairs of one query in one call: batching and padding must not change a score.
    let queries: Vec<&str> = cases
        .iter()
        .map(|c| c["query"].as_str().expect("q"))
        .collect();
    for q in queries {
        let group: Vec<&Value> = cases.iter().filter(|c| c["query"] == q).collect();
        let passages: Vec<&str> = group
            .iter()
            .map(|c| c["passage"].as_str().expect("p"))
            .collect();
        let logits = model.logits(q, &passages).expect("logits");
        for (c, got) in group.iter().zip(logits) {
            let want = c["logit"].as_f64().expect("logit");
            assert!(
                (f64::from(got) - want).abs() < 1e-4,
                "{q:?} / {:?}: {got} vs reference {want}",
                c["passage"]
            );
        }
    }
    // Every pair in one batch, of mixed lengths (padding and the attention mask in play).
    let passages: Vec<&str> = cases
        .iter()
        .map(|c| c["passage"].as_str().expect("p"))
        .collect();
    let q0 = cases[0]["query"].as_str().expect("q");
    let batched = model.logits(q0, &passages).expect("batched");
    for (p, got) in passages.iter().zip(batched) {
        let alone = model.logits(q0, &[p]).expect("alone")[0];
        assert!(
            (got - alone).abs() < 1e-5,
            "padding changed {p:?}: {got} vs {alone}"
        );
    }
    let s = model.scores(q0, &passages[..1]).expect("scores")[0];
    assert!((0.0..=1.0).contains(&s));
}

#[test]
fn a_folder_without_a_classifier_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = CrossEncoder::load(dir.path(), 64).err().expect("no files");
    assert_eq!(err.code().exit_code(), 65, "{err}");
}
